"""The resolved evidence of ``code_context``: what the resolver bound to the anchor, beside the
graph's relationships and the text index's mentions, never merged with either silently.

The provider's graph misses most uses of a definition (``pkg.func(...)``, a method called on an
instance, instantiation, fixtures); the resolved layer of the index (``index/resolved.py``,
docs/resolver.md) holds every reference of the bound commit's Python files with the definition it
binds to and the definition it is written in. Here it is walked the way the graph is: a hop goes
from a frontier to what uses it, by the graph's edges (the section's relation words) and by the
resolver's references (its roles), so a caller only the resolver sees seeds the next hop as a
graph caller does. Every step says which evidence took it (``evidence``: graph or resolved) and
the sections list only what the graph's own walk does not reach: the graph's sections stay as
they were, and each resolved item is labelled ``resolved``.

A walk's key is a graph node's number, or minus a definition's number for a definition the
provider has no node for (its gap: a class inside a function, the other branch of a conditional
definition). An anchor the resolver has no definition for (a file of a language it does not read,
a node it could not match) has no resolved evidence at all: its sections are ``unavailable``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import apsw

from ..base.records import record
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.graphmodel import is_test_path
from .nodes import describe
from .relations import INCOMING, WalkSpec
from .walks import MAX_READ, HopReads, hop_rows

RESOLVED = "resolved"
GRAPH = "graph"
# What uses a definition: every role but an override (an override is a definition of its own,
# the overrides section's).
USE_ROLES = ("call", "instantiate", "reference", "import", "inherit", "decorate", "fixture")
# Every role the resolver records (a changed definition's callers include its overrides).
ALL_ROLES = (*USE_ROLES, "override")
# What runs it (a test that only imports the module reaches nothing by that import).
RUN_ROLES = ("call", "instantiate", "reference", "inherit", "decorate", "fixture")


@record
class Step:
    """A key reached, its hop, the key it was reached from and how: by a graph edge (its
    relation and confidence) or by a resolved reference (its role), at that site."""

    hop: int
    reached: int
    origin: int
    evidence: str
    relation: str
    confidence: str
    site_path: str
    site_line: int | None


@record
class Reach:
    steps: tuple[Step, ...]
    read_limited: bool


def file_status(connection: apsw.Connection, path: str) -> tuple[str, str] | None:
    """(language, status) of what the resolver made of ``path``; None: it does not read it."""
    row = connection.execute(query_sql("resolved_file_status"), {"path": path}).fetchone()
    return (str(row[0]), str(row[1])) if row is not None else None


def anchor_definitions(connection: apsw.Connection, node: int) -> list[int]:
    """The resolver's definitions of a graph node (none: the resolver does not cover it)."""
    rows = fetch_rows(connection.execute(query_sql("resolved_definitions_of"), {"nodes": json.dumps([node])}),
                      tuple[int, int])
    return [definition for _, definition in rows]


def walk(connection: apsw.Connection, node: int, spec: WalkSpec, roles: tuple[str, ...],
         reads: HopReads | None = None) -> Reach:
    """Breadth-first from ``node`` against the graph's edges (``spec``'s relation words) and the
    resolver's references (``roles``) together, ``spec.depth`` hops, at most ``MAX_READ`` rows
    read in all. A key is reached once, by the first step that reaches it: the graph's rows of a
    hop before the resolver's, each in the frontier's order. ``reads``: the answer's hop reads
    (``walks.hop_rows``), so a hop another walk of the answer read is not read again."""
    assert spec.direction == INCOMING, "the resolver records uses: a resolved walk goes against them"
    seen, frontier, steps, read, limited = {node}, [node], [], 0, False
    new: Callable[..., Step] = tuple.__new__  # a Step built straight from its fields: a hub's walk makes 2,000
    for hop in range(1, spec.depth + 1):
        if not frontier:
            break
        graph_rows: list[tuple[int, int, int, str, str, str, int | None]] = []
        nodes = [key for key in frontier if key > 0]
        if nodes:
            graph_rows = hop_rows(
                connection, "neighbours", {"frontier": json.dumps(nodes), "direction": INCOMING,
                                           "relations": json.dumps(list(spec.relations)),
                                           "limit": MAX_READ - read + 1}, reads)
        budget = MAX_READ - read - len(graph_rows) + 1
        # A definition that imports the name and uses it is reached by its use, not its import
        # (an import beside a use in the same file is folded, and would take the use with it).
        resolved_rows = sorted(_resolved_hop(connection, frontier, roles, budget, reads),
                               key=_imports_last) if budget > 0 else []
        room = MAX_READ - read
        if len(graph_rows) + len(resolved_rows) > room:
            limited = True
            graph_rows = graph_rows[:room]
            resolved_rows = resolved_rows[:room - len(graph_rows)]
        read += len(graph_rows) + len(resolved_rows)
        frontier = []
        # the graph's rows first (their third field is the edge, their evidence GRAPH), then the resolver's
        for rows, labelled in ((graph_rows, GRAPH), (resolved_rows, None)):
            for origin, reached, third, relation, confidence, path, line in rows:
                if reached in seen:
                    continue
                seen.add(reached)
                frontier.append(reached)
                steps.append(new(Step, (hop, reached, origin, labelled or third, relation, confidence, path, line)))
        if limited:
            break
    steps.sort(key=_walk_order)
    return Reach(tuple(steps), limited)


def _imports_last(row: tuple[int, int, str, str, str, str, int | None]) -> bool:
    return row[3] == "import"


def _walk_order(step: Step) -> tuple[int, bool, int]:
    return step.hop, step.evidence != GRAPH, step.reached


def _resolved_hop(
    connection: apsw.Connection, frontier: list[int], roles: tuple[str, ...], limit: int, reads: HopReads | None
) -> list[tuple[int, int, str, str, str, str, int | None]]:
    """The frontier's users by resolved references, as walk rows (origin key, reached key, ...)."""
    by_definition: dict[int, int] = {}
    nodes = [key for key in frontier if key > 0]
    if nodes:
        found: list[tuple[int, int]] = hop_rows(connection, "resolved_definitions_of", {"nodes": json.dumps(nodes)},
                                                reads)
        for node, definition in found:
            by_definition.setdefault(definition, node)
    for key in frontier:
        if key < 0:
            by_definition.setdefault(-key, key)
    order = {key: position for position, key in enumerate(frontier)}
    definitions = sorted(by_definition, key=lambda d: (order[by_definition[d]], d))
    if not definitions:
        return []
    rows: list[tuple[int, int, int | None, str, int, str, str, str, int]] = hop_rows(
        connection, "resolved_users",
        {"frontier": json.dumps(definitions), "roles": json.dumps(list(roles)), "limit": limit}, reads)
    return [(by_definition[used], node if node is not None else -enclosing, RESOLVED, role, RESOLVED, path, line)
            for used, enclosing, node, path, line, role, *_ in rows]


def uses_of(connection: apsw.Connection, used: int, roles: tuple[str, ...],
            reads: HopReads | None = None) -> dict[int, Step]:
    """Each key's first resolved use of ``used`` in ``roles`` other than an import, as a one-hop
    step (its role and site): a key the graph reached by an import may also use what it imports
    (a JS test file's ``it(...)`` callbacks are its top level)."""
    uses: dict[int, Step] = {}
    for origin, reached, evidence, relation, confidence, path, line in _resolved_hop(
            connection, [used], roles, MAX_READ, reads):
        if relation != "import" and reached not in uses:
            uses[reached] = Step(1, reached, origin, evidence, relation, confidence, path, line)
    return uses


def describe_keys(connection: apsw.Connection, keys: list[int]) -> dict[int, dict[str, Any]]:
    """Each key as an item's head (label, kind, path, line): a node as the graph describes it, a
    definition the provider lacks from the resolver (``graph_node: false``), its label written as
    the provider writes labels (``name()``, ``.name()`` for a method, ``Name`` for a class)."""
    described = describe(connection, [key for key in keys if key > 0])
    wanted = sorted({-key for key in keys if key < 0})
    if wanted:
        for definition, path, kind, name, _, line, _, _, _ in fetch_rows(connection.execute(
                query_sql("describe_definitions"), {"definitions": json.dumps(wanted)}),
                tuple[int, str, str, str, str, int, int | None, str | None, str | None]):
            label = {"function": f"{name}()", "method": f".{name}()", "class": name}.get(kind, path.rsplit("/", 1)[-1])
            test = is_test_path(path) and _named_as_test(name)
            described[-definition] = {"label": label, "kind": "test" if test else "symbol", "path": path,
                                      "line": line, "graph_node": False}
    return described


def is_test(item: dict[str, Any]) -> bool:
    return bool(item["kind"] == "test")


def _named_as_test(name: str) -> bool:
    return name.startswith("test_") or name.endswith("_test") or (
        name.startswith("Test") and (len(name) == 4 or not name[4].islower()))


def lines_named(connection: apsw.Connection, name: str) -> list[tuple[str, int, int | None, int | None]]:
    """(path, line, definition bound or None, its graph node or None) of every reference the
    resolver read under ``name``: the one rule for whose use of the name a line is (mentions and
    raise/catch sites both read it)."""
    return fetch_rows(connection.execute(query_sql("resolved_lines_named"), {"name": name}),
                      tuple[str, int, int | None, int | None])
