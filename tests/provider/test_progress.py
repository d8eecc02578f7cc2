"""Build progress on a terminal, silence elsewhere, and one line on Ctrl-C.

The installed ``cm-graph`` runs as a real subprocess with its stderr on a real pseudo-terminal
(``pty``) or on a pipe; the Ctrl-C case sends a real SIGINT while a provider is running.
"""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cm_graph.generation.store import read_current

from ..generation.test_lifecycle import baseline, ijson_files, install_provider, where
from ..support.helpers import commit_all, make_repo

__all__ = ["baseline"]  # the fixture, used by name below

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
CM_GRAPH = Path(sys.executable).parent / "cm-graph"


def run_with_stderr_on_a_terminal(*args: str) -> tuple[int, bytes, bytes]:
    """Run ``cm-graph`` with stderr on a pty; return exit code, stdout and what the pty showed."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120"}
    child = subprocess.Popen([str(CM_GRAPH), *args], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    shown = bytearray()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer of the pty has gone
            break
        if not data:
            break
        shown += data
    os.close(master)
    stdout = child.stdout.read() if child.stdout else b""
    return child.wait(timeout=60), stdout, ANSI.sub(b"", bytes(shown))


@pytest.mark.provider
def test_a_terminal_shows_each_stage_and_json_or_a_pipe_shows_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    code, stdout, shown = run_with_stderr_on_a_terminal("build", "--sandbox", "off", *where(repo, tmp_path / "s"))
    assert code == 0, shown
    assert b"Generation published" in stdout
    tracked = len(ijson_files())
    stages = [b"census", f"materialise {tracked} files".encode(), b"provider running", b"pack", b"index"]
    finished = [re.search(rb"done\s+" + re.escape(stage) + rb"\s+\d+:\d\d:\d\d", shown) for stage in stages]
    assert all(finished), shown
    starts = [match.start() for match in finished if match]
    assert starts == sorted(starts), "stages are shown in the order they run"

    commit_all(repo, "same tree")
    code, _, shown = run_with_stderr_on_a_terminal("refresh", "--sandbox", "off", *where(repo, tmp_path / "s"))
    assert code == 0 and b"published without a provider run" in shown, shown

    code, stdout, shown = run_with_stderr_on_a_terminal(
        "refresh", "--sandbox", "off", "--json", *where(repo, tmp_path / "s")
    )
    assert code == 0 and stdout.startswith(b"{")
    assert shown.strip() == b"", "--json: nothing on the terminal"

    piped = subprocess.run(
        [str(CM_GRAPH), "refresh", "--sandbox", "off", *where(repo, tmp_path / "s")],
        capture_output=True, timeout=60,
    )
    assert piped.returncode == 0 and b"Generation published" in piped.stdout
    assert piped.stderr == b"", "stderr is not a terminal: no progress"


SLEEPS_AFTER_MARKING = """
import pathlib, sys, time
pathlib.Path({marker!r}).write_text("started")
time.sleep(60)
sys.exit(3)
"""


def test_ctrl_c_says_in_one_line_what_was_kept(tmp_path: Path, baseline) -> None:  # noqa: ANN001
    before = read_current(baseline).id
    marker = tmp_path / "provider-started"
    root = tmp_path / "venv"
    install_provider(root, SLEEPS_AFTER_MARKING.format(marker=str(marker)), venv=True)
    child = subprocess.Popen(
        [str(root / "bin" / "python"), "-c", "from cm_graph.cli.app import main; main()", "refresh",
         "--sandbox", "off", *where(baseline.checkout, baseline.root)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _stdout, stderr = child.communicate(timeout=30)
    assert child.returncode == 130
    assert stderr.decode().splitlines() == [
        f"cm-graph: interrupted: Nothing of this build was kept; generation {before} is still current."
    ]
    assert read_current(baseline).id == before
    assert not [e for e in os.listdir(baseline.directory) if e.endswith(".build")]
