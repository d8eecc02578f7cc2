"""Reading a ``code_context`` answer back: a section's items as dicts and a citation's location.

The wire form is ``shape.encode``'s (columns and rows, shared values once in ``same``, the few
rows that differ from it in ``except``, citations grouped by file); anything that reads an answer
(the CLI's view, the feedback loop, benchmarks, tests) goes through these functions, so the
encoding is one module's business. Read back with the answer's citations (``cited``), an item
carries the locations its ids name, as composers made it: ``path``/``line`` beside ``cite``, and
``site`` as ``{path, line, cite}``; a user of the anchor cited at its site alone has its
definition's ``line`` in the site's file, and ``also`` (the other lines it uses the anchor on) as
``{path, line}`` entries, the path its cited site's (an entry the wire carries as a citation id,
as the anchor's own lines go, also has its ``cite``).
"""

from __future__ import annotations

from typing import Any

from ..base.rules import citation_string

ROW_KEYS = ("same", "except", "columns", "rows")


def section_items(section: dict[str, Any], citations: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The items a section shows, each as one dict, in report order; with the answer's
    ``citations``, each cited location is spelled out too."""
    columns, same, unlike = section.get("columns") or [], section.get("same") or {}, section.get("except") or {}
    items = []
    for index, row in enumerate(section.get("rows") or []):
        other = {key: values[str(index)] for key, values in unlike.items() if str(index) in values}
        items.append({**same, **other, **dict(zip(columns, row, strict=True))})
    if citations is not None:
        citations = _by_id(citations)
        for item in items:
            _located(item, citations)
    return items


def header(section: dict[str, Any]) -> dict[str, Any]:
    """A section's status, reason, detail, shown and total, with the defaults the wire leaves out
    (no reason or detail: None; holding nothing: 0 of 0), then its other keys but the rows."""
    found = {"status": section["status"], "reason": None, "detail": None, "shown": 0, "total": 0}
    return {**found, **{key: value for key, value in section.items() if key not in ROW_KEYS}}


def cited(document: dict[str, Any]) -> dict[str, str]:
    """Each citation id of the answer and the ``path#Lline`` (or ``path``) it names: v3's
    citations are grouped by file (path to ``{id: line}``); v2's were one map, id to ``path#Lline``."""
    return _by_id(document.get("citations") or {})


def _by_id(citations: dict[str, Any]) -> dict[str, str]:
    """Citations as id to ``path#Lline``, from either wire form (a reader that hands in an
    answer's ``citations`` as they came keeps working)."""
    found: dict[str, str] = {}
    for key, value in citations.items():
        if isinstance(value, dict):
            found.update((cid, citation_string(key, line)) for cid, line in value.items())
        else:
            found[key] = value
    return found


def location(cite: str) -> tuple[str, int | None]:
    """The path and line a citation string names (``path#L12``, or a bare ``path``)."""
    path, hash_mark, line = cite.rpartition("#L")
    if hash_mark and line.isdigit():
        return path, int(line)
    return cite, None


def _located(item: dict[str, Any], citations: dict[str, str]) -> None:
    # A row's path is None, not absent, when another row of its table holds one uncited.
    if item.get("cite") in citations and item.get("path") is None:
        item["path"], item["line"] = location(citations[item["cite"]])
    site = item.get("site")
    if isinstance(site, str) and site in citations:
        path, line = location(citations[site])
        item["site"] = {"path": path, "line": line, "cite": site}
        if item.get("path") is None:  # a user cited where it uses the anchor: its definition is in that file
            item["path"] = path
    if isinstance(item.get("also"), list):  # the other lines a user uses the anchor on
        item["also"] = [more for entry in item["also"] if (more := _also_line(item, entry, citations)) is not None]


def _also_line(item: dict[str, Any], entry: Any, citations: dict[str, str]) -> dict[str, Any] | None:
    """One ``also`` entry spelled out: a number is a line in the file of the item's cited site
    (confirmed at the bound commit, as the site is); a string is a citation id."""
    if isinstance(entry, int) and not isinstance(entry, bool):
        site = item.get("site")
        return {"path": site["path"] if isinstance(site, dict) else item.get("path"), "line": entry}
    if isinstance(entry, str) and entry in citations:
        path, line = location(citations[entry])
        return {"path": path, "line": line, "cite": entry}
    return None
