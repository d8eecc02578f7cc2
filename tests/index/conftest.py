"""Fixtures of the index tests: one G0 repository per module, which publishing only reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..support.g0 import make_g0_repo
from ..support.helpers import git


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One G0 repository per module: publishing only reads it, so cases can share it."""
    return make_g0_repo(tmp_path_factory.mktemp("g0") / "repo")


@pytest.fixture(scope="module")
def commit(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


