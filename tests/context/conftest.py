"""Fixtures the context tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..generation.test_lifecycle import cli
from ..support.cli import where
from ..support.releases import pypi_sdist


@pytest.fixture(scope="session")
def jinja(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """jinja2 3.1.4's sdist, one commit, built once with the pinned provider: the checkout and its
    state root. Read-only for the tests that ask it (raise/catch sites, overrides, dynamic uses)."""
    root = tmp_path_factory.mktemp("jinja_sdist")
    repo = pypi_sdist(root / "repo", "jinja2", "3.1.4")
    built = cli("build", *where(repo, root / "state"), "--json")
    assert built.code == 0, built.err
    return repo, root / "state"
