"""Fixture cases kept as folders, one per case, as scip-python keeps its snapshot tests: a case's
input, its expected output and a one-line ``README`` sit together in
``fixtures/cases/<kind>/<case>/``, so a new case is a new folder and nothing else.

Each kind has one parametrized test that discovers the folders (``CaseKind.params``) and reads
each through ``CaseKind.read``, which fails the case when its folder lacks a file or its README,
or holds a file the kind never reads (a misspelt name would otherwise be a case that checks
nothing). The regenerate commands (``python -m tests.support.golden``, ``python -m
tests.support.damaged``) write the expected outputs into the same folders.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CASES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


@dataclass(frozen=True)
class CaseKind:
    """One kind of case: where its folders are (under ``fixtures/cases/``) and the files each holds
    besides its README."""

    path: str
    files: tuple[str, ...]

    @property
    def directory(self) -> Path:
        return CASES_DIR / self.path

    def folders(self) -> list[Path]:
        """Every entry of the kind's directory, sorted: a stray file is listed too, so its test fails."""
        return sorted(self.directory.iterdir()) if self.directory.is_dir() else []

    def params(self) -> list[Any]:
        """One pytest parameter per folder, named by the folder. A kind without folders gets one
        parameter that is no folder, so its test fails instead of being skipped for want of cases."""
        folders = self.folders() or [self.directory / "no-cases"]
        return [pytest.param(folder, id=folder.name) for folder in folders]

    def read(self, folder: Path) -> dict[str, bytes]:
        """The case's files by name; the folder must hold exactly them and a one-line README."""
        assert folder.is_dir(), f"{folder}: a case is a folder"
        expected = sorted((*self.files, "README"))
        present = sorted(entry.name for entry in folder.iterdir())
        assert present == expected, f"{folder}: a {self.path} case holds {expected}, not {present}"
        readme = (folder / "README").read_text(encoding="utf-8")
        assert readme.strip() and readme.endswith("\n") and readme.count("\n") == 1, (
            f"{folder / 'README'}: one line saying what the case is"
        )
        return {name: (folder / name).read_bytes() for name in self.files}


DAMAGED = CaseKind("damaged", ("expected.json", "graph.json"))
GOLDEN_PACKETS = CaseKind("golden/g0", ("packet.json",))
CODE_CONTEXT_ANSWERS = CaseKind("code_context/g0", ("answer.json",))
KINDS = (DAMAGED, GOLDEN_PACKETS, CODE_CONTEXT_ANSWERS)
