"""``prime``: the graph's view of a task's code area, for a host to put into an agent's first turn.

The task's text is read for the spellings it names (``spellings.py``: code first, common English
never), and the paths ``--files`` gives and the definitions and files a worktree diff touches
(``--changes``, as ``cm-graph changes`` finds them) join them. Each is resolved as
``code_context`` resolves a target (``resolve.py``, never a pick: an ambiguous spelling is
reported with the targets that name each candidate, an unresolved one with similar names; a path
is matched against the bound commit's census, its tail too). Each anchor gets what it is, what
calls it (graph and resolver), what it calls and its tests, from the section rows
``code_context`` shows (``section_table.py``), cited at the bound commit; items are whole, and
dropped to fit the character budget (``budget.fit``), later anchors whole when even that does
not fit, and the answer says what was cut and which ``code_context`` call returns the rest.

The wire form is ``code_context``'s dense one (``shape.encode``: sections of ``columns``/``rows``
with ``same``, one citation map), with the spellings and the anchors as tables of their own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from ..base.envelope import remedy_actions, reply
from ..base.errors import INDEX_DAMAGED, InvalidInput, Refusal
from ..base.printable import printable_prose
from ..base.records import record
from ..base.rules import is_bounded_text
from ..base.sqlfiles import query_sql
from ..evidence.documents import CitationChecker
from ..generation.layout import Workspace
from ..query.answerids import answer_id, capability_id
from ..query.questions import MAX_TARGET_CHARS
from .budget import fit
from .changes import changes as read_changes
from .compose import cite_item, context_action, unavailable_reasons
from .diffread import DiffSpec
from .from_workspace import bound_graph, on_settled
from .nodes import describe
from .resolve import followable, resolve
from .section_table import BY_NAME
from .sections import Found, Reading, Section, filled, unavailable
from .settled import Settled
from .shape import ID_PLACEHOLDER, CitationBook, encode, flat_item, shown_cite, table, tag
from .spellings import MAX_TASK_CHARS, looks_like_path, task_spellings

if TYPE_CHECKING:
    from .resident import Resident  # the server's; a CLI prime never loads it

PRIME_SCHEMA = "cm_graph.prime.v2"
MIN_PRIME_CHARS, DEFAULT_PRIME_CHARS, MAX_PRIME_CHARS = 3000, 6000, 40_000
PRIME_ITEMS = 8  # items a section of one anchor shows at most, before the budget drops any
MAX_ANCHORS = 6
MAX_FILES = 16  # --files given, and files or definitions a diff touches, tried at most
CANDIDATES_SHOWN = 3
PROSE_HEAD = 3  # items the prose names of a section (its rows hold every shown one)
SYMBOL_SECTIONS = ("callers", "resolved_callers", "calls", "tests")
FILE_SECTIONS = ("defines", "references", "tests")
# The intent whose code_context answer holds the rest of a cut section.
REST_OF = {"callers": "usage", "resolved_callers": "usage", "tests": "tests", "calls": "how", "defines": "how",
           "references": "usage"}


@record
class Tried:
    """One spelling and what the graph made of it: ``status`` is ``anchor`` (its anchor's id), ``same``
    (an anchor another spelling named first), ``ambiguous`` or ``unresolved`` (the graph names it
    ``total`` times or none), ``untracked`` (a path the bound commit does not track), ``no_node``
    (a tracked file the graph has no node for) or ``over_bound`` (past ``MAX_ANCHORS``)."""

    spelling: str
    source: str  # task (a code spelling) | word | files | changes
    status: str
    anchor: str | None = None
    total: int = 0
    candidates: tuple[str, ...] = ()
    target: str | None = None  # what resolved, when a path's tail named one tracked path


@record
class Anchor:
    id: str
    spelling: str
    target: str  # what code_context resolves to the same node
    node: int


def check_prime_chars(value: Any) -> int:
    if value is None:
        return DEFAULT_PRIME_CHARS
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_PRIME_CHARS <= value <= MAX_PRIME_CHARS:
        raise InvalidInput(f"The character budget must be an integer from {MIN_PRIME_CHARS} to {MAX_PRIME_CHARS}.")
    return value


def check_task(task: Any) -> str:
    if not isinstance(task, str) or not task.strip() or len(task) > MAX_TASK_CHARS:
        raise InvalidInput(f"The task must be non-empty text of at most {MAX_TASK_CHARS} characters.")
    return task


def check_files(files: Any) -> tuple[str, ...]:
    if files is None:
        return ()
    if not isinstance(files, list | tuple) or len(files) > MAX_FILES or not all(
            is_bounded_text(path, MAX_TARGET_CHARS) for path in files):
        raise InvalidInput(f"The files must be at most {MAX_FILES} repository-relative paths.")
    return tuple(files)


def task_id(task: str) -> str:
    """What the capability id names of a task: its text's digest (the text can be long)."""
    return hashlib.sha256(task.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def compose_prime(
    connection: apsw.Connection, task: str, graph: dict[str, Any], freshness: dict[str, Any], max_chars: int, *,
    files: tuple[str, ...] = (), changed: tuple[tuple[str, str], ...] = (), diff: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The prime of ``task``: ``files`` are paths to anchor on too, ``changed`` the (spelling,
    target) pairs a diff touched (``diff`` describes it: mode and counts), both after the task's
    code spellings and before its plain words."""
    spellings, common = task_spellings(task)
    queue = ([(s.text, s.text, "task") for s in spellings if s.kind == "code"]
             + [(path, path, "files") for path in files] + [(s, t, "changes") for s, t in changed]
             + [(s.text, s.text, "word") for s in spellings if s.kind == "word"])
    tried, anchors = _find(connection, queue)
    reads = {anchor.id: _read(connection, anchor, graph["commit"]) for anchor in anchors}
    checker = CitationChecker(connection)
    shown_anchors = list(anchors)
    while True:
        try:
            return _fitted(connection, task, tried, shown_anchors, anchors[len(shown_anchors):], reads, common, graph,
                           freshness, max_chars, checker, diff)
        except InvalidInput as error:
            if error.reason != "budget_too_small" or not shown_anchors:
                raise
            shown_anchors.pop()  # the last anchor goes whole when its fixed part alone does not fit


def _find(connection: apsw.Connection, queue: list[tuple[str, str, str]]) -> tuple[list[Tried], list[Anchor]]:
    tried: list[Tried] = []
    anchors: list[Anchor] = []
    by_node: dict[int, str] = {}
    seen: set[str] = set()
    for spelling, target, source in queue:
        if spelling in seen:
            continue
        seen.add(spelling)
        found = _resolve(connection, spelling, target, source)
        node = found.pop("node", None)
        if node is None:
            tried.append(Tried(spelling, source, **found))
            continue
        target = found.pop("target", None) or target
        if node in by_node:
            tried.append(Tried(spelling, source, "same", by_node[node]))
        elif len(anchors) >= MAX_ANCHORS:
            tried.append(Tried(spelling, source, "over_bound", target=target if target != spelling else None))
        else:
            anchor = Anchor(f"a{len(anchors) + 1}", spelling, target, node)
            anchors.append(anchor)
            by_node[node] = anchor.id
            tried.append(Tried(spelling, source, "anchor", anchor.id, target=target if target != spelling else None))
    return tried, anchors


def _resolve(connection: apsw.Connection, spelling: str, target: str, source: str) -> dict[str, Any]:
    """What ``target`` names: ``{"node": ...}`` for one anchor (with ``target``, the path a tail
    named), else the ``Tried`` fields of a spelling that names none, or several."""
    if looks_like_path(target) and source != "changes":
        paths = [row[0] for row in connection.execute(query_sql("census_paths_named"),
                                                      {"path": target.strip("/"), "limit": CANDIDATES_SHOWN + 1})]
        if len(paths) > 1:
            return {"status": "ambiguous", "total": len(paths), "candidates": tuple(paths[:CANDIDATES_SHOWN])}
        if len(paths) == 1:
            resolution = resolve(connection, paths[0])
            if resolution.status == "resolved":
                return {"node": resolution.anchors[0], "target": paths[0]}
            return {"status": "no_node", "target": paths[0]}
        if "/" in target:
            return {"status": "untracked"}
    try:
        resolution = resolve(connection, target)
    except InvalidInput:
        return {"status": "unresolved"}
    if resolution.status == "resolved":
        node = resolution.anchors[0]
        found = describe(connection, [node])[node]
        if not found["path"]:
            return {"status": "unresolved"}  # a sourceless stub (`dict`): nothing to cite or read
        if source == "word" and (found["label"] != spelling or found["kind"] == "file"
                                 or found["path"].endswith(".json")):
            return {"status": "unresolved"}  # a plain word names a definition only as exactly its label
        return {"node": node}
    if resolution.status == "ambiguous":
        if source == "word":  # a plain word naming several definitions names none of them
            return {"status": "ambiguous", "total": resolution.total}
        nodes = describe(connection, list(resolution.anchors[:CANDIDATES_SHOWN]))
        spelled = [followable(connection, n, nodes[n]["path"], nodes[n]["label"], nodes[n]["line"])
                   for n in resolution.anchors[:CANDIDATES_SHOWN]]
        return {"status": "ambiguous", "total": resolution.total, "candidates": tuple(s for s in spelled if s)}
    similar = () if source == "word" else tuple(resolution.suggestions[:CANDIDATES_SHOWN])
    return {"status": "unresolved", "candidates": similar}


@record
class _Read:
    anchor: dict[str, Any]
    rows: tuple[Section, ...]
    raw: dict[str, Found | None]
    unavailable: dict[str, tuple[str, str]]  # compose.unavailable_reasons


def _read(connection: apsw.Connection, anchor: Anchor, commit: str) -> _Read:
    described = describe(connection, [anchor.node])[anchor.node]
    names = FILE_SECTIONS if described["kind"] == "file" else SYMBOL_SECTIONS
    rows = tuple(BY_NAME[name] for name in names)
    reading = Reading(connection, anchor.node, described, commit, None, None, PRIME_ITEMS)
    raw = {row.name: row.compose(reading, row) if row.compose is not None else None for row in rows}
    return _Read(described, rows, raw, unavailable_reasons(connection, described, rows, raw))


def _fitted(
    connection: apsw.Connection, task: str, tried: list[Tried], anchors: list[Anchor], left_out: list[Anchor],
    reads: dict[str, _Read], common: int, graph: dict[str, Any], freshness: dict[str, Any], max_chars: int,
    checker: CitationChecker, diff: dict[str, Any] | None,
) -> dict[str, Any]:
    keys = [(anchor, row) for anchor in anchors for row in reads[anchor.id].rows]

    def build(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        book = CitationBook(checker.confirms, graph["commit"])
        anchor_items: list[dict[str, Any]] = []
        sections: dict[str, Any] = {}
        cut_by_anchor: dict[str, list[str]] = {}
        for anchor in anchors:
            read = reads[anchor.id]
            item = cite_item({"id": anchor.id, **read.anchor}, book)
            anchor_items.append(item)
            for row in read.rows:
                name = f"{anchor.id}.{row.name}"
                section = _section(row, read.raw[row.name], shown[name], dropped[name], book,
                                   read.unavailable.get(row.name))
                sections[name] = section
                if section["total"] > section["shown"]:
                    cut_by_anchor.setdefault(anchor.id, []).append(row.name)
        status = "answered" if anchors else "unresolved"
        described: dict[str, Any] = {"diff": diff} if diff is not None else {}
        prose = _prose(tried, anchors, anchor_items, sections, common, left_out, diff)
        document = reply(
            PRIME_SCHEMA, status, prose,
            spellings=table([_tried_item(t) for t in tried]) if tried else {"columns": [], "rows": []},
            anchors=table([flat_item(dict(item)) for item in anchor_items]) if anchor_items else {"columns": [],
                                                                                                   "rows": []},
            sections=sections, citations=book.entries, graph=graph, freshness=freshness,
            bounds={"max_chars": max_chars, "max_items": PRIME_ITEMS, "max_anchors": MAX_ANCHORS,
                    "truncated": bool(cut_by_anchor or left_out), "anchors_dropped": len(left_out),
                    "unverified_citations": book.unverified},
            capability_id=capability_id("prime", "task", task_id(task)), answer_id=ID_PLACEHOLDER,
            **described,
        )
        printable_prose(document)
        encode(document)
        document["answer_id"] = answer_id(document)
        document["next_actions"] = _next_actions(anchors, cut_by_anchor, freshness, tried, left_out)
        printable_prose(document)
        return document

    shown = {f"{anchor.id}.{row.name}": min(len(found.items), PRIME_ITEMS) if (found := reads[anchor.id].raw[
        row.name]) is not None else 0 for anchor, row in keys}
    return fit(shown, max_chars, build)


def _section(row: Section, found: Found | None, shown: int, dropped: int, book: CitationBook,
             why: tuple[str, str] | None) -> dict[str, Any]:
    """One anchor's section, its sentence left out (its reason code says it; the prose counts it);
    ``why``: the reason of a resolved section with nothing, when it knows more than its row's."""
    if found is None:
        section = unavailable(row, why)
    else:
        keep = [cite_item(dict(item), book, row.of_users) for item in found.items[:shown]]
        cut = "read_limit" if found.read_limited else "max_chars" if dropped else (
            "max_items" if shown < found.total else None)
        section = found.shape(keep, found.total, cut) if found.shape is not None else filled(row, keep, found.total,
                                                                                                cut)
    section["detail"] = None
    return section


def _tried_item(tried: Tried) -> dict[str, Any]:
    item: dict[str, Any] = {"spelling": tried.spelling, "from": tried.source, "status": tried.status}
    if tried.anchor is not None:
        item["anchor"] = tried.anchor
    if tried.target is not None:
        item["target"] = tried.target
    if tried.total:
        item["total"] = tried.total
    if tried.candidates:
        item["candidates"] = list(tried.candidates)
    return item


def _prose(
    tried: list[Tried], anchors: list[Anchor], items: list[dict[str, Any]], sections: dict[str, Any], common: int,
    dropped: list[Anchor], diff: dict[str, Any] | None,
) -> str:
    sentences = []
    if diff is not None:
        sentences.append(f"The {diff['mode']} diff touches {diff['files']} file(s) and {diff['definitions']} "
                         "definition(s).")
    for anchor, item in zip(anchors, items, strict=False):
        where = f"{item['path']}#L{item['line']}" if item["line"] else item["path"]
        parts = []
        for name, section in sections.items():
            if not name.startswith(anchor.id + "."):
                continue
            kind = name.split(".", 1)[1]
            if section["status"] == "unavailable" or not section["total"]:
                continue
            shown_items = section["items"]
            more = section["total"] > len(shown_items)
            named = [tag(i["label"], shown_cite(i)) for i in shown_items[:PROSE_HEAD]]
            rest = section["total"] - len(named)
            head = ", ".join(named) + (f", …and {rest} more" if rest > 0 and named else "") if named else (
                f"none of {section['total']} shown (cut to fit)")
            parts.append(f"{_SAID[kind]} {section['total']}{'+' if section.get('reason') == 'read_limit' else ''}"
                         + (f" ({head})" if shown_items or more else ""))
        said = "; ".join(parts) if parts else "the graph holds no caller, callee or test of it"
        sentences.append(f"{anchor.id} {tag(item['label'], item['cite'])} ({item['kind']}, {where}, from "
                         f"`{anchor.spelling}`): {said}.")
    ambiguous = [t for t in tried if t.status == "ambiguous" and t.source != "word"]
    for t in ambiguous:
        offered = ", ".join(f"`{c}`" for c in t.candidates)
        sentences.append(f"`{t.spelling}` names {t.total} definitions or files, so none was taken"
                         + (f"; name one as {offered}." if offered else "."))
    missing = [t for t in tried if t.status in ("unresolved", "untracked", "no_node") and t.source != "word"]
    for t in missing:
        why = {"untracked": "is no file of the bound commit", "no_node": "is a file the graph has no node for"}.get(
            t.status, "names no symbol or path in this graph")
        similar = f" (similar: {', '.join(f'`{c}`' for c in t.candidates)})" if t.candidates else ""
        sentences.append(f"`{t.spelling}` {why}{similar}.")
    words = [t.spelling for t in tried if t.source == "word" and t.status != "anchor" and t.status != "same"]
    if words:
        sentences.append("Words tried as names and not taken (none or several definitions): "
                         + ", ".join(words) + ".")
    if common:
        sentences.append(f"{common} common English word(s) were not tried.")
    over = [t.spelling for t in tried if t.status == "over_bound"] + [anchor.spelling for anchor in dropped]
    if over:
        sentences.append(f"Not shown ({'past the anchor bound' if not dropped else 'dropped whole to fit'}): "
                         f"{', '.join(f'`{s}`' for s in over)}; code_context answers each (next actions).")
    if not anchors:
        sentences.append("No anchor: name a symbol, `Class.method` or path in backticks, or pass --files.")
    elif any(s["total"] > s["shown"] for s in sections.values()):
        sentences.append("Cut to fit: each anchor's next action (code_context) returns the rest.")
    return " ".join(sentences)


_SAID = {"callers": "callers", "resolved_callers": "resolved uses", "calls": "calls", "tests": "tests",
         "defines": "defines", "references": "referenced by"}


def _next_actions(
    anchors: list[Anchor], cut: dict[str, list[str]], freshness: dict[str, Any], tried: list[Tried],
    dropped: list[Anchor],
) -> list[dict[str, Any]]:
    actions = remedy_actions("stale") if freshness.get("state") != "current" else []
    for anchor in anchors:
        for intent in dict.fromkeys(REST_OF[name] for name in cut.get(anchor.id, [])):
            actions.append(context_action(f"the rest of {anchor.id}", intent, anchor.target))
    for anchor in dropped:
        actions.append(context_action(f"`{anchor.spelling}`, dropped to fit", "usage", anchor.target))
    for t in tried:
        if t.status == "over_bound":
            actions.append(context_action(f"`{t.spelling}`, past the anchors shown", "usage", t.target or t.spelling))
    return actions


def worktree_changes(document: dict[str, Any]) -> tuple[tuple[tuple[str, str], ...], dict[str, Any]]:
    """What ``cm-graph changes`` found, as prime's anchors: each modified, deleted or renamed
    definition on the bound commit's side (``path::name#L<line>``, which ``code_context`` resolves
    to that definition), then each changed file it holds none of; and the diff described."""
    side = document["freshness"].get("index_side")
    pairs: list[tuple[str, str]] = []
    credited = set()
    if side is not None:
        for definition in document["definitions"]:
            spot = definition.get(side)
            if definition["change"] == "added" or not spot or not spot.get("line"):
                continue
            leaf = spot["name"].rsplit(".", 1)[-1]  # a method's key is Class.method; its node, .method()
            pairs.append((f"{spot['path']}::{spot['name']}", f"{spot['path']}::{leaf}#L{spot['line']}"))
            credited.add(spot["path"])
    for entry in document["files"]:
        if entry["path"] not in credited and entry["in_graph"]:
            pairs.append((entry["path"], entry["path"]))
    described = {"mode": document["diff"]["mode"], "files": len(document["files"]),
                 "definitions": len(document["definitions"]), "index_side": side}
    return tuple(pairs[:MAX_FILES]), described


def prime(
    workspace: Workspace, task: Any, *, files: Any = None, changes: bool = False, max_chars: Any = None,
    derive: bool = True, resident: Resident | None = None, also: tuple[Path, ...] = (),
) -> dict[str, Any]:
    """The prime of a task against the graph ``code_context`` answers from (current
    or stale, judged the same way); with ``changes``, the worktree diff's definitions and files
    too, as ``cm-graph changes`` reads them (it judges the graph itself, before)."""
    text, paths, budget = check_task(task), check_files(files), check_prime_chars(max_chars)
    changed: tuple[tuple[str, str], ...] = ()
    diff = None
    if changes:
        changed, diff = worktree_changes(read_changes(workspace, DiffSpec("worktree", None), derive=derive))

    def answer(settled: Settled) -> dict[str, Any]:
        try:
            return compose_prime(settled.connection, text, bound_graph(settled),
                                 {"state": settled.status.state, "head": settled.head}, budget, files=paths,
                                 changed=changed, diff=diff)
        except apsw.Error:
            raise Refusal(INDEX_DAMAGED, reason="unreadable") from None

    return on_settled(workspace, answer, derive=derive, resident=resident, also=also)
