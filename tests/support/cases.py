"""The G0 checkout, its state root and a directory of the test's own files: where most query
and status tests start (the ``case`` fixture in ``conftest.py`` makes one)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current

from .cli import where


@dataclass(frozen=True)
class Case:
    """A G0 checkout, its state root, and where this test keeps its own files."""

    repo: Path
    state: Path
    files: Path

    @property
    def workspace(self) -> Workspace:
        return Workspace.locate(self.repo, self.state)

    @property
    def generation(self) -> str:
        return read_current(self.workspace).id

    @property
    def packet(self) -> Path:
        return self.files / "out" / "packet.json"

    def where(self) -> list[str]:
        return where(self.repo, self.state)


def new_case(repo: Path, state: Path, base: Path) -> Case:
    """A case whose own files (and the packet's ``out/`` directory) are under ``base/files``."""
    files = base / "files"
    (files / "out").mkdir(parents=True)
    return Case(repo, state, files)
