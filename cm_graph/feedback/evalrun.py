"""``cm-graph eval run``: re-ask every case of the eval corpus and grade the answers by themselves.

A case is an answer an agent said was correct (its arguments, generation, commit, answer id and
cited set). On the generation it was recorded on, the answer must come back with the same id: that
is a determinism guard, and anything else fails the run. On a later generation the answer may
rightly differ, so it is scored instead: *survival* is the share of the case's citations that still
resolve in the new bound commit (``cm-graph score``'s measure and gate), *overlap* the Jaccard of
the old cited set, carried to the new commit through ``git diff`` (``linemap``: a pure line shift
is not a change), and the new one. A case is ``unchanged`` (same cited set), ``changed`` (still answered,
survival at the gate, overlap at least ``min_overlap``) or ``regressed`` (no longer answered, or
below either bar). The run fails, for a CI, when any case is ``not_reproduced`` or ``regressed``;
it refuses (the graph's reason) when the graph is not usable, even with no case; no case on a usable
graph is ``empty`` and passes.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..audit.score import GATE_RATE, parse_citation
from ..base.errors import InvalidInput
from ..evidence.documents import CitationChecker
from ..generation.layout import Workspace, workspace_id
from ..generation.status import require_current
from ..generation.store import read_current
from ..index.ensure import open_index_for
from .linemap import map_citations
from .outcomes import OutcomeStore
from .reask import Reasked, reask
from .rewards import PLACES

EVAL_SCHEMA = "cm_graph.evalRun.v1"
DEFAULT_MIN_OVERLAP = 0.5
VERDICTS = ("reproduced", "not_reproduced", "unchanged", "changed", "regressed")
FAILING = ("not_reproduced", "regressed")
LISTED = 20


def check_min_overlap(value: Any) -> float:
    if value is None:
        return DEFAULT_MIN_OVERLAP
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise InvalidInput("--min-overlap must be a number from 0 to 1.")
    return float(value)


def run_eval(workspace: Workspace, min_overlap: Any = None, deadline: float | None = None) -> dict[str, Any]:
    """Grade every case; with ``deadline`` (a ``time.monotonic()`` value), only those begun before
    it: the rest are counted ``not_graded`` and the run is ``partial`` unless a graded case failed."""
    bar = check_min_overlap(min_overlap)
    # Nothing to grade passes only on a graph that could grade: outside a checkout, or with an
    # absent, damaged, stale or partial graph, the run refuses with the graph's own reason (a CI run in the
    # wrong directory must not pass green).
    require_current(workspace, "HEAD", require_complete=True)
    with OutcomeStore(workspace.root) as store:
        cases = store.cases(workspace_id(workspace.checkout))
    results = []
    survivals = _Survival(workspace)
    try:
        for case in cases:
            if deadline is not None and time.monotonic() >= deadline:
                break
            answer = reask(workspace, case["kind"], case["intent"], case["target"], case["arguments"])
            results.append(_grade(case, answer, survivals, bar, workspace.checkout))
    finally:
        survivals.close()
    counts = {verdict: sum(1 for r in results if r["verdict"] == verdict) for verdict in VERDICTS}
    failed = [r for r in results if r["verdict"] in FAILING]
    left = len(cases) - len(results)
    status = "empty" if not cases else "failed" if failed else "partial" if left else "passed"
    graded = {"not_graded": left} if deadline is not None else {}
    return {
        "schema": EVAL_SCHEMA,
        "status": status,
        "cases": len(results), **graded, "counts": counts,
        "gate": {"survival": GATE_RATE, "min_overlap": bar},
        "regressions": [r["answer_id"] for r in failed],
        "results": results,
    }


def _grade(case: dict[str, Any], answer: Reasked, survivals: _Survival, bar: float,
           checkout: Path) -> dict[str, Any]:
    result: dict[str, Any] = {
        "capability_id": case["capability_id"], "answer_id": case["answer_id"],
        "recorded_generation": case["generation"], "generation": answer.generation,
    }
    if answer.generation == case["generation"]:
        same = answer.answer_id == case["answer_id"]
        return result | {"verdict": "reproduced" if same else "not_reproduced", "new_answer_id": answer.answer_id}
    recorded = set(case["cited"])
    new = set(answer.cited)
    moved = _as_cited_now(map_citations(checkout, case["commit"], answer.commit, recorded), new)
    old = set(moved.values())
    survival = survivals.rate(answer.generation, sorted(recorded))
    overlap = len(old & new) / len(old | new) if old | new else 1.0
    if not answer.answered:
        verdict, why = "regressed", "the target no longer resolves to one answer"
    elif survival < GATE_RATE:
        verdict, why = "regressed", "its citations no longer resolve in the new commit"
    elif overlap < bar:
        verdict, why = "regressed", "its cited set overlaps the recorded one too little"
    elif old == new:
        verdict, why = "unchanged", "the same cited set"
    else:
        verdict, why = "changed", "still answered; the cited set moved"
    return result | {
        "verdict": verdict, "why": why, "new_answer_id": answer.answer_id,
        "survival": round(survival, PLACES), "overlap": round(overlap, PLACES),
        "lost": sorted(c for c in recorded if moved[c] not in new)[:LISTED],
        "gained": sorted(new - old)[:LISTED],
    }


def _as_cited_now(moved: dict[str, str], new: set[str]) -> dict[str, str]:
    """Each recorded citation as the new answer cites it: where the diff moved it, else where it
    stood when the new answer cites that (a file's own ``#L1`` stays at line 1 when lines are
    inserted above everything). Never worse than comparing the strings as recorded."""
    return {old: old if moved_to not in new and old in new else moved_to for old, moved_to in moved.items()}


class _Survival:
    """Share of citations the current generation's bound commit still carries (path tracked,
    line within the file), read from that generation's index census."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace
        self._open: tuple[str, Any, CitationChecker] | None = None

    def rate(self, generation: str, citations: list[str]) -> float:
        if not citations:
            return 1.0
        checker = self._checker(generation)
        kept = 0
        for citation in citations:
            path, line, _ = parse_citation(citation)
            kept += checker.confirms(path, line)
        return kept / len(citations)

    def _checker(self, generation: str) -> CitationChecker:
        if self._open is None or self._open[0] != generation:
            self.close()
            current = read_current(self._workspace)
            connection = open_index_for(current)
            self._open = (current.id, connection, CitationChecker(connection))
        return self._open[2]

    def close(self) -> None:
        if self._open is not None:
            self._open[1].close()
            self._open = None
