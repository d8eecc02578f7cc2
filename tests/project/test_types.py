"""The package type-checks clean, and CI holds it so: ``mypy cm_graph`` (configured in
pyproject.toml) reports nothing, and ``.ci/run`` runs it after ruff and before the tests.

The two typed helpers the checker leans on are held to their run-time behaviour here too: rows
read through ``base/sqlrows.py`` are exactly what apsw's ``fetchall()`` gives, and
``records.replaced`` is a named tuple's ``_replace``.
"""

from __future__ import annotations

from pathlib import Path

import apsw
from mypy import api as mypy_api

from cm_graph.base.records import record, replaced
from cm_graph.base.sqlrows import fetch_rows, fetch_value

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_reports_no_error_in_the_package(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # pyproject.toml's [tool.mypy] is read from here
    stdout, stderr, status = mypy_api.run(["--cache-dir", str(tmp_path / "cache"), "cm_graph"])
    assert (status, stderr) == (0, ""), stdout
    assert stdout.startswith("Success: no issues found")


def test_ci_runs_mypy_after_ruff_and_before_the_tests() -> None:
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    order = [steps.index(step) for step in
             ("ruff check cm_graph tests benchmarks", "mypy cm_graph", readme_test_command())]
    assert order == sorted(order)


def readme_test_command() -> str:
    """The README's second fenced command: the one line it tells a new user runs the tests."""
    blocks = (ROOT / "README.md").read_text(encoding="utf-8").split("```")[1::2]
    return blocks[1].strip()


def test_ci_ends_with_exactly_the_readme_test_command() -> None:
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert readme_test_command().startswith("python -m pytest")
    assert [step for step in steps if step][-1] == readme_test_command()


def test_typed_rows_are_the_rows_apsw_reads(tmp_path: Path) -> None:
    connection = apsw.Connection(str(tmp_path / "rows.sqlite"))
    try:
        connection.execute("PRAGMA user_version = 7")
        connection.execute("CREATE TABLE t (n INTEGER, s TEXT)")
        connection.executemany("INSERT INTO t VALUES (?, ?)", [(2, "b"), (1, None), (3, "c")])
        query = "SELECT n, s FROM t ORDER BY n"
        assert fetch_rows(connection.execute(query), tuple[int, str | None]) == connection.execute(query).fetchall()
        assert fetch_rows(connection.execute(query), tuple[int, str | None]) == [(1, None), (2, "b"), (3, "c")]
        assert fetch_rows(connection.execute("SELECT n FROM t WHERE n > 9"), tuple[int]) == []
        assert fetch_value(connection.execute("PRAGMA user_version"), int) == 7
    finally:
        connection.close()


@record
class _Pair:
    left: int
    right: str = "r"


def test_replaced_changes_only_the_named_fields() -> None:
    pair = _Pair(1)
    changed = replaced(pair, right="s")
    assert changed == _Pair(1, "s") and type(changed) is _Pair
    assert pair == _Pair(1, "r")
