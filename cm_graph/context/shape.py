"""The wire shape ``cm_graph.codeContext.v3``: key order, citations, ids, the prose, and the dense
table each section's items travel in.

Everything here is a pure function of the sections already chosen, so the same graph and
target give the same bytes: citations are numbered in the order the answer first needs them.
Composers and the prose work on items as dicts; ``encode`` turns them into the wire's table at
the very end (``wire.py`` reads them back), because an item's keys repeated per row, its path
spelled beside the citation that names it, and each citation's commit were most of an answer's
characters: the default budget showed 1 of 36 callers. v3 spells a file's path once among the
citations and a user's other lines as numbers in its site's file: a test that calls the target on
six lines cost seven citations of a deep path each.
The two ids (``capability_id``: the intent and the normalised target, stable across generations;
``answer_id``: the SHA-256 of the canonical JSON of the answer) are ``query/answerids.py``'s,
which every surface shares.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..base.jsonio import dumps_wire
from ..base.rules import citation_string

CODE_CONTEXT_SCHEMA = "cm_graph.codeContext.v3"
LIST_HEAD = 6
ID_PLACEHOLDER = "sha256:" + "0" * 64
OMITTED_WHEN_NONE, OMITTED_WHEN_ZERO = ("reason", "detail"), ("shown", "total")
AT_SITE = "_at_site"  # an item cited at its site alone: its definition's line is in the site's file



class CitationBook:
    """Numbers verified ``path#Lline`` citations (c1, c2, ...) in first-use order; a location the
    bound commit does not carry gets no id and is counted."""

    def __init__(self, confirms: Any, commit: str) -> None:
        self._confirms = confirms
        self._commit = commit
        self._ids: dict[tuple[str, int | None], str] = {}
        self.entries: list[dict[str, Any]] = []
        self.unverified = 0

    def confirms(self, path: str, line: int | None) -> bool:
        """Whether the bound commit carries ``path`` (and ``line``), citing nothing."""
        return bool(path) and bool(self._confirms(path, line))

    def check(self, path: str, line: int | None) -> bool:
        """Whether the bound commit carries ``path`` and ``line``, given no id (a user's other line
        in its cited site's file); a location it lacks is counted, as ``cite`` counts it."""
        if self.confirms(path, line):
            return True
        self.unverified += 1
        return False

    def cite(self, path: str, line: int | None) -> str | None:
        if not path:
            return None
        key = (path, line)
        if key in self._ids:
            return self._ids[key]
        if not self._confirms(path, line):
            self.unverified += 1
            return None
        cid = f"c{len(self.entries) + 1}"
        self._ids[key] = cid
        self.entries.append({"id": cid, "path": path, "line": line, "cite": citation_string(path, line),
                             "verified_at": self._commit})
        return cid


def shown_cite(item: dict[str, Any]) -> str | None:
    """The one citation id an item is shown with, in the prose and in its table row alike: its
    call or reference site when that is cited (where it uses the anchor), else its definition."""
    site = item.get("site") or {}
    return site.get("cite") or item.get("cite")


def tag(label: str, cid: str | None) -> str:
    return f"`{label}` [{cid}]" if cid else f"`{label}`"


def listed(parts: list[str], total: int, *, at_least: bool = False) -> str:
    """The first ``LIST_HEAD`` parts and how many more of ``total`` there are (``at_least``: the
    total is a lower bound, as at a walk's read bound)."""
    head = ", ".join(parts[:LIST_HEAD])
    more = total - min(len(parts), LIST_HEAD)
    bound = "at least " if at_least else ""
    if not parts and total:  # the budget showed none of them: never a list that starts with "…and"
        return f"none of {bound}{total} shown (cut to fit)"
    return head + (f", …and {bound}{more} more" if more > 0 else "")


def encode(document: dict[str, Any]) -> None:
    """Turn ``document``'s sections and citations into the wire form, in place.

    A section's ``reason`` and ``detail`` are left out when there is none (an unavailable one's
    ``detail`` too: the prose names it with its reason), ``shown`` and ``total`` when it holds
    nothing; ``wire.header`` reads them back with those defaults. Its items become
    ``columns`` and ``rows`` (one list per item, in report order); a value every row shares goes
    once into ``same``; an item's ``path``/``line`` go when its citation names them, and its
    ``site`` is the site's citation id. A section without items has no ``columns`` or ``rows``.
    Citations are grouped by file, path to ``{id: line}``, every one confirmed at ``graph.commit``."""
    document["sections"] = {name: _section(section) for name, section in document["sections"].items()}
    for anchor in document.get("anchors") or []:
        if "also" in anchor:  # the lines it uses itself on: their citation ids, as an item's
            anchor["also"] = [more["cite"] for more in anchor["also"]]
    document["citations"] = grouped_citations(document["citations"])


def grouped_citations(entries: list[dict[str, Any]]) -> dict[str, dict[str, int | None]]:
    """Citations by file: each path once, in first-use order, with the id and line of each of its
    citations (``None``: the file itself), so callers in one test file spell its path once, not
    once each; ``wire.cited`` reads back each id's ``path#Lline``."""
    files: dict[str, dict[str, int | None]] = {}
    for entry in entries:
        files.setdefault(entry["path"], {})[entry["id"]] = entry["line"]
    return files


def _section(section: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = {}
    for key, value in section.items():
        if key == "items" or (key in OMITTED_WHEN_NONE and value is None):
            continue
        if key == "detail" and section["status"] == "unavailable":
            continue  # the prose names the section with its reason (Not available: …)
        if key in OMITTED_WHEN_ZERO and not section["total"]:
            continue
        wire[key] = value
    items = [flat_item(item) for item in section["items"]]
    if not items:
        return wire
    return {**wire, **table(items)}


def table(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Items as the wire's dense table: ``same`` (a value every row shares, once; or the one most
    rows share, when naming the few other rows' values in ``except``, by row index, is shorter
    than a column: sympy's callers are ``calls``/``extracted`` but for three ``indirect_call``
    rows), ``columns`` and ``rows`` (one list per item, in order); ``wire.section_items`` reads
    it back. The budget's fit builds a hub's answer several times, so a column costs one pass:
    its values are grouped by ``_same_key`` (equal keys, equal spellings), each distinct value is
    spelt once, and both layouts' lengths are summed from those spellings, never written out."""
    columns = list(dict.fromkeys(key for item in items for key in item))
    same: dict[str, Any] = {}
    unlike: dict[str, dict[str, Any]] = {}
    if len(items) > 1:
        for key in columns:
            if not all(key in item for item in items):
                continue
            values = [item[key] for item in items]
            first, kind = values[0], type(values[0])
            if kind in _SCALARS and all(type(value) is kind and value == first for value in values):
                same[key] = first  # one spelling: no layout to weigh
                continue
            common, others = _usual(values, key)
            if others is not None:
                same[key] = common
                if others:
                    unlike[key] = others
    columns = [key for key in columns if key not in same]
    wire: dict[str, Any] = {"same": same} if same else {}
    if unlike:
        wire["except"] = unlike
    wire["columns"] = columns
    wire["rows"] = [[item.get(key) for key in columns] for item in items]
    return wire


_SCALARS = frozenset({str, int, bool, type(None)})


def spelled(value: Any) -> str:
    """``dumps_wire(value)``, a scalar's spelling remembered (a label, a path or a relation word
    recurs in every row and every build of an answer); keyed by its type too, so ``1`` and
    ``True`` stay apart."""
    kind = type(value)
    if kind in _SCALARS:
        return _spelled_scalar(kind.__name__, value)
    return dumps_wire(value)


@lru_cache(maxsize=16384)
def _spelled_scalar(kind: str, value: Any) -> str:
    return dumps_wire(value)


def _same_key(value: Any) -> Any:
    """A key two values share exactly when ``dumps_wire`` spells them alike: a scalar's type and
    value (``1`` and ``True`` compare equal but are spelt apart), else its spelling."""
    kind = type(value)
    return (kind, value) if kind in _SCALARS else dumps_wire(value)


def _usual(values: list[Any], column: str) -> tuple[Any, dict[str, Any] | None]:
    """The value most rows hold (the first such in row order on a tie) and, by row index, every
    other row's value ({}: every row holds it), when naming those is shorter than the column;
    else (``None``, ``None``): the column stays. The lengths are ``dumps_wire``'s exactly: its
    escaping (``printable_json``) is character by character, so an object's spelling is its
    keys' and values' spellings and its ASCII punctuation."""
    keys = [_same_key(value) for value in values]
    counts: dict[Any, int] = {}
    texts: dict[Any, int] = {}  # each distinct value's spelt length, spelt at its first row
    for index, key in enumerate(keys):
        if key in counts:
            counts[key] += 1
        else:
            counts[key] = 1
            texts[key] = len(spelled(values[index]))
    best = max(counts, key=counts.__getitem__)  # max keeps the first of equal counts
    if counts[best] == len(keys):
        return values[0], {}
    name = len(spelled(column))
    as_column = name + 1 + sum(count * (texts[key] + 1) for key, count in counts.items())
    other_rows = [index for index, key in enumerate(keys) if key != best]
    # "except": {"<index>":<value>,...}: braces, each index quoted with its colon, commas between.
    named = (2 * (name + 2) + texts[best] + 2 + len(other_rows) - 1
             + sum(len(str(index)) + 3 + texts[keys[index]] for index in other_rows))
    if named >= as_column:
        return None, None
    return values[keys.index(best)], {str(index): values[index] for index in other_rows}


def flat_item(item: dict[str, Any]) -> dict[str, Any]:
    """One item's wire fields: its location through its citation id when it has one (an item the
    commit does not confirm keeps its path and line, uncited); ``also`` as numbers, the lines of
    its cited site's file, or ids, the lines cited on their own."""
    flat = dict(item)
    if flat.pop(AT_SITE, False):  # cited at its site, in whose file its definition's line is
        flat.pop("path")
        flat.pop("cite")
    elif flat.get("cite") and "path" in flat:
        flat.pop("path")
        flat.pop("line", None)
    site = flat.get("site")
    if isinstance(site, dict):
        flat["site"] = site.get("cite")  # an unconfirmed site is counted in bounds.unverified_citations
    if "also" in flat:  # the other lines a user uses the anchor on: numbers in its cited site's file, else ids
        flat["also"] = [more["cite"] if "cite" in more else more["line"] for more in flat["also"]]
    return flat


def navigated(document: dict[str, Any], pages: dict[str, str], actions: list[dict[str, Any]]) -> None:
    """Set the answer's cursors (``pages``, right after the sections they page, only when one is
    cut) and its next actions; both follow from the ``answer_id`` and stay out of it, and the
    envelope's tail keeps its order."""
    if pages:
        placed = {}
        for key, value in document.items():
            placed[key] = value
            if key == "sections":
                placed["pages"] = pages
        document.clear()
        document.update(placed)
    document["next_actions"] = actions
