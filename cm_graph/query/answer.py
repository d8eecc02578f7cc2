"""A question's answer as data: seeds, reported relationships with their endpoints, and flags.

Built from an open index only. The related_tests filter and the omission flags are decided here,
once, so documents, packets, summaries and the terminal view all read the same answer.
"""

from __future__ import annotations

import json

import apsw

from ..base.records import record
from ..base.sqlfiles import query_sql
from .questions import Question
from .traversal import Seeds, Walk, resolve_seeds, walk


@record
class Node:
    node: int
    label: str
    path: str
    line: int | None
    kind: str
    incomplete: bool
    borders_untraversable: bool  # an edge to a record no traversal passes was left out here


@record
class Edge:
    edge: int
    source: int
    target: int
    relation: str
    kind: str
    confidence: str
    site_path: str
    site_line: int | None


@record
class Relation:
    level: int
    edge: Edge
    origin: Node
    reached: Node
    seed: Node


@record
class Answer:
    question: Question
    target: str
    depth: int
    budget: int
    seeds: tuple[Node, ...]
    seed_overflow: bool
    relations: tuple[Relation, ...]
    over_budget: bool
    depth_boundary: bool
    incomplete: bool
    meets_untraversable: bool  # a seed or reached node borders a record left out of the walk
    qualified: bool = False  # read with the target grammar's qualified forms too (``targets.py``)
    set_aside: tuple[int, ...] = ()  # what the seeds were chosen over (``targets.definitions_first``)

    @property
    def resolved(self) -> bool:
        return bool(self.seeds)

    @property
    def ambiguous(self) -> bool:
        return len(self.seeds) > 1 or self.seed_overflow

    @property
    def truncated(self) -> bool:
        return self.over_budget or self.seed_overflow or self.depth_boundary

    def omissions(self) -> list[str]:
        """The traversal's omission codes, in the contract's order."""
        codes = []
        if self.truncated:
            codes.append("provider_has_more")
        if self.ambiguous or any(r.edge.confidence == "ambiguous" for r in self.relations):
            codes.append("unresolved_entities")
        if self.incomplete:
            codes.append("provider_partial")
        if self.meets_untraversable:
            # A record the walk could not pass (an uncitable path, see schema.sql) is a location
            # the graph claimed that no citation can confirm: the signal of a dropped citation.
            # (Documents add the same code for their own drops; the packet keeps it once.)
            codes.append("provider_warning")
        return codes


def _nodes(connection: apsw.Connection, numbers: set[int]) -> dict[int, Node]:
    rows = connection.execute(query_sql("describe_nodes"), {"nodes": json.dumps(sorted(numbers))})
    return {
        row[0]: Node(row[0], row[1], row[2], row[3], row[4], bool(row[5]), bool(row[6])) for row in rows
    }


def _edges(connection: apsw.Connection, numbers: set[int]) -> dict[int, Edge]:
    rows = connection.execute(query_sql("describe_edges"), {"edges": json.dumps(sorted(numbers))})
    return {row[0]: Edge(*row) for row in rows}


def answer(
    connection: apsw.Connection, spec: Question, target: str, depth: int, budget: int,
    within: str | None = None, *, qualified: bool = False,
) -> Answer:
    """Resolve ``target`` (among definitions under ``within`` when given; by the seed's tiers
    alone, or with ``qualified`` by the whole target grammar) and walk; an unresolved target is
    an Answer with no seeds."""
    seeds: Seeds = resolve_seeds(connection, target, within, qualified=qualified)
    if not seeds.nodes:
        return Answer(spec, target, depth, budget, (), False, (), False, False, False, False, qualified)
    result: Walk = walk(connection, spec, seeds, depth, budget)
    numbers = set(seeds.nodes)
    for step in result.steps:
        numbers.update((step.origin, step.reached, step.seed))
    nodes = _nodes(connection, numbers)
    edges = _edges(connection, {step.edge for step in result.steps})
    relations = tuple(
        Relation(step.level, edges[step.edge], nodes[step.origin], nodes[step.reached], nodes[step.seed])
        for step in result.steps
    )
    touched = [nodes[s] for s in seeds.nodes] + [r.reached for r in relations]
    incomplete = any(node.incomplete for node in touched)
    meets_untraversable = any(node.borders_untraversable for node in touched)
    if spec.tests_only:
        relations = tuple(r for r in relations if r.reached.kind == "test")
    return Answer(
        question=spec,
        target=target,
        depth=depth,
        budget=budget,
        seeds=tuple(nodes[s] for s in seeds.nodes),
        seed_overflow=seeds.overflow,
        relations=relations,
        over_budget=result.over_budget,
        depth_boundary=result.depth_boundary,
        incomplete=incomplete,
        meets_untraversable=meets_untraversable,
        qualified=qualified,
        set_aside=seeds.set_aside,
    )

