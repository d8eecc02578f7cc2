from __future__ import annotations

import os
from pathlib import Path

import pytest

from .support.cases import Case, new_case
from .support.g0 import make_g0_repo
from .support.helpers import provider_missing


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The one provider skip guard: a test marked ``provider`` (the marker on the test, its
    module or one of its parameters) is skipped, with the reason, when the pinned provider is not
    installed and verified beside this interpreter; no test file checks for it on its own."""
    if not any(item.get_closest_marker("provider") for item in items):
        return
    missing = provider_missing()
    if missing is None:
        return
    skip = pytest.mark.skip(reason=f"pinned provider unavailable: {missing}")
    for item in items:
        if item.get_closest_marker("provider"):
            item.add_marker(skip)


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    """A state root outside any git work tree (tmp_path itself is not inside one)."""
    return tmp_path / "state"


@pytest.fixture
def g0_repo(tmp_path: Path) -> Path:
    return make_g0_repo(tmp_path / "repo")


@pytest.fixture
def case(g0_repo: Path, state_dir: Path, tmp_path: Path) -> Case:
    """G0, nothing published yet, with a directory for the test's own files."""
    return new_case(g0_repo, state_dir, tmp_path)


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real ~/.local/share: a test that forgets --state-dir lands in tmp. And
    no width from the runner: pytest-xdist's workers inherit ``COLUMNS`` from the controller's
    terminal, which a pipe does not have; a test that wants a width sets it."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setenv("CM_GRAPH_HOME", str(tmp_path / "default-state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    os.umask(0o022)
