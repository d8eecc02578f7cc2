"""The tests are laid out by stage: ``tests/<stage>/`` mirrors ``cm_graph/<stage>/``, whole-repository
checks sit in ``tests/project/``, shared helpers in ``tests/support/``, and a test file that grows
past ``MAX_TEST_FILE_LINES`` is split by topic (as ``tests/index/test_document_*.py`` were)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
STAGES = {path.parent.name for path in (ROOT / "cm_graph").glob("*/__init__.py")}
MAX_TEST_FILE_LINES = 1000


def test_every_test_file_sits_in_its_stage_directory() -> None:
    misplaced = sorted(
        path.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*.py")
        if path.parent.parent != TESTS or path.parent.name not in STAGES | {"project"}
    )
    assert misplaced == [], "move it to tests/<stage>/ (its imports become ..support.*)"
    at_the_top = sorted(path.name for path in TESTS.glob("*.py"))
    assert at_the_top == ["__init__.py", "conftest.py"], "a shared helper belongs in tests/support/"


def test_every_stage_has_its_test_directory() -> None:
    assert STAGES <= {path.name for path in TESTS.iterdir() if (path / "__init__.py").is_file()}


def test_no_test_file_outgrows_one_topic() -> None:
    long = {
        path.relative_to(TESTS).as_posix(): count for path in sorted(TESTS.rglob("test_*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_TEST_FILE_LINES
    }
    assert long == {}, "split it by topic"
