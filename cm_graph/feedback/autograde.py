"""The eval corpus graded on every publish (issue 30 item 6): the seed's "eval graded
automatically", without waiting for a CI to run ``cm-graph eval run``.

After ``refresh`` (or ``build``) publishes a usable generation, the cases agents marked correct
are re-asked against it within a bounded time (``--eval-seconds``: the cases begun before it
are graded, the rest counted ``not_graded``), and the verdict counts go into the build's summary
and into a private file per checkout (``feedback/eval-<workspace>.json`` under the state root)
that ``graph_status`` reports. The grading never fails the publish that ran it: the generation is
already current, and a case that regressed is news about answers, not a broken build; a grading
that cannot run says why in ``reason``. Nothing here runs the repository's code or git hooks:
re-asking reads the index and ``git diff`` of the two bound commits, as ``eval run`` does.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..base.errors import Refusal
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.privfs import ensure_private_dir, read_private_bytes, write_private_atomic
from ..generation.layout import Workspace, workspace_id
from .evalrun import LISTED, run_eval
from .outcomes import OutcomeStore

DEFAULT_EVAL_SECONDS = 10.0
MAX_EVAL_SECONDS = 3600.0
GRADING_SCHEMA = "cm_graph.evalGrading.v1"
MAX_GRADING_BYTES = 1 << 20


def grading_path(workspace: Workspace) -> Path:
    return Path(workspace.root) / "feedback" / f"eval-{workspace_id(workspace.checkout)}.json"


def grade_published(workspace: Workspace, generation: str, seconds: float) -> dict[str, Any] | None:
    """The grading of ``generation`` (just published) in at most about ``seconds``, also kept for
    ``graph_status``; None when there is nothing to grade (no case recorded, or ``seconds`` 0)."""
    if seconds <= 0:
        return None
    try:
        with OutcomeStore(workspace.root) as store:
            if not store.cases(workspace_id(workspace.checkout)):
                return None
        result = run_eval(workspace, deadline=time.monotonic() + seconds)
    except Refusal as refusal:
        brief: dict[str, Any] = {"schema": GRADING_SCHEMA, "generation": generation, "status": "not_graded",
                                 "reason": refusal.reason, "detail": refusal.message}
    else:
        brief = {"schema": GRADING_SCHEMA, "generation": generation, "status": result["status"],
                 "graded": result["cases"], "not_graded": result["not_graded"], "counts": result["counts"],
                 "regressions": result["regressions"][:LISTED]}
    try:
        ensure_private_dir(grading_path(workspace).parent, private_from=Path(workspace.root))
        write_private_atomic(grading_path(workspace), dumps_canonical(brief))
    except (OSError, Refusal):
        brief["kept"] = False  # said in the summary; graph_status then reports no grading of it
    return brief


def last_grading(workspace: Workspace, generation: str | None) -> dict[str, Any] | None:
    """The kept grading, as ``graph_status`` reports it: of the current generation, or marked
    ``of_generation`` when it graded an earlier one (refreshed since without grading); None when
    the checkout has none, or the file is not one cm-graph wrote."""
    path = grading_path(workspace)
    if not os.path.lexists(path):
        return None
    try:
        brief = loads_strict(read_private_bytes(path, MAX_GRADING_BYTES), "the eval grading")
    except (OSError, Refusal):
        return None
    if not isinstance(brief, dict) or brief.get("schema") != GRADING_SCHEMA:
        return None
    if brief.get("generation") != generation:
        return {"status": "not_graded", "reason": "graded_an_earlier_generation",
                "of_generation": brief.get("generation")}
    return {key: value for key, value in brief.items() if key != "schema"}
