"""Reading a ``code_context`` answer back: a section's items as dicts and a citation's location.

The wire form is ``shape.encode``'s (columns and rows, shared values once in ``same``, citations
as one id-to-location map); anything that reads an answer (the CLI's view, the feedback loop,
benchmarks, tests) goes through these functions, so the encoding is one module's business. Read
back with the answer's citations, an item carries the locations its ids name, as composers made
it: ``path``/``line`` beside ``cite``, and ``site`` as ``{path, line, cite}``; a user of the anchor
cited at its site alone has its definition's ``line`` in the site's file, and ``also`` (the other
lines it uses the anchor on) as ``{path, line, cite}`` entries.
"""

from __future__ import annotations

from typing import Any

ROW_KEYS = ("same", "columns", "rows")


def section_items(section: dict[str, Any], citations: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The items a section shows, each as one dict, in report order; with the answer's
    ``citations``, each cited location is spelled out too."""
    columns, same = section.get("columns") or [], section.get("same") or {}
    items = [{**same, **dict(zip(columns, row, strict=True))} for row in section.get("rows") or []]
    if citations is not None:
        for item in items:
            _located(item, citations)
    return items


def header(section: dict[str, Any]) -> dict[str, Any]:
    """A section's status, reason, detail, shown and total, with the defaults the wire leaves out
    (no reason or detail: None; holding nothing: 0 of 0), then its other keys but the rows."""
    found = {"status": section["status"], "reason": None, "detail": None, "shown": 0, "total": 0}
    return {**found, **{key: value for key, value in section.items() if key not in ROW_KEYS}}


def cited(document: dict[str, Any]) -> dict[str, str]:
    """Each citation id of the answer and the ``path#Lline`` (or ``path``) it names."""
    return dict(document.get("citations") or {})


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
        item["also"] = [{"path": where[0], "line": where[1], "cite": cid}
                        for cid in item["also"] if cid in citations for where in [location(citations[cid])]]
