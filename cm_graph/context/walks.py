"""Bounded breadth-first walks over named relation words, one SQL statement per hop.

A hop reads the frontier's adjacency in position order (``sql/neighbours.sql``); a node is
reached once, by the first edge that reaches it in that order (an anchor's own self-loop is
reported once too), so every walk is a total order:
hop, then the frontier's order, then the edge's identity rank. The walk reads at most
``MAX_READ`` adjacency rows in all, so a hub with thousands of callers costs the same bounded
work as any other node, and the walk says when that bound (not the graph) ended it.

An answer runs several walks that read the same hops: a resolved section walks its graph twin's
walk again, and ``tests_to_run`` walks three hops where ``tests`` walks two. With ``reads`` (the
answer's ``HopReads``) a hop's statement with the same bindings is run once per answer and its
rows are served to every walk that reads it again: the same statement on the same sealed index
gives the same rows, so the answer is the same, only read once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import apsw

from ..base.records import record
from ..base.sqlfiles import query_sql
from .relations import WalkSpec

MAX_READ = 2000
# One answer's hop reads: (statement, its bindings) -> the rows it returned.
HopReads = dict[tuple[Any, ...], list[Any]]


def hop_rows(connection: apsw.Connection, statement: str, bindings: dict[str, Any],
             reads: HopReads | None) -> list[Any]:
    """The rows of one hop's statement (``sql/<statement>.sql``), run once per answer with ``reads``.
    The caller must not change the list it gets."""
    if reads is None:
        return list(connection.execute(query_sql(statement), bindings))
    key = (statement, *sorted(bindings.items()))
    if key not in reads:
        reads[key] = list(connection.execute(query_sql(statement), bindings))
    return reads[key]


@record
class Step:
    """A node reached, the hop it was reached at and the one edge that reached it."""

    hop: int
    reached: int
    origin: int
    edge: int
    relation: str
    confidence: str
    site_path: str
    site_line: int | None


class Linked(Protocol):
    """A step that names the key it was reached from (``walks.Step``, ``resolved.Step``)."""

    @property
    def origin(self) -> int: ...


StepT = TypeVar("StepT", bound=Linked)


def chain_back(step: StepT | None, by_reached: dict[int, StepT], depth: int) -> list[StepT]:
    """The steps from a reached node back to the anchor (at most the walk's depth)."""
    chain = []
    for _ in range(depth):
        if step is None:
            break
        chain.append(step)
        step = by_reached.get(step.origin)
    return chain


@record
class Reach:
    steps: tuple[Step, ...]
    read_limited: bool  # MAX_READ stopped the walk before the graph or the depth did


def walk(connection: apsw.Connection, anchors: tuple[int, ...], spec: WalkSpec, reads: HopReads | None = None
         ) -> Reach:
    seen = set(anchors)
    looped: set[int] = set()
    frontier = list(anchors)
    steps: list[Step] = []
    read = 0
    limited = False
    new: Callable[..., Step] = tuple.__new__  # a Step built straight from its fields: a hub's walk makes 2,000
    for hop in range(1, spec.depth + 1):
        if not frontier:
            break
        rows: list[tuple[int, int, int, str, str, str, int | None]] = hop_rows(
            connection, "neighbours",
            {"frontier": json.dumps(frontier), "direction": spec.direction,
             "relations": json.dumps(list(spec.relations)), "limit": MAX_READ - read + 1}, reads)
        if len(rows) > MAX_READ - read:
            rows, limited = rows[: MAX_READ - read], True
        read += len(rows)
        frontier = []
        for origin, reached, edge, relation, confidence, site_path, site_line in rows:
            if reached in seen:
                if reached == origin and reached in anchors and reached not in looped:
                    # A self-loop on the anchor (a recursive call) is a real claim about it: reported
                    # once, never walked on (an anchor is seen from the start).
                    looped.add(reached)
                    steps.append(new(Step, (hop, reached, origin, edge, relation, confidence, site_path, site_line)))
                continue
            seen.add(reached)
            frontier.append(reached)
            steps.append(new(Step, (hop, reached, origin, edge, relation, confidence, site_path, site_line)))
        if limited:
            break
    steps.sort(key=_walk_order)
    return Reach(tuple(steps), limited)


def _walk_order(step: Step) -> tuple[int, int, int]:
    return step.hop, step.reached, step.edge
