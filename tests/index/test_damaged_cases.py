"""The named damaged graphs of ``fixtures/cases/damaged/``, one folder per case: each graph is
published through the same path the CLI uses and must be refused with exactly the reason code
and sentence its ``expected.json`` holds, leaving nothing behind in the workspace's ``indexes/``
directory (``tests/support/damaged.py`` says which are hand-written and how to regenerate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.documentkit import refuse_graph
from ..support.fixturecases import DAMAGED


@pytest.mark.parametrize("folder", DAMAGED.params())
def test_the_damaged_graph_is_refused_as_its_case_expects(repo: Path, state_dir: Path, folder: Path) -> None:
    case = DAMAGED.read(folder)
    expected = json.loads(case["expected.json"])
    assert sorted(expected) == ["message", "reason"], "python -m tests.support.damaged"
    refusal = refuse_graph(repo, state_dir, case["graph.json"], expected["reason"])
    assert refusal.message == expected["message"], "python -m tests.support.damaged, then review the diff"
