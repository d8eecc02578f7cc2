"""A graph being removed or replaced is never reported damaged (issue 25, item 8).

Readers take no lock. ``remove`` renames the checkout's state out of the way in one step before
deleting it, so a reader sees all of it or none; one that meets a generation vanishing under it
judges again and says ``absent`` (or answers from the new generation), never ``corrupt`` or
``invalid``.
"""

from __future__ import annotations

import os
from pathlib import Path

from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import graph_status
from cm_graph.generation.store import REMOVING_SUFFIX

from ..support.cli import invoke, where
from ..support.g0 import g0_graph
from ..support.helpers import code_paths, inventory_for, write_output
from ..support.removerace import damaged, race

LOOPS = 8


def test_readers_during_a_remove_and_build_loop_never_see_damage(tmp_path: Path) -> None:
    """Real processes: one removes and rebuilds, four judge and question the graph meanwhile."""
    tally = race(tmp_path, LOOPS)
    assert damaged(tally) == {}, sorted(tally.items())
    assert (tally["remove:done"], tally["build:done"]) == (LOOPS, LOOPS)
    # The readers did read during the loop: they saw the graph gone and back.
    assert tally["status:absent"] and tally["status:current"], sorted(tally.items())


def test_a_removal_killed_midway_is_finished_by_the_next_one(g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    out = write_output(tmp_path / "out", g0_graph(), inventory_for(g0_repo, code_paths(g0_repo)))
    assert invoke("build", "--from-graph", out, *where(g0_repo, state_dir)).exit_code == 0
    workspace = Workspace.locate(g0_repo, state_dir)
    # What a removal killed after its rename leaves: the state under its doomed name.
    doomed = workspace.graph_dir / f".{workspace.directory.name}.{'0' * 32}{REMOVING_SUFFIX}"
    os.rename(workspace.directory, doomed)
    assert graph_status(workspace).state == "absent"
    assert invoke("build", "--from-graph", out, *where(g0_repo, state_dir)).exit_code == 0
    assert not doomed.exists()
    assert invoke("remove", *where(g0_repo, state_dir)).exit_code == 0
    assert sorted(os.listdir(workspace.graph_dir)) == [f"{workspace.directory.name}.lock"]
