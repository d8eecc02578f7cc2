"""Run a question against an open index: resolve the target, walk, and report the flags.

The walk itself is one SQL statement (``sql/walk.sql``); this module binds its parameters and
turns its rows into plain values. It never reads git or the provider's JSON.
"""

from __future__ import annotations

import json

import apsw

from ..base.errors import InvalidInput
from ..base.records import record
from ..base.rules import is_bounded_text
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .questions import MAX_SEEDS, MAX_TARGET_CHARS, Question
from .targets import definitions_first, qualified_nodes


@record
class Seeds:
    nodes: tuple[int, ...]
    overflow: bool
    set_aside: tuple[int, ...] = ()  # bindings, manifest keys, declaration-only members ranked after them


@record
class Step:
    """One reported relationship: the edge crossed, between its own two endpoints."""

    level: int
    edge: int
    origin: int
    reached: int
    seed: int


@record
class Walk:
    steps: tuple[Step, ...]
    over_budget: bool
    depth_boundary: bool


def resolve_seeds(
    connection: apsw.Connection, target: object, within: str | None = None, *, qualified: bool = False
) -> Seeds:
    """The seeds ``target`` names (the seed's three tiers; with ``qualified``, then the target
    grammar's qualified forms, ``targets.py``), only definitions under ``within`` when it is
    given (the operator's ``--in PATH``)."""
    nodes, aside = _matching(connection, target, MAX_SEEDS + 1, within, qualified)
    return Seeds(nodes[:MAX_SEEDS], len(nodes) > MAX_SEEDS, aside)


def matching_nodes(
    connection: apsw.Connection, target: object, limit: int, within: str | None = None, *, qualified: bool = False
) -> tuple[int, ...]:
    """Up to ``limit`` definitions ``target`` resolves to, in node order: the seeds are the first
    eight; the operator's view counts the rest to say how many the seed bound dropped. The seed's
    tiers alone (``query``'s packets), or with ``qualified`` the qualified forms after them when
    they match nothing (``ask``, as ``code_context`` reads a target), and the real definitions
    before a binding, manifest key or declaration-only member of the name (``definitions_first``)."""
    return _matching(connection, target, limit, within, qualified)[0]


def _matching(
    connection: apsw.Connection, target: object, limit: int, within: str | None, qualified: bool
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the definitions, the nodes set aside for them): ``matching_nodes``'s reading."""
    if not is_bounded_text(target, MAX_TARGET_CHARS):
        raise InvalidInput(
            f"The target must be non-empty single-line text of at most {MAX_TARGET_CHARS} characters."
        )
    rows = fetch_rows(connection.execute(
        query_sql("resolve_target"), {"target": target, "limit": limit, "within": within}
    ), tuple[int, str])
    if not qualified or (rows and rows[0][1] == "path"):  # the seed's tiers; a path is all of its file
        return tuple(row[0] for row in rows), ()
    assert isinstance(target, str)  # bounded text, checked above
    if not rows:
        return tuple(qualified_nodes(connection, target, within)[1][:limit]), ()
    real, aside = definitions_first(connection, [row[0] for row in rows], target, within)
    return (tuple(sorted(real)[:limit]) if aside else tuple(real[:limit])), tuple(aside)


def walk(
    connection: apsw.Connection, spec: Question, seeds: Seeds, depth: int, budget: int
) -> Walk:
    # The relationship columns are NULL together (the one row of a walk that reports nothing),
    # so testing ``edge`` is enough.
    rows = fetch_rows(connection.execute(
        query_sql("walk"),
        {
            "seeds": json.dumps(list(seeds.nodes)),
            "directions": json.dumps(list(spec.directions)),
            "kinds": json.dumps(list(spec.kinds)),
            "depth": depth,
            "budget": budget,
        },
    ), tuple[int, int, int, int, int | None, int, int, int])
    steps = tuple(
        Step(level, edge, origin, reached, seed)
        for _, _, level, _, edge, origin, reached, seed in rows
        if edge is not None
    )
    return Walk(steps, bool(rows[0][0]), bool(rows[0][1]))
