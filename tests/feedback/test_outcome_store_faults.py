"""A damaged, foreign, full or unwritable outcome store says so in its own words (issue 25, item 10).

The outcome store is not derived state: the index's words ("An index file could not be
opened…", "run `cm-graph index --rebuild`") point at a remedy that does nothing for it. Each
fault has its own sentence, and each test runs the remedy that sentence gives and records again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest
from typer.testing import Result

from cm_graph.feedback.outcomes import (
    STORE_BUSY,
    STORE_DAMAGED,
    STORE_FOREIGN,
    STORE_FULL,
    STORE_UNWRITABLE,
    store_path,
)

from ..support.adversarial import Tmpfs, fill_disk, mount_tmpfs, unmount
from ..support.cli import assert_one_line_refusal, invoke, where
from ..support.g0 import g0_graph
from ..support.helpers import publish


class Recorder:
    """A published G0 and one answer to report on, with a fresh client name per report."""

    def __init__(self, repo: Path, state: Path) -> None:
        publish(repo, state, g0_graph())
        self.where = where(repo, state)
        self.answer = json.loads(invoke("context", "how", "load", "--json", *self.where).stdout)
        self.store = store_path(state)
        self.reports = 0

    def record(self) -> Result:
        self.reports += 1
        return invoke("feedback", "record", "--intent", "how", "--target", "load", "--answer-id",
                      self.answer["answer_id"], "--reads-avoided", "1", "--files-read", "0", "--correct",
                      "--client", f"client-{self.reports}", *self.where)

    def every_command(self) -> list[Result]:
        return [self.record(), *(invoke(*args, *self.where) for args in (
            ["feedback", "report"], ["feedback", "export"], ["feedback", "purge"], ["eval", "run"]))]


def _refused_in_its_own_words(results: list[Result], reason: str, sentence: str) -> None:
    """Each refused with ``reason`` and ``sentence`` on stderr (``feedback export``, whose output
    is always JSON, also says it on stdout), never with the index's words."""
    for result in results:
        assert result.exit_code == 1
        assert result.stderr.strip() == f"cm-graph: {reason}: {sentence}"
        assert result.stdout == "" or json.loads(result.stdout)["detail"] == sentence


@pytest.fixture
def recorder(g0_repo: Path, state_dir: Path) -> Recorder:
    recorder = Recorder(g0_repo, state_dir)
    assert recorder.record().exit_code == 0
    return recorder


def _move_aside(recorder: Recorder) -> None:
    """The damaged and foreign stores' remedy: move the file aside (kept, not deleted)."""
    recorder.store.rename(recorder.store.with_name("outcomes.sqlite.moved"))
    assert recorder.record().exit_code == 0
    assert invoke("feedback", "report", *recorder.where).exit_code == 0


@pytest.mark.parametrize("damage", ["garbage", "header"])
def test_a_damaged_store_says_so_and_moving_it_aside_mends_it(recorder: Recorder, damage: str) -> None:
    data = recorder.store.read_bytes()
    recorder.store.write_bytes(b"not sqlite " * 400 if damage == "garbage" else data[:100] + b"\xff" * 100 + data[200:])
    _refused_in_its_own_words(recorder.every_command(), "unreadable", STORE_DAMAGED)
    _move_aside(recorder)


def test_a_foreign_store_says_so_and_moving_it_aside_mends_it(recorder: Recorder) -> None:
    recorder.store.unlink()
    foreign = apsw.Connection(str(recorder.store))
    foreign.execute("PRAGMA application_id = 7; CREATE TABLE t (x)")
    foreign.close()
    recorder.store.chmod(0o600)
    _refused_in_its_own_words(recorder.every_command(), "unreadable", STORE_FOREIGN)
    _move_aside(recorder)


def test_a_store_whose_journal_cannot_be_made_says_so_and_the_fix_mends_it(recorder: Recorder) -> None:
    journal = recorder.store.with_name("outcomes.sqlite-journal")
    journal.mkdir()  # SQLite cannot open its rollback journal, as on a state directory it cannot write
    for result in (recorder.record(), invoke("feedback", "purge", *recorder.where)):
        assert_one_line_refusal(result, "io", STORE_UNWRITABLE)
    journal.rmdir()
    assert recorder.record().exit_code == 0


def test_a_store_another_process_is_writing_is_busy_never_damaged(recorder: Recorder) -> None:
    """Issue 25 sweep (feedback store): 40 recorders at once on a loaded machine, and one waited
    past SQLite's busy timeout: it was told the store is damaged and to move it aside. A store
    another writer holds is ``busy``; once that writer is done, recording works again."""
    holder = apsw.Connection(str(recorder.store))
    holder.execute("BEGIN IMMEDIATE")
    try:
        for result in (recorder.record(), invoke("feedback", "purge", *recorder.where)):
            assert_one_line_refusal(result, "busy", STORE_BUSY)
        assert invoke("feedback", "report", *recorder.where).exit_code == 0  # a reader still reads
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert recorder.record().exit_code == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Tmpfs]:
    mounted = mount_tmpfs(tmp_path / "tmpfs", 2 * 1024 * 1024)
    if isinstance(mounted, str):
        pytest.skip(mounted)
    try:
        yield mounted
    finally:
        unmount(mounted)


@pytest.mark.parametrize("leave", [0, 2048, 8192, 40_000])
def test_a_full_disk_says_so_and_freeing_space_mends_it(g0_repo: Path, small_disk: Tmpfs, leave: int) -> None:
    recorder = Recorder(g0_repo, small_disk.path / "state")
    filler = fill_disk(small_disk.path, leave)
    for result in (recorder.record(), recorder.record()):
        assert_one_line_refusal(result, "disk_full", STORE_FULL)
    os.unlink(filler)
    assert recorder.record().exit_code == 0
    assert invoke("feedback", "report", *recorder.where).exit_code == 0


def _forge(recorder: Recorder, statement: str, *bindings: object) -> None:
    """Change the store's rows by hand, as anyone who can write the file could."""
    connection = apsw.Connection(str(recorder.store))
    try:
        connection.execute(statement, bindings)
    finally:
        connection.close()


def _later_generation(recorder: Recorder, repo: Path, state: Path) -> None:
    """A commit and its generation after the case was recorded: ``eval run`` now carries the
    case's citations from its commit to the new one through ``git diff``."""
    from ..support.helpers import commit_all, write_files

    loader = repo / "example_pkg/loader.py"
    write_files(repo, {"example_pkg/loader.py": "# a line above\n" + loader.read_text()})
    commit_all(repo, "a line above everything")
    publish(repo, state, g0_graph())
    recorder.answer = json.loads(invoke("context", "how", "load", "--json", *recorder.where).stdout)  # reportable now


def test_a_case_commit_forged_into_a_git_option_writes_nothing(recorder: Recorder, g0_repo: Path, state_dir: Path,
                                                               tmp_path: Path) -> None:
    """A case's commit is handed to ``git diff``: one forged into ``--output=<file>`` must never
    reach git as an option (it would write that file)."""
    _later_generation(recorder, g0_repo, state_dir)
    target = tmp_path / "written-by-git"
    _forge(recorder, "UPDATE cases SET commit_sha = ?", f"--output={target}")
    result = invoke("eval", "run", *recorder.where)
    assert not target.exists(), "a forged case made git write a file"
    assert result.exit_code == 1
    assert result.stderr.strip() == f"cm-graph: unreadable: {STORE_FOREIGN}"


@pytest.mark.parametrize("forgery", [
    ("arguments", "not json"), ("arguments", "[1]"), ("arguments", '"an object"'),
    ("cited", '{"a": 1}'), ("cited", '[1, null, "x#L1"]'), ("cited", "[[]]"), ("commit_sha", "../../HEAD"),
])
def test_a_case_row_cm_graph_did_not_write_is_the_foreign_stores_refusal(
    recorder: Recorder, g0_repo: Path, state_dir: Path, forgery: tuple[str, str],
) -> None:
    """Rows edited by hand into shapes cm-graph never writes: each command that reads cases
    refuses in the store's own words, never a traceback; moving the store aside mends it."""
    _later_generation(recorder, g0_repo, state_dir)
    column, value = forgery
    _forge(recorder, f"UPDATE cases SET {column} = ?", value)
    results = [invoke(*args, *recorder.where) for args in (["eval", "run"], ["feedback", "export"])]
    _refused_in_its_own_words(results, "unreadable", STORE_FOREIGN)
    _move_aside(recorder)


def test_text_a_flipped_byte_left_undecodable_is_the_damaged_stores_refusal(recorder: Recorder) -> None:
    """A byte flipped inside a stored text value (not UTF-8 any more): SQLite reads the page,
    the text cannot be decoded; that is a damaged store, said in its own words."""
    _forge(recorder, "UPDATE outcomes SET target = CAST(X'6c6fee6164' AS TEXT)")
    results = [invoke(*args, *recorder.where) for args in (["feedback", "report"], ["feedback", "export"])]
    _refused_in_its_own_words(results, "unreadable", STORE_DAMAGED)
    _move_aside(recorder)
