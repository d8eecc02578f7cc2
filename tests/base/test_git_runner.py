"""`gitio.run_git`: git spawned with `os.posix_spawnp` keeps what `subprocess.run` guaranteed.

Real processes only: real git on a real repository, and ordinary programs (`sleep`, `yes`) where
the case is a child that never ends or never stops writing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cm_graph.base import git as gitio
from cm_graph.base.errors import GitFailure


def open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def test_output_exit_code_and_no_leaked_descriptors(g0_repo: Path) -> None:
    before = open_fds()
    done = gitio.run_git(g0_repo, "rev-parse", "--show-toplevel")
    assert done.returncode == 0 and Path(done.stdout.decode().strip()).resolve() == g0_repo.resolve()
    failed = gitio.run_git(g0_repo, "rev-parse", "no-such-revision^{commit}", check=False)
    assert failed.returncode != 0 and failed.stdout.strip() in (b"", b"no-such-revision^{commit}")
    with pytest.raises(GitFailure):
        gitio.run_git(g0_repo, "rev-parse", "no-such-revision^{commit}")
    assert open_fds() == before


def test_git_missing_from_path_is_a_refusal(g0_repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    before = open_fds()
    with pytest.raises(GitFailure):
        gitio.run_git(g0_repo, "rev-parse", "HEAD")
    assert open_fds() == before


def test_works_when_sigchld_is_ignored(g0_repo: Path) -> None:
    """A parent that ignores SIGCHLD passes that on across exec; the child's status is then
    gone, as subprocess also accepts, but the answer is still read."""
    probe = (
        "import signal, sys\n"
        "from pathlib import Path\n"
        "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "from cm_graph.base.git import checkout_root\n"
        f"print(checkout_root(Path({str(g0_repo)!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == g0_repo.resolve()


def spawn(argv: list[str]) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    pid = os.posix_spawnp(argv[0], argv, dict(os.environ), file_actions=[(os.POSIX_SPAWN_DUP2, write_end, 1)])
    os.close(write_end)
    return pid, read_end


@pytest.mark.parametrize("argv", [["sleep", "30"], ["yes"]], ids=["silent", "never-ending output"])
def test_the_deadline_holds_whether_or_not_data_flows(argv: list[str]) -> None:
    pid, read_end = spawn(argv)
    started = time.monotonic()
    try:
        with pytest.raises(TimeoutError):
            gitio._read_until_eof(read_end, time.monotonic() + 0.3)
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(read_end)
    assert time.monotonic() - started < 5
