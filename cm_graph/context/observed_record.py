"""``cm-graph tests record``: run the project's own suite once, contained, and store what each test executed.

The bound generation's commit is materialised from its tracked blobs (``provider/build.py``'s
``materialise``: one ``git cat-file --batch``, no program a repository configures, the checkout
untouched) into a private scratch directory named by a scratch owner's token, so a killed record
leaves nothing the next command does not sweep. The suite runs there under the observing plugin
(``provider/suiterun.py``: bubblewrap, no network, scrubbed environment, killed with cm-graph,
``--timeout``), and its raw record is mapped onto the index's definitions (``observed.py``) and
written as the generation's map. A suite whose tests fail still ran: the map records what ran,
and the summary says how many failed; a suite that did not run to its end is a refusal.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from ..base.errors import Refusal
from ..base.git import read_census
from ..base.privfs import ensure_private_dir
from ..generation.layout import Workspace
from ..generation.scratch import scratch_owner, sweep_stale_scratch
from ..generation.status import graph_status
from ..index.ensure import open_index_for
from ..provider.build import materialise
from ..provider.suiterun import DEFAULT_SUITE_TIMEOUT, chosen_python, run_suite
from .observed import OBSERVED_SCHEMA, OUTCOMES, build_map, record_path, write_map

RECORDABLE = ("current", "stale")


def record_tests(
    workspace: Workspace, *, python: Path | None = None, args: tuple[str, ...] = (),
    timeout: float = DEFAULT_SUITE_TIMEOUT,
) -> dict[str, Any]:
    """Record the bound generation's observed test map; a summary of what was stored."""
    if not timeout > 0:
        raise Refusal("The --timeout must be a positive number of seconds.", reason="invalid")
    interpreter = chosen_python(python)
    sweep_stale_scratch(workspace)  # a killed record's scratch goes first
    status = graph_status(workspace, "HEAD", trust_seal=True)
    if status.state not in RECORDABLE or status.generation is None:
        raise Refusal(status.detail, reason=status.state)
    generation = status.generation
    commit = generation.manifest.commit
    started = time.perf_counter()
    census = read_census(workspace.checkout, commit)
    with scratch_owner(workspace) as token:
        ensure_private_dir(workspace.directory, private_from=workspace.root)
        scratch = workspace.directory / f".{token}.build"
        os.mkdir(scratch, 0o700)
        try:
            materialise(census, workspace.checkout, scratch / "source")
            raw = run_suite(interpreter, scratch, args, timeout=timeout)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        connection = open_index_for(generation)
        try:
            definitions, tests, unmapped = build_map(connection, raw)
        finally:
            connection.close()
        summary: dict[str, int] = {outcome: sum(1 for t in tests if t[1] == outcome) for outcome in OUTCOMES}
        summary.update(tests=len(tests), definitions=len(definitions), unmapped_code=unmapped)
        document = {
            "schema": OBSERVED_SCHEMA, "generation": generation.id, "commit": commit,
            "tree": generation.manifest.tree,
            "run": {"python": str(interpreter), "python_version": str(raw.get("python", "")),
                    "pytest_version": str(raw.get("pytest", "")), "pytest_args": list(args),
                    "exit_status": int(raw["exit"]), "containment": "bubblewrap", "network": "none"},
            "summary": summary, "definitions": definitions, "tests": tests,
        }
        destination = record_path(workspace.indexes_dir, generation.id)
        write_map(destination, document, generation.id, token=token)
    return {"status": "recorded", "generation": generation.id, "commit": commit, "graph_state": status.state,
            "summary": summary, "network": "none", "containment": "bubblewrap",
            "elapsed_seconds": round(time.perf_counter() - started, 3)}
