"""The fault benchmark's scores: what a strategy's selection covers of the suite, and how it did.

A selection is what a strategy would hand to pytest: node ids (``f.py::test_x``,
``f.py::TestC::test_m``, ``f.py::test_p[1]``), test files (``f.py``) or directories. Each stands
for the suite's node ids it would run: itself, its parametrised cases (``[...]``), the tests of a
class, of a file, of a directory.

Per fault, with ``failing`` the tests that fail with the fault and pass without it (the truth):
**detected**: at least one failing test is selected; **safety**: the share of the failing tests
selected; **share**: the selected share of the suite; **seconds**: the time the strategy took to
select. A fault no test fails is no measure of a strategy and is counted apart, not scored.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any


def covers(selected: str, node_id: str) -> bool:
    """Whether handing ``selected`` to pytest runs the test ``node_id``."""
    selected = selected.rstrip("/")
    if node_id == selected:
        return True
    if "::" not in selected:  # a file or a directory
        file = node_id.split("::", 1)[0]
        return file == selected or file.startswith(selected + "/")
    return node_id.startswith((selected + "::", selected + "["))


def expand(selection: Iterable[str], suite: Iterable[str]) -> set[str]:
    """The node ids of ``suite`` that ``selection`` runs."""
    chosen = list(selection)
    return {node for node in suite if any(covers(item, node) for item in chosen)}


def score(selection: Iterable[str], seconds: float, failing: set[str], suite: set[str]) -> dict[str, Any]:
    """One strategy on one fault (``failing`` non-empty, a subset of ``suite``)."""
    if not failing or not failing <= suite:
        raise ValueError("a fault is scored only with failing tests that are in the suite")
    run = expand(selection, suite)
    caught = run & failing
    return {"detected": bool(caught), "safety": len(caught) / len(failing), "share": len(run) / len(suite),
            "selected": len(run), "seconds": seconds}


def spread(values: list[float]) -> dict[str, float | None]:
    """min / median / max of ``values`` (None for none)."""
    if not values:
        return {"min": None, "median": None, "max": None}
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def summarise(scores: list[dict[str, Any]]) -> dict[str, Any]:
    """A strategy over faults: n, the detection rate, and the spread of safety, share and seconds."""
    return {"n": len(scores),
            "detection": sum(1 for s in scores if s["detected"]) / len(scores) if scores else None,
            "safety": spread([s["safety"] for s in scores]),
            "share": spread([s["share"] for s in scores]),
            "seconds": spread([s["seconds"] for s in scores])}
