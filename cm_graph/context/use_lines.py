"""Every line a user of the anchor uses it on, not only the one its item is cited at.

The provider writes one edge per caller and a walk reaches a caller once, so an item names one
site; a signature change or a rename edits every line. The resolver records each use, so each
first-hop user whose definition it knows gets ``also``: the further lines (in the site's file) it
uses the anchor on, each confirmed at the bound commit like a citation, and sent as its number in
the file the site's citation names (``compose.cite_item``). Those lines are no mention either: the text
index leaves out what the resolver binds to the anchor, so before this they were in no section.
A language the resolver does not read keeps its extra lines in ``mentions`` (the graph carries
only its edge's own line), so nothing is lost there either.
"""

from __future__ import annotations

import json
from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .resolved import USE_ROLES, anchor_definitions
from .walks import MAX_READ

# Lines listed per user (toolz's curried/__init__.py curries ~60); past them ``also_more`` counts the rest.
ALSO_MAX = 64
Key = tuple[str, int | None]  # (path, def line), None for a file's top level


def use_lines(connection: apsw.Connection, node: int) -> dict[Key, list[int]]:
    """The lines each definition uses the anchor on, by the enclosing definition's location."""
    definitions = anchor_definitions(connection, node)
    if not definitions:
        return {}
    lines: dict[Key, list[int]] = {}
    for path, line, kind, def_line in fetch_rows(connection.execute(query_sql("resolved_use_lines"), {
            "definitions": json.dumps(definitions), "roles": json.dumps(list(USE_ROLES)), "limit": MAX_READ}),
            tuple[str, int, str, int]):
        found = lines.setdefault((path, None if kind == "module" else def_line), [])
        if not found or found[-1] != line:
            found.append(line)
    return lines


def add_also(items: list[dict[str, Any]], lines: dict[Key, list[int]]) -> None:
    """Give each first-hop user with a site the other lines it uses the anchor on (``also``)."""
    for item in items:
        site = item.get("site")
        if not site or item.get("hop", 1) != 1 or site["path"] != item["path"]:
            continue
        key = (item["path"], None if _is_file(item) else item["line"])
        more = [line for line in lines.get(key, ()) if line != site["line"]]
        if more:
            item["also"] = [{"path": site["path"], "line": line} for line in more[:ALSO_MAX]]
            if len(more) > ALSO_MAX:
                item["also_more"] = len(more) - ALSO_MAX


def add_self_uses(anchor: dict[str, Any], lines: dict[Key, list[int]]) -> None:
    """Give the anchor the lines inside it that use it (``also``): a recursive call, a reference to
    itself (``_get_factory(merge, kwargs)`` in ``merge``), which no walk lists, a walk never being
    its own start's user; a rename or a signature change edits them too."""
    if not anchor.get("path") or not anchor.get("line"):
        return
    own = [line for line in lines.get((anchor["path"], anchor["line"]), ()) if line != anchor["line"]]
    if own:
        anchor["also"] = [{"path": anchor["path"], "line": line} for line in own[:ALSO_MAX]]


def lines_left_out(section: dict[str, Any]) -> str | None:
    """The sentence a section adds when some user's lines were more than ``ALSO_MAX``, or None."""
    over = [(item["label"], item["also_more"]) for item in section["items"] if item.get("also_more")]
    if not over:
        return None
    named = ", ".join(f"`{label}` and {more} more line(s)" for label, more in over)
    return (f"Past {ALSO_MAX} lines a user's `also` stops: {named} use it on lines not cited here "
            "(the resolver binds each of them to it).")


def _is_file(item: dict[str, Any]) -> bool:
    """Whether an item is a file (its top level uses the anchor): the graph's walks say ``file``;
    a node described for a resolved walk keeps the provider's kind, its label a suffix of its path."""
    return item["kind"] == "file" or str(item["path"]).endswith(str(item["label"]))
