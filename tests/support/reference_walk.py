"""A small, obviously-correct reference of the breadth-first walk, straight from the spec.

It reads the provider's graph dict itself (no importer, no SQL), keeps code-to-code edges,
collapses byte-identical identities, sorts adjacency by the full identity and runs the FIFO walk
of the reference notes literally. The SQL engine must agree with it exactly.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from cm_graph.index.graphmodel import CONFIDENCES, node_kind, relation_kind
from cm_graph.query.questions import INCOMING, OUTGOING, Question

Identity = tuple[str, str, str, str, str, str, int]


@dataclass(frozen=True)
class RefStep:
    level: int
    identity: Identity
    origin: str
    reached: str
    seed: str


@dataclass(frozen=True)
class RefWalk:
    steps: tuple[RefStep, ...]
    over_budget: bool
    depth_boundary: bool
    incomplete: bool


class RefGraph:
    def __init__(self, graph: dict[str, Any]) -> None:
        self.code = {n["id"]: n for n in graph["nodes"] if n["file_type"] == "code"}
        declared = {n["id"] for n in graph["nodes"]}
        self.kind = {
            pid: node_kind(n["source_file"] or "", n["label"])
            for pid, n in self.code.items()
        }
        self.incomplete: set[str] = set()
        identities: set[Identity] = set()
        for e in graph["edges"]:
            s, t = e["source"], e["target"]
            if s in self.code and t in self.code:
                line = e.get("source_location") or ""
                site_line = int(line[1:]) if line else -1
                path = e["source_file"] or ""
                identities.add((
                    s, t, e["relation"], relation_kind(e["relation"]),
                    CONFIDENCES[e["confidence"]], path, site_line if path else -1,
                ))
            elif (s in self.code or s in declared) and (t in self.code or t in declared):
                continue
            else:
                self.incomplete.update(x for x in (s, t) if x in self.code)
        self.edges = sorted(identities)
        self.out: dict[str, list[Identity]] = {}
        self.inc: dict[str, list[Identity]] = {}
        for ident in self.edges:
            self.out.setdefault(ident[0], []).append(ident)
            self.inc.setdefault(ident[1], []).append(ident)

    def neighbours(self, node: str, spec: Question) -> list[tuple[Identity, str]]:
        found = []
        if OUTGOING in spec.directions:
            found += [(i, i[1]) for i in self.out.get(node, []) if i[3] in spec.kinds]
        if INCOMING in spec.directions:
            found += [(i, i[0]) for i in self.inc.get(node, []) if i[3] in spec.kinds]
        return found

    def seeds(self, target: str) -> tuple[list[str], bool]:
        from cm_graph.index.graphmodel import callable_base

        ordered = sorted(self.code)
        tiers = (
            [p for p in ordered if self.code[p]["label"] == target],
            [p for p in ordered if callable_base(self.code[p]["label"]) == target],
            [p for p in ordered if (self.code[p]["source_file"] or "") == target],
        )
        for tier in tiers:
            if tier:
                return tier[:8], len(tier) > 8
        return [], False

    def walk(self, seeds: list[str], spec: Question, depth: int, budget: int) -> RefWalk:
        expanded = set(seeds)
        reported: set[Identity] = set()
        steps: list[RefStep] = []
        frontier = deque((s, s, 0) for s in seeds)
        over = boundary = False
        incomplete = any(s in self.incomplete for s in seeds)
        while frontier and not over:
            node, seed, level = frontier.popleft()
            if level >= depth:
                if not boundary and any(
                    i not in reported for i, _ in self.neighbours(node, spec)
                ):
                    boundary = True
                continue
            for ident, reached in self.neighbours(node, spec):
                if ident in reported:
                    continue
                if len(steps) == budget:
                    over = True
                    break
                reported.add(ident)
                incomplete = incomplete or reached in self.incomplete
                steps.append(RefStep(level + 1, ident, node, reached, seed))
                if reached not in expanded:
                    expanded.add(reached)
                    frontier.append((reached, seed, level + 1))
        return RefWalk(tuple(steps), over, boundary, incomplete)
