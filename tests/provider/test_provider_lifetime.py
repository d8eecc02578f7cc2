"""The provider dies with cm-graph, on every path, workers included (issue 12, item 9).

A real ``cm-graph refresh`` runs the real pinned provider on a real git repository big enough
that graphify starts its worker pool. Once the provider *and* a worker are running, cm-graph is
killed (SIGKILL, which runs none of its cleanup; SIGTERM, which it can catch), and within a few
seconds no process of that run may remain. A run's processes are the descendants of the
cm-graph process while it lives (keeper, bwrap, graphify, workers) and, after the kill, every
process still in one of their sessions (the keeper leads a new one, so an orphan re-parented to
init is still found by its session id).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cm_graph.provider.run import bwrap_path

from ..support.helpers import make_repo

CM_GRAPH = Path(sys.executable).parent / "cm-graph"
GONE_WITHIN_SECONDS = 5.0
START_WITHIN_SECONDS = 60.0

pytestmark = [
    pytest.mark.provider,
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc"),
]


def _module(index: int) -> str:
    functions = "".join(
        f"def f{index}_{n}(value):\n    return helper_{n}(value) + {n}\n\n\n"
        f"def helper_{n}(value):\n    return [value] * {n}\n\n\n"
        for n in range(40)
    )
    header = f'"""Module {index}."""\n\n\nclass C{index}:\n    def run(self):\n        return f{index}_0(1)\n\n\n'
    return header + functions


@pytest.fixture(scope="module")
def busy_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough files (graphify parallelises from 20 on) that the provider forks workers."""
    base = tmp_path_factory.mktemp("lifetime")
    return make_repo(base / "repo", {f"pkg/m{i:03}.py": _module(i) for i in range(120)})


def _processes() -> dict[int, tuple[int, int, bytes]]:
    """pid -> (parent pid, session id, cmdline) of every live, non-zombie process."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[-1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if fields[0] != b"Z":
            found[int(entry)] = (int(fields[1]), int(fields[3]), cmdline)
    return found


def _descendants(root: int) -> dict[int, tuple[int, int, bytes]]:
    table = _processes()
    family, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, row in table.items():
            if row[0] == parent and pid not in family:
                family[pid] = row
                frontier.append(pid)
    return family


def _left_of(run: dict[int, tuple[int, int, bytes]]) -> dict[int, bytes]:
    """What of a run is still alive: its pids, and anything in one of its sessions."""
    sessions = {row[1] for row in run.values()}
    return {pid: row[2] for pid, row in _processes().items() if pid in run or row[1] in sessions}


def _graphify_count(processes: dict[int, tuple[int, int, bytes]]) -> int:
    commands = [cmdline for _, _, cmdline in processes.values()]
    return sum(1 for cmdline in commands if b"graphify" in cmdline and b"provider_keeper" not in cmdline)


def _kill_while_provider_runs(repo: Path, state: Path, sandbox: str, signum: int) -> dict[int, bytes]:
    """Start ``cm-graph refresh``, wait for the provider and a worker, send ``signum`` to
    cm-graph, and return whatever of the run is still alive a few seconds later."""
    child = subprocess.Popen(
        [str(CM_GRAPH), "refresh", "--repo-path", str(repo), "--state-dir", str(state), "--sandbox", sandbox],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + START_WITHIN_SECONDS
        run: dict[int, tuple[int, int, bytes]] = {}
        while _graphify_count(run) < 2:  # graphify and one of its workers
            run = _descendants(child.pid)
            assert child.poll() is None, "cm-graph ended before the provider's workers started"
            assert time.monotonic() < deadline, "the provider's workers never started"
            time.sleep(0.01)
        child.send_signal(signum)
        child.wait(timeout=30)
        deadline = time.monotonic() + GONE_WITHIN_SECONDS
        while (left := _left_of(run)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return left
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        for pid in _left_of(run) if run else ():  # never leave a stray behind for the next test
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert child.stderr is not None
        stderr = child.stderr.read().decode(errors="replace")
        child.stderr.close()
        assert "Traceback" not in stderr, stderr


SANDBOXES = ["off", pytest.param("required", marks=pytest.mark.skipif(
    bwrap_path() is None, reason="bubblewrap is not installed"))]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_sigkill_of_cm_graph_kills_the_provider_and_its_workers(
    busy_repo: Path, tmp_path: Path, sandbox: str
) -> None:
    left = _kill_while_provider_runs(busy_repo, tmp_path / "state", sandbox, signal.SIGKILL)
    assert left == {}, f"still running after SIGKILL of cm-graph: {left}"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_polite_stop_of_cm_graph_stops_the_provider_and_cleans_scratch(
    busy_repo: Path, tmp_path: Path, signum: int
) -> None:
    state = tmp_path / "state"
    left = _kill_while_provider_runs(busy_repo, state, "off", signum)
    assert left == {}, f"still running after {signal.Signals(signum).name}: {left}"
    assert not list(state.rglob("*.build")), "the caught signal left the build's scratch behind"
