"""Textual mentions: the lines of the bound commit that use the anchor's name, beside the graph.

The provider's graph misses calls through a package (``pkg.func(``), methods called on
instances and callbacks it cannot resolve, so "no caller in the graph" is often untrue of the
code. The text index (``index/mentions.py``, built with the index) lists the lines that use each
defined name; here they become their own sections, never merged with graph relationships: every
item's confidence is ``textual``, the lines the graph already carries are left out, and a name
several definitions share is said to be ambiguous. Only ``code_context`` reads them; the seed's
four questions and their packets stay graph-only.
"""

from __future__ import annotations

from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.graphmodel import is_test_path
from ..index.mentions import MAX_KEPT, defined_name
from .sections import MAX_ITEMS

TEXTUAL = "textual"
COMMON_TOTAL = MAX_KEPT + 1  # a common name's total: more lines use it than the index lists


def mention_facts(connection: apsw.Connection, label: str) -> dict[str, Any]:
    """What the text index says about the anchor's name: every mention outside the graph's
    relationships (at most ``MAX_KEPT``), whether the name is too common to list, and how many
    definitions carry it."""
    name = defined_name(label)
    if name is None:
        return {"name": None, "rows": [], "common": False, "definitions": 0}
    total, kept, definitions = fetch_rows(
        connection.execute(query_sql("mention_count"), {"name": name}), tuple[Any, Any, int])[0]
    if total is not None and not kept:
        return {"name": name, "rows": [], "common": True, "definitions": definitions}
    rows = fetch_rows(connection.execute(query_sql("mentions_of"), {"name": name, "limit": MAX_KEPT}),
                      tuple[str, int, str])
    return {"name": name, "rows": rows, "common": False, "definitions": definitions}


def mention_items(
    connection: apsw.Connection, facts: dict[str, Any], *, tests_only: bool
) -> tuple[list[dict[str, Any]], int]:
    """(items, total): one item per mention line (``tests_only``: per test definition or test
    file that mentions it, with its first line and how many lines), in file then line order."""
    rows = [row for row in facts["rows"] if not tests_only or is_test_path(row[0])]
    if not tests_only:
        items = [_item(connection, path, line, form) for path, line, form in rows[:MAX_ITEMS]]
        return items, len(rows)
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for path, line, form in rows:
        item = _item(connection, path, line, form)
        key = (path, item["label"])
        if key in groups:
            groups[key]["lines"] += 1
        else:
            item["lines"] = 1
            groups[key] = item
    grouped = list(groups.values())
    return grouped[:MAX_ITEMS], len(grouped)


def _item(connection: apsw.Connection, path: str, line: int, form: str) -> dict[str, Any]:
    """A mention at ``path#Lline``, named by the definition the graph has it in (the nearest
    one above the line; the provider records no end lines), else by its file."""
    found = fetch_rows(connection.execute(query_sql("enclosing_definition"), {"path": path, "line": line}),
                       tuple[int, str, str, int])
    if found:
        _, label, kind, _ = found[0]
    else:
        label, kind = path.rsplit("/", 1)[-1], "file"
    return {"label": label, "kind": kind, "path": path, "line": line, "form": form,
            "confidence": TEXTUAL, "test": is_test_path(path)}


def common_name_detail(name: str) -> str:
    return (f"`{name}` is used by name on more than {MAX_KEPT} lines of this commit: too common a name "
            "to list them as evidence about this definition.")


def homonym_note(definitions: int) -> str | None:
    """The caveat of a name several definitions share (None for one)."""
    if definitions <= 1:
        return None
    return f"{definitions} definitions in the graph carry this name; a mention by name cannot tell them apart."
