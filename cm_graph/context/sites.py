"""Raise and catch sites of a class: the lines of the bound commit that raise it (``raise X``,
``throw new X``) or catch it (``except X``, ``catch (e: X)``, ``instanceof X`` in a catch block),
as the text index tags them (``index/mentions.py``, docs/index-format.md#the-text-index).

Each site is cited where the name is written, labelled by its evidence kind: ``resolved`` when
the resolver binds a reference on that line to this very definition (docs/resolver.md), else
``textual``; a line the resolver binds only to *another* definition of the name is not listed
as this one's, but counted (``elsewhere``). Each is credited to the innermost definition whose
range holds it (the resolver's ``definitions``; for a file it does not read, the nearest graph
symbol at or above the line). What no lexer sees (a bare ``raise`` re-raising, a catch through a
base class, a class named at run time) the section's sentence says.
"""

from __future__ import annotations

import json
from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.graphmodel import is_test_path
from ..index.mentions import defined_name, read_postings
from .resolved import lines_named
from .textual import Owners

RESOLVED, TEXTUAL = "resolved", "textual"


def anchor_definition(connection: apsw.Connection, node: int) -> tuple[int, str, str, str, int | None] | None:
    """(definition, kind, name, qualname, parent) the resolver holds for ``node``, or None."""
    rows = fetch_rows(connection.execute(query_sql("anchor_definition"), {"node": node}),
                      tuple[int, str, str, str, int | None])
    return rows[0] if rows else None


def is_class(connection: apsw.Connection, node: int, label: str) -> bool:
    """Whether the anchor is a class: the resolver's kind where it read the file, else (a file it
    does not read: JavaScript, TypeScript...) a symbol whose label carries no argument list and no
    leading dot and starts with a capital letter, as class names do by convention."""
    definition = anchor_definition(connection, node)
    if definition is not None:
        return definition[1] == "class"
    return "(" not in label and label[:1].isupper() and defined_name(label) is not None


def site_facts(connection: apsw.Connection, node: int, label: str) -> dict[str, Any]:
    """Every raise and catch site of the anchor's name: ``sites`` maps a form (``raise``,
    ``catch``) to its items in file then line order; ``common`` when the name is too common to
    list, ``elsewhere`` how many lines the resolver binds to another definition of it."""
    name = defined_name(label)
    facts: dict[str, Any] = {"name": name, "common": False, "sites": {"raise": [], "catch": []},
                             "elsewhere": {"raise": 0, "catch": 0}}
    if name is None:
        return facts
    total, kept, postings, _ = fetch_rows(
        connection.execute(query_sql("mention_count"), {"name": name}), tuple[Any, Any, Any, int])[0]
    if total is not None and not kept:
        facts["common"] = True
        return facts
    found = [(file, line, form) for file, line, form in read_postings(postings or b"") if form in ("raise", "catch")]
    if not found:
        return facts
    paths = dict(fetch_rows(connection.execute(query_sql("text_file_paths"),
                                               {"files": json.dumps(sorted({file for file, _, _ in found}))}),
                            tuple[int, str]))
    bound: dict[tuple[str, int], tuple[int, int]] = {}
    for path, line, _, bound_node in lines_named(connection, name):
        ours, other = bound.get((path, line), (0, 0))
        # ours: a use on the line binds to the anchor; other: to another definition of the name the
        # provider has a node for (one it has none for may be the anchor itself: not said)
        bound[(path, line)] = (ours | (bound_node == node), other | (bound_node is not None and bound_node != node))
    owners = _Enclosing(connection)
    for file, line, form in found:
        path = paths[file]
        ours, other = bound.get((path, line), (0, 0))
        if other and not ours:  # the resolver binds it to another definition of the name
            facts["elsewhere"][form] += 1
            continue
        item = owners.item(path, line)
        item.update(form=form, evidence=RESOLVED if ours else TEXTUAL, test=is_test_path(path))
        facts["sites"][form].append(item)
    return facts


def local_name(qualname: str, module: str) -> str:
    """A qualified name less its module (``jinja2.loaders.FileSystemLoader.get_source`` in module
    ``jinja2.loaders`` is ``FileSystemLoader.get_source``)."""
    return qualname[len(module) + 1:] if qualname.startswith(module + ".") else qualname


class _Enclosing:
    """Credits a line to the innermost resolver definition whose range holds it, named by its
    qualified name less the module (``Environment.get_template``); in a file the resolver does
    not read, to the nearest graph symbol at or above it; else to the file."""

    def __init__(self, connection: apsw.Connection) -> None:
        self._graph = Owners(connection, {})

    def item(self, path: str, line: int) -> dict[str, Any]:
        holding = self._graph.ranges.holding(path, line)
        if holding is None:  # not a file the resolver reads: the graph's nearest symbol above
            return {"label": self._graph.item(path, line, "")["label"], "path": path, "line": line}
        if not holding:
            return {"label": path.rsplit("/", 1)[-1], "path": path, "line": line}
        innermost = holding[-1]  # rank order: the innermost is last
        return {"label": local_name(innermost.qualname, innermost.module), "path": path, "line": line}


def enclosing_count(items: list[dict[str, Any]]) -> int:
    """How many distinct definitions (or files) the sites are credited to."""
    return len({(item["path"], item["label"]) for item in items})
