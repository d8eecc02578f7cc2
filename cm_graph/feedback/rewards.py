"""Rewards, derived by replaying outcomes in order; never stored, never fed back into an answer.

The mapping is the seed peer's (docs/feedback.md): a wrong answer earns 0; a correct one earns 1
when it avoided reads and no file was read after it, 0.7 when it avoided reads but files were
still read, 0.3 when nothing was avoided. Each capability's figure is an exponential moving
average (prior 0.5, alpha 0.3) over its outcomes in store order. The raw fields stay in the
store, so the mapping can change and the figures be replayed again; the same outcomes in the same
order give the same figures on any machine (no clock, no float formatting left to chance).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

REPORT_SCHEMA = "cm_graph.feedbackReport.v1"
PRIOR = 0.5
ALPHA = 0.3
WEAKEST_LISTED = 10
PLACES = 4


def reward(correct: bool, reads_avoided: int, files_read: int) -> float:
    if not correct:
        return 0.0
    if reads_avoided > 0:
        return 1.0 if files_read == 0 else 0.7
    return 0.3


def replay(outcomes: list[dict[str, Any]]) -> dict[str, float]:
    """Each capability's EMA after every outcome, in the order given (the store's seq order)."""
    ema: dict[str, float] = {}
    for outcome in outcomes:
        before = ema.get(outcome["capability_id"], PRIOR)
        earned = reward(outcome["correct"], outcome["reads_avoided"], outcome["files_read"])
        ema[outcome["capability_id"]] = (1 - ALPHA) * before + ALPHA * earned
    return ema


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, PLACES) if whole else None


def _files_read(values: list[int]) -> dict[str, Any]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0, "total": 0, "median": None, "max": None, "zero": 0}
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {"n": len(ordered), "total": sum(ordered), "median": median, "max": ordered[-1],
            "zero": sum(1 for v in ordered if v == 0)}


def report(outcomes: list[dict[str, Any]], weakest: int = WEAKEST_LISTED) -> dict[str, Any]:
    """``feedback report``: reads-avoided rate per intent, files read, the weakest capabilities;
    every figure with its n."""
    ema = replay(outcomes)
    by_intent: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    by_capability: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for outcome in outcomes:
        by_intent[(outcome["kind"], outcome["intent"])].append(outcome)
        by_capability[outcome["capability_id"]].append(outcome)
    intents = []
    for (kind, intent), rows in sorted(by_intent.items()):
        intents.append({
            "kind": kind, "intent": intent, "n": len(rows),
            "reads_avoided_rate": _rate(sum(1 for r in rows if r["reads_avoided"] > 0), len(rows)),
            "correct_rate": _rate(sum(1 for r in rows if r["correct"]), len(rows)),
            "files_read": _files_read([r["files_read"] for r in rows]),
        })
    ranked = sorted(by_capability.items(), key=lambda item: (round(ema[item[0]], PLACES), -len(item[1]), item[0]))
    capabilities = [{"capability_id": cid, "reward": round(ema[cid], PLACES), "n": len(rows),
                     "correct": sum(1 for r in rows if r["correct"])} for cid, rows in ranked]
    return {
        "schema": REPORT_SCHEMA,
        "mapping": {"wrong": 0.0, "avoided_no_reads": 1.0, "avoided_some_reads": 0.7, "not_avoided": 0.3,
                    "prior": PRIOR, "alpha": ALPHA},
        "outcomes": len(outcomes),
        "capabilities": len(by_capability),
        "reads_avoided_rate": _rate(sum(1 for r in outcomes if r["reads_avoided"] > 0), len(outcomes)),
        "files_read": _files_read([r["files_read"] for r in outcomes]),
        "intents": intents,
        "weakest": capabilities[:weakest],
    }
