"""The blast radius of a change: the callers, by hop, of the changed definitions, on the bound commit.

Three kinds of evidence, each labelled, never merged into one another's claims:

- ``graph``: the provider's relationships, walked against the edges over ``IMPACTS`` (the words
  ``code_context``'s ``callers_by_hop`` follows) from the changed definitions' nodes;
- ``resolved``: the resolved layer's references bound to a changed definition (a call, an
  instantiation, a reference, an override, a decorator, a fixture, an import), and, hop by hop,
  the references bound to the definitions they sit in (a module's body is reached but not walked
  on, since everything importing it is not its caller);
- ``textual``: the bound commit's lines that use a changed definition's name outside the graph's
  relationships and away from every resolved reference site (hop 1 only: a name is not a binding).

A caller reached by graph and resolved evidence at one definition (its path and def line) is one
item with both kinds; a caller reached from several changed definitions is one item naming each
(``reaches``), at its nearest hop. Each walk reads at most ``MAX_READ`` rows and says when that,
not the code, ended it.
"""

from __future__ import annotations

import json
from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .nodes import describe
from .relations import IMPACTS, INCOMING, WalkSpec
from .resolved import ALL_ROLES
from .textual import anchors_mentioned
from .walks import MAX_READ, walk

DEPTH = 3
TEXTUAL_PER_DEFINITION = 20


def callers(
    connection: apsw.Connection, anchors: list[dict[str, Any]], depth: int = DEPTH
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(items, facts) for ``anchors`` (each: ``key``, ``label``, ``definition``, ``node``)."""
    items: dict[tuple[str, int], dict[str, Any]] = {}
    facts: dict[str, Any] = {"read_limited": [], "common_names": [], "unwalked": []}
    changed_nodes = {a["node"] for a in anchors if a.get("node")}
    changed_definitions = {a["definition"] for a in anchors if a.get("definition")}

    def add(key: tuple[str, int], hop: int, evidence: str, via: str, base: dict[str, Any]) -> None:
        item = items.get(key)
        if item is None:
            item = {**base, "hop": hop, "evidence": [], "reaches": []}
            items[key] = item
        item["hop"] = min(item["hop"], hop)
        if evidence not in item["evidence"]:
            item["evidence"].append(evidence)
            item["evidence"].sort()
        if via not in item["reaches"]:
            item["reaches"].append(via)
            item["reaches"].sort()
        if "site" not in item and base.get("site"):
            item["site"] = base["site"]

    sites: set[tuple[str, int]] = set()
    for anchor in anchors:
        if anchor.get("node"):
            reach = walk(connection, (anchor["node"],), WalkSpec(INCOMING, IMPACTS, depth))
            if reach.read_limited:
                facts["read_limited"].append("graph")
            described = describe(connection, [step.reached for step in reach.steps])
            for step in reach.steps:
                if step.reached in changed_nodes:
                    continue
                node = described.get(step.reached)
                if node is None or not node["path"]:
                    continue
                site: dict[str, Any] | None = None
                if step.site_path:
                    site = {"path": step.site_path, "line": step.site_line}
                    if step.site_line is not None:
                        sites.add((step.site_path, step.site_line))
                add((node["path"], node["line"] or 0), step.hop, "graph", anchor["key"],
                    {"label": node["label"], "kind": node["kind"], "path": node["path"], "line": node["line"],
                     "relation": step.relation, "site": site})
        if anchor.get("definition"):
            for hop, row in _resolved_walk(connection, anchor["definition"], depth, facts):
                _, enclosing, path, line, role, kind, qualname, def_line, _node = row
                if enclosing in changed_definitions:
                    continue
                sites.add((path, line))
                add((path, def_line), hop, "resolved", anchor["key"],
                    {"label": qualname, "kind": kind, "path": path, "line": def_line, "relation": role,
                     "site": {"path": path, "line": line}})
        if not anchor.get("node") and not anchor.get("definition"):
            facts["unwalked"].append(anchor["key"])
    for anchor, shown in anchors_mentioned(connection, anchors, facts["common_names"], MAX_READ, tests_only=False):
        kept = 0
        for mention in shown:
            key = (mention["path"], mention["line"])
            if key in sites or kept >= TEXTUAL_PER_DEFINITION:
                continue
            kept += 1
            add(("text:" + mention["path"], mention["line"]), 1, "textual", anchor["key"],
                {"label": mention["label"], "kind": mention["kind"], "path": mention["path"],
                 "line": mention["line"], "relation": mention["form"],
                 "site": {"path": mention["path"], "line": mention["line"]}})
    ordered = sorted(items.values(), key=lambda i: (i["hop"], i["path"], i["line"] or 0, i["label"]))
    return ordered, facts


def _resolved_walk(
    connection: apsw.Connection, start: int, depth: int, facts: dict[str, Any]
) -> list[tuple[int, tuple[Any, ...]]]:
    seen = {start}
    frontier = [start]
    found: list[tuple[int, tuple[Any, ...]]] = []
    read = 0
    for hop in range(1, depth + 1):
        if not frontier:
            break
        rows = [(used, enclosing, path, line, role, kind, qualname, def_line, node)
                for used, enclosing, node, path, line, role, kind, qualname, def_line in fetch_rows(connection.execute(
                    query_sql("resolved_users"), {"frontier": json.dumps(frontier), "roles": json.dumps(ALL_ROLES),
                                                  "limit": MAX_READ - read + 1}),
                    tuple[int, int, int | None, str, int, str, str, str, int])]
        if len(rows) > MAX_READ - read:
            rows = rows[: MAX_READ - read]
            facts["read_limited"].append("resolved")
            frontier = []
        read += len(rows)
        frontier = []
        for row in rows:
            found.append((hop, row))
            enclosing, kind, role = row[1], row[5], row[4]
            if enclosing not in seen and kind != "module" and role != "import":
                seen.add(enclosing)
                frontier.append(enclosing)
        if "resolved" in facts["read_limited"]:
            break
    return found
