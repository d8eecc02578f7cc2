"""A checkout and its state root (``Checkout``), with a directory of the test's own files
(``Case``, what the ``case`` fixture in ``conftest.py`` makes of G0): where most command tests start."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current

from .cli import where


@dataclass(frozen=True)
class Checkout:
    """A checkout and its state root, and what a test reads of their current generation."""

    repo: Path
    state: Path

    @property
    def workspace(self) -> Workspace:
        return Workspace.locate(self.repo, self.state)

    @property
    def generation(self) -> str:
        return read_current(self.workspace).id

    @property
    def index(self) -> Path:
        return self.workspace.index_path(self.generation)

    def where(self) -> list[str]:
        return where(self.repo, self.state)


@dataclass(frozen=True)
class Case(Checkout):
    """A G0 checkout, its state root, and where this test keeps its own files."""

    files: Path

    @property
    def packet(self) -> Path:
        return self.files / "out" / "packet.json"


def new_case(repo: Path, state: Path, base: Path) -> Case:
    """A case whose own files (and the packet's ``out/`` directory) are under ``base/files``."""
    files = base / "files"
    (files / "out").mkdir(parents=True)
    return Case(repo, state, files)
