from __future__ import annotations

from pathlib import Path

from cm_graph.index.ensure import ensure_index

from ..support.g0 import g0_graph
from ..support.helpers import publish


def test_g0_publishes_and_indexes(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    report = ensure_index(workspace)
    assert report.counts["code_nodes"] == 5
    assert report.counts["edges"] == 4
    again = ensure_index(workspace)
    assert again.reused
