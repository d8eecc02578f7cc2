"""Change coupling (issue 16 item 4): code-maat's degree over the bound commit's ancestry."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import apsw

from cm_graph.context.coupling import history_path, read_log
from cm_graph.context.from_workspace import build_history_for
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current
from cm_graph.index.ensure import ensure_index

from ..support.contextkit import ask_context, published
from ..support.g0 import edge, node
from ..support.helpers import commit_all, git, make_repo, numbered_lines, run_installed, write_files


def _graph() -> dict[str, Any]:
    nodes = [node(f"n-{name}", f"{name}()", f"pkg/{name}.py", "L2") for name in ("a", "b", "c", "d")]
    return {"nodes": nodes, "edges": [edge("n-d", "n-a", "calls", path="pkg/d.py", location="L3")],
            "hyperedges": [], "input_tokens": 0, "output_tokens": 0, "extracted_sources": []}


def _history_repo(root: Path) -> Path:
    """a and b change together 6 times (b alone once more), d with a 5 times (but d calls a),
    c twice; the lockfile changes with a and b; one 40-file commit touches everything."""
    repo = make_repo(root, {f"pkg/{n}.py": numbered_lines(5) for n in "abcd"} | {"package-lock.json": "{}\n"})
    for i in range(6):
        write_files(repo, {"pkg/a.py": numbered_lines(6 + i), "pkg/b.py": numbered_lines(6 + i),
                           "package-lock.json": f"{{\"v\": {i}}}\n"})
        commit_all(repo, f"a and b {i}")
    write_files(repo, {"pkg/b.py": numbered_lines(3)})
    commit_all(repo, "b alone")
    for i in range(5):
        write_files(repo, {"pkg/a.py": numbered_lines(20 + i), "pkg/d.py": numbered_lines(20 + i)})
        commit_all(repo, f"a and d {i}")
    for i in range(2):
        write_files(repo, {"pkg/c.py": numbered_lines(30 + i)})
        commit_all(repo, f"c {i}")
    write_files(repo, {f"gen/f{i}.py": f"{i}\n" for i in range(36)} | {f"pkg/{n}.py": "x\n" for n in "abcd"})
    commit_all(repo, "a wide change set")
    write_files(repo, {f"pkg/{n}.py": numbered_lines(5) for n in "abcd"})
    commit_all(repo, "restore")
    return repo


def test_section_waits_for_the_history_then_reports_code_maat_degrees(tmp_path: Path, state_dir: Path) -> None:
    workspace = published(_history_repo(tmp_path / "repo"), state_dir, _graph())
    before = ask_context(workspace, "impact", "a")
    assert before["sections"]["change_coupling"]["reason"] == "history_not_built"
    assert "change_coupling" not in before["used_primitives"]  # nothing read the history
    summary = build_history_for(workspace)
    assert summary["changesets_dropped"] == 1 and summary["commits_read"] == 17 and not summary["shallow"]
    document = ask_context(workspace, "impact", "a")
    section = document["sections"]["change_coupling"]
    assert document["used_primitives"] == ["change_coupling", "impact", "related_tests", "text_mentions"]
    # a: initial + 6 + 5 + restore = 13 revisions; b: 1 + 6 + 1 + 1 = 9; shared 8 → 8 / 11 = 72 %.
    # d: 1 + 5 + 1 = 7, all shared with a → 7 / 10 = 70 %. The lockfile is filtered, the wide
    # commit (40 files) dropped.
    assert [(i["path"], i["shared"], i["revs"], i["degree"]) for i in section["items"]] == [
        ("pkg/b.py", 8, 9, 72), ("pkg/d.py", 7, 7, 70),
    ]
    assert section["parameters"]["changesets_dropped"] == 1 and section["parameters"]["min_revs"] == 5
    hidden = document["sections"]["hidden_coupling"]
    assert [i["path"] for i in hidden["items"]] == ["pkg/b.py"]  # d calls a: a graph path explains it
    assert "with no graph path between them" in document["answer"]
    small = ask_context(workspace, "impact", "c")["sections"]["change_coupling"]
    assert (small["status"], small["reason"]) == ("empty", "insufficient_history")
    assert "changed in 4 of the 17 commits" in small["detail"] and "not evidence of no coupling" in small["detail"]


def test_incremental_history_equals_a_full_read(tmp_path: Path, state_dir: Path) -> None:
    repo = _history_repo(tmp_path / "repo")
    first = published(repo, state_dir, _graph())
    build_history_for(first)
    for i in range(3):
        write_files(repo, {"pkg/a.py": numbered_lines(50 + i), "pkg/c.py": numbered_lines(50 + i)})
        commit_all(repo, f"more {i}")
    second = published(repo, state_dir, _graph())  # a new generation, the old one kept
    incremental = build_history_for(second)
    assert incremental["commits_reused"] == 17 and incremental["commits_read"] == 20
    path = _history_of(second)
    kept = path.read_bytes()
    for other in path.parent.glob("*.history.sqlite"):
        other.unlink()
    full = build_history_for(second)
    assert full["commits_reused"] == 0
    assert path.read_bytes() == kept


def _history_of(workspace: Workspace) -> Path:
    from cm_graph.generation.store import read_current

    return history_path(workspace.index_path(read_current(workspace).id))


def test_a_shallow_clone_is_unavailable(tmp_path: Path, state_dir: Path) -> None:
    source = _history_repo(tmp_path / "source")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{source}", str(clone)], check=True)
    git(clone, "config", "user.email", "test@example.invalid")
    workspace = published(clone, state_dir, _graph())
    assert build_history_for(workspace)["shallow"] is True
    section = ask_context(workspace, "impact", "a")["sections"]["change_coupling"]
    assert (section["status"], section["reason"]) == ("unavailable", "history_truncated")


# The real `cm-graph context history`, frozen (SIGSTOP) by a profiler at the second executemany of
# its write, inside the transaction: its temp file and the journal exist and its owner lives.
FROZEN_IN_ITS_WRITE = """
import os, signal, sys
calls = []
def freeze(frame, event, arg):
    if event == "c_call" and getattr(arg, "__name__", "") == "executemany" and frame.f_code.co_name == "_write":
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGSTOP)
sys.setprofile(freeze)
sys.argv = ["cm-graph", "context", "history", *sys.argv[1:]]
from cm_graph.cli.app import main
main()
"""


def _history_scratch(workspace: Workspace) -> list[str]:
    return sorted(name for name in os.listdir(workspace.indexes_dir)
                  if ".history.sqlite." in name and not name.endswith(".history.sqlite.seal"))


def test_a_history_writer_killed_mid_write_is_swept_and_a_live_ones_file_is_not(
        tmp_path: Path, state_dir: Path) -> None:
    """Issue 25 item 12: a SIGKILLed ``context history`` left ``.<gen>.history.sqlite.<token>.tmp``
    and its journal for good; now the next command sweeps them, never while the writer lives."""
    workspace = published(_history_repo(tmp_path / "repo"), state_dir, _graph())
    ensure_index(workspace)
    where = ["--repo-path", str(workspace.checkout), "--state-dir", str(state_dir)]
    writer = subprocess.Popen([sys.executable, "-c", FROZEN_IN_ITS_WRITE, *where],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _, status = os.waitpid(writer.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), "the writer ended instead of stopping inside its write"
        left = _history_scratch(workspace)
        generation = read_current(workspace).id
        assert [name.split(".")[1:4] + name.split(".")[5:] for name in left] == [
            [generation, "history", "sqlite", "tmp"], [generation, "history", "sqlite", "tmp-journal"]], left
        for command in ("status", "context history"):  # both sweep; the live writer's files stay
            assert run_installed(*command.split(), *where, cwd=workspace.checkout).returncode == 0
            assert _history_scratch(workspace) == left, f"{command} removed a live writer's file"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert history_path(workspace.index_path(generation)).is_file()  # the second writer's
    assert run_installed("status", *where, cwd=workspace.checkout).returncode == 0
    assert _history_scratch(workspace) == [], "the killed writer's temp file and journal outlived it"
    assert os.listdir(workspace.directory / "owners") == [], "and its owner record"


def test_the_log_reader_keeps_every_name_whatever_bytes_it_holds(tmp_path: Path) -> None:
    """Issue 25 sweep (history): ``read_log`` split git's output on \\x01, which a tracked name may
    hold: a name ``a\\x01<ASCII>`` became a commit of its own (a name not UTF-8 after it crashed
    ``context history``). Each commit and each of its names must come back as git recorded them."""
    names = ["notes/a\x01deadbeef.txt", "notes/\x01" + "0" * 40, "\n:100644 M", ":lead", "plain.txt"]
    repo = make_repo(tmp_path / "repo", {names[0]: "1\n"})
    first = git(repo, "rev-parse", "HEAD")
    write_files(repo, {name: "2\n" for name in names})
    second = commit_all(repo, "every name at once")
    empty = commit_all(repo, "nothing")
    assert read_log(repo, ["HEAD"], 10) == [(empty, ()), (second, tuple(sorted(names))), (first, (names[0],))]


def test_a_history_writer_whose_generation_is_removed_meanwhile_says_absent_not_damaged(
        tmp_path: Path, state_dir: Path) -> None:
    """Issue 25 sweep (concurrency): ``context history`` writing while ``remove`` took its
    generation said unreadable, read_only or missing (damage that is not there). A writer whose
    generation stopped being current meanwhile answers as every reader does: the graph changed."""
    workspace = published(_history_repo(tmp_path / "repo"), state_dir, _graph())
    ensure_index(workspace)
    where = ["--repo-path", str(workspace.checkout), "--state-dir", str(state_dir)]
    writer = subprocess.Popen([sys.executable, "-c", FROZEN_IN_ITS_WRITE, *where],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, status = os.waitpid(writer.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), "the writer ended instead of stopping inside its write"
        removed = run_installed("remove", *where, cwd=workspace.checkout)
        assert removed.returncode == 0, removed.stderr
        writer.send_signal(signal.SIGCONT)
        _, stderr = writer.communicate(timeout=120)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert stderr.strip().startswith("cm-graph: absent: The graph was being replaced or removed"), stderr
    assert writer.returncode == 1, stderr


def test_a_history_file_edited_after_it_was_written_is_not_answered(tmp_path: Path, state_dir: Path) -> None:
    """Issue 25 sweep (history): the history file had no seal, so counts edited in it were
    answered as git's, and a text byte flipped in it crashed ``context impact`` (UnicodeDecodeError).
    An edited history counts as not built (its remedy, ``context history``, writes it again)."""
    workspace = published(_history_repo(tmp_path / "repo"), state_dir, _graph())
    build_history_for(workspace)
    path = history_path(workspace.index_path(read_current(workspace).id))
    edited = apsw.Connection(str(path))
    edited.execute("UPDATE pairs SET shared = shared + 3")
    edited.close()
    section = ask_context(workspace, "impact", "a")["sections"]["change_coupling"]
    assert (section["reason"], section["shown"], section["items"]) == ("history_not_built", 0, []), section
    build_history_for(workspace)
    assert ask_context(workspace, "impact", "a")["sections"]["change_coupling"]["items"][0]["shared"] == 8
