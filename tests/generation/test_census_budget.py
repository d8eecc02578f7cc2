"""Issue 25 item 11: a tracked file over the per-file budget (``MAX_BLOB_BYTES``, 32 MiB) no longer
makes a repository ungraphable.

One that is not code (a data dump) is left out of the census, counted as the scope exclusion
``oversized``, and shown in the build summary and ``status``; one that is code refuses the
build, naming the file and ``--exclude``; ``--exclude`` it and it is left out as the operator's
exclusion. A file left out is never in the index's census, so no citation can name it.
Real git repositories, the real pinned provider, the installed console script.
"""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import pytest

from cm_graph.base.git import MAX_BLOB_BYTES, read_census

from ..support.cases import Checkout
from ..support.helpers import make_repo, run_installed

pytestmark = [pytest.mark.provider]

CODE = {"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    return 1\n\n\ndef run():\n    return helper()\n"}
OVER = MAX_BLOB_BYTES + 1


def _oversized(size: int) -> bytes:
    """``size`` bytes of CSV-looking rows (compressible, so git stores it quickly)."""
    row = b"1,2,3,4,5,6,7\n"
    return (row * (size // len(row) + 1))[:size]


def _build(checkout: Checkout, *extra: str) -> tuple[int, dict, str]:
    done = run_installed("build", "--json", *checkout.where(), *extra, cwd=checkout.repo)
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}, done.stderr


def _census_paths(checkout: Checkout) -> list[str]:
    connection = apsw.Connection(str(checkout.index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [row[0] for row in connection.execute("SELECT path FROM census ORDER BY path")]
    finally:
        connection.close()


def test_an_oversized_data_file_is_left_out_and_counted(tmp_path: Path) -> None:
    """... and code the provider never dispatches (under ``dist/``) counts under its own rule."""
    repo = make_repo(tmp_path / "repo", {**CODE, "data/dump.csv": _oversized(OVER), "dist/bundle.js": _oversized(OVER)})
    checkout = Checkout(repo, tmp_path / "state")
    code, summary, stderr = _build(checkout)
    assert code == 0, stderr
    assert summary["completeness"] == "complete" and summary["tracked_files"] == 2
    assert summary["scope_exclusions"] == {"oversized": 1, "skipped_dir:dist": 1}
    status = json.loads(run_installed("status", "--json", *checkout.where(), cwd=repo).stdout)
    coverage = status["cm_graph"]["coverage"]
    assert coverage["scope_exclusions"] == {"oversized": 1, "skipped_dir:dist": 1}
    assert coverage["scope_excluded"] == [{"path": "data/dump.csv", "rule": "oversized"},
                                          {"path": "dist/bundle.js", "rule": "skipped_dir:dist"}]
    assert _census_paths(checkout) == ["pkg/__init__.py", "pkg/core.py"]  # no citation can name it
    table = run_installed("status", *checkout.where(), cwd=repo).stdout
    assert "oversized" in table


def test_a_file_at_the_budget_stays_in_the_census(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {**CODE, "data/dump.csv": _oversized(MAX_BLOB_BYTES)})
    census = read_census(repo, "HEAD")
    assert [entry.path for entry in census.entries] == ["data/dump.csv", "pkg/__init__.py", "pkg/core.py"]
    assert census.oversized == ()


def test_an_oversized_code_file_refuses_naming_it_and_the_flag_until_excluded(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {**CODE, "data/fixtures.json": _oversized(OVER)})
    checkout = Checkout(repo, tmp_path / "state")
    code, refusal, _ = _build(checkout)
    assert code == 1 and refusal["reason"] == "oversized", refusal
    assert "data/fixtures.json" in refusal["detail"] and "--exclude data/fixtures.json" in refusal["detail"]
    assert not (checkout.state / "graph").exists() or not list((checkout.state / "graph").glob("*/current"))
    code, summary, stderr = _build(checkout, "--exclude", "data/fixtures.json")
    assert code == 0, stderr
    assert summary["scope_exclusions"] == {"operator_exclude": 1} and summary["exclude"] == ["data/fixtures.json"]
    assert _census_paths(checkout) == ["pkg/__init__.py", "pkg/core.py"]


def test_a_glob_excludes_an_oversized_file_without_a_suffix(tmp_path: Path) -> None:
    """A suffixless file is code when its ``#!`` line says so: sniffed, then refused or left out."""
    repo = make_repo(tmp_path / "repo", {**CODE, "tools/run": b"#!/usr/bin/env python3\n" + _oversized(OVER),
                                         "blobs/raw": _oversized(OVER)})
    checkout = Checkout(repo, tmp_path / "state")
    code, refusal, _ = _build(checkout)
    assert code == 1 and "tools/run" in refusal["detail"] and "blobs/raw" not in refusal["detail"], refusal
    code, summary, stderr = _build(checkout, "--exclude", "tools/*")
    assert code == 0, stderr
    assert summary["scope_exclusions"] == {"operator_exclude": 1, "oversized": 1}
