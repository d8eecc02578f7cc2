"""The scan worker (issue 20's build time): a large graph's text index is scanned by a second
process and the importer's thread, meeting in the middle, and the index is the same bytes as when
the importer scans alone; a worker that cannot start, dies or is killed only costs time; no worker
outlives its build, even when the build is killed.

Real git repositories, real worker processes, real SQLite files; faults are real signals.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cm_graph.generation.status import require_current
from cm_graph.index import scan_worker, text_index
from cm_graph.index.importer import build_index

from ..support.g0 import edge, node
from ..support.helpers import inventory_for, make_repo, publish

FILES = 36


def _sources() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    for number in range(FILES):
        files[f"pkg/mod_{number:02d}.py"] = (
            f'"""Module {number}: helper() in a docstring."""\n'
            f"from pkg.mod_{(number + 1) % FILES:02d} import step_{(number + 1) % FILES}\n\n\n"
            f"def step_{number}(value):\n"
            f"    return step_{(number + 1) % FILES}(value) + helper(value)  # helper again\n"
        )
        files[f"web/view_{number:02d}.js"] = (
            f"const helper = require('./helper')\nexport function render_{number}(obj) {{\n"
            f"  return obj.step_{number}(helper(obj))\n}}\n"
        )
    files["pkg/copy_a.py"] = files["pkg/mod_00.py"]  # one blob at two paths
    files["pkg/copy_b.py"] = files["pkg/mod_00.py"]
    files["pkg/huge.py"] = "helper()\n" * (2 * 1024 * 1024 // 9 + 10)  # counted, never scanned
    files["pkg/helpers.py"] = "def helper(value):\n    return value\n"
    return files


def _graph(files: dict[str, str | bytes]) -> dict[str, Any]:
    nodes = [node("helper", "helper()", "pkg/helpers.py", "L1")]
    edges = []
    for path in sorted(files):
        stem = path.rsplit("/", 1)[-1].split(".")[0].replace(" ", "_")
        nodes.append(node(f"f_{stem}", path.rsplit("/", 1)[-1], path, "L1"))
        if path.startswith("pkg/mod_"):
            number = int(stem.split("_")[1])
            nodes.append(node(f"s_{number}", f"step_{number}()", path, "L5"))
            edges.append(edge(f"f_{stem}", f"s_{number}", "contains", path=path, location="L5"))
        if path.startswith("web/"):
            number = int(stem.split("_")[1])
            nodes.append(node(f"r_{number}", f"render_{number}()", path, "L2"))
    nodes.append(node("gone", "gone()", "pkg/deleted.py", "L1"))  # a path the commit does not track
    return {"nodes": nodes, "edges": edges}


@pytest.fixture
def big_repo(tmp_path: Path, state_dir: Path) -> Any:
    files = _sources()
    repo = make_repo(tmp_path / "repo", files)
    return publish(repo, state_dir, _graph(files), inventory=inventory_for(repo, sorted(files)))


def _worker_processes() -> list[int]:
    """This process's children that are scan workers (by their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"cm_graph.index.scan_worker" in cmdline:
            found.append(int(entry.name))
    return found


def _build(generation: Any, path: Path) -> bytes:
    build_index(generation, path, seal=False)
    assert _worker_processes() == []  # reaped on return
    return path.read_bytes()


def test_the_worker_gives_the_same_index_as_the_importer_alone(big_repo: Any, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    generation = require_current(big_repo)
    alone = _build(generation, tmp_path / "alone.sqlite")
    delivered: list[int] = []
    real_poll = scan_worker.ScanWorker.poll

    def poll(self: scan_worker.ScanWorker) -> list[Any]:
        records = real_poll(self)
        delivered.extend(index for index, *_ in records)
        return records

    real_read = text_index.TextScan.read

    def read_once_the_worker_is_done(self: text_index.TextScan, *args: Any) -> Any:
        assert self._worker is not None and self._worker._child is not None
        self._worker._child.wait(timeout=60)  # so the worker, not this thread, scans every file
        return real_read(self, *args)

    monkeypatch.setattr(text_index, "WORKER_FROM_GRAPH_BYTES", 0)
    monkeypatch.setattr(scan_worker.ScanWorker, "poll", poll)
    monkeypatch.setattr(text_index.TextScan, "read", read_once_the_worker_is_done)
    with_worker = _build(generation, tmp_path / "worker.sqlite")
    # every tracked file came from the worker (pkg/deleted.py, untracked, has no record)
    assert len(set(delivered)) == len(delivered) == len(_sources()) and with_worker == alone


def test_the_worker_did_the_scanning_it_was_asked_for(big_repo: Any, tmp_path: Path) -> None:
    """Run directly, the worker answers for every tracked path asked (the deleted one has no
    record), with the lines git counts and mentions that decode to this commit's lines."""
    generation = require_current(big_repo)
    paths = sorted(_sources()) + ["pkg/deleted.py"]
    worker = scan_worker.ScanWorker(tmp_path)
    worker.request(big_repo.checkout, generation.manifest.commit, ["helper()", "render_1()"], paths)
    records: list[Any] = []
    deadline = time.monotonic() + 60
    while len(records) < len(paths) - 1 and time.monotonic() < deadline:
        records += worker.poll()
        time.sleep(0.01)
    worker.close()
    assert sorted(worker.paths[index] for index, *_ in records) == sorted(_sources())
    by_path = {worker.paths[index]: (lines, found) for index, _, lines, found in records}
    assert by_path["pkg/helpers.py"][0] == 2 and by_path["pkg/huge.py"][1] == []
    assert by_path["pkg/copy_a.py"] == by_path["pkg/copy_b.py"] == by_path["pkg/mod_00.py"]
    assert len(by_path["web/view_01.js"][1]) == 1  # helper( on line 3; the require binding is assigned


@pytest.mark.parametrize("fault", ["killed", "cannot_start", "garbage"])
def test_a_failed_worker_only_costs_time(big_repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          fault: str) -> None:
    generation = require_current(big_repo)
    alone = _build(generation, tmp_path / "alone.sqlite")
    monkeypatch.setattr(text_index, "WORKER_FROM_GRAPH_BYTES", 0)
    real_start = text_index.TextScan.start

    def start(self: text_index.TextScan, *args: Any) -> None:
        real_start(self, *args)
        worker = self._worker
        assert worker is not None
        if fault == "killed":
            assert worker._child is not None
            worker._child.send_signal(signal.SIGKILL)
        elif fault == "garbage":
            worker._output.write(b'[0, "x", 1, 99999]\nnot a record\n')
            worker._output.flush()

    if fault == "cannot_start":
        monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    monkeypatch.setattr(text_index.TextScan, "start", start)
    assert _build(generation, tmp_path / "faulty.sqlite") == alone


_KILLED_BUILD = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import require_current
from cm_graph.index import text_index
from cm_graph.index.importer import build_index
text_index.WORKER_FROM_GRAPH_BYTES = 0
def start(self, *args):
    print(self._worker._child.pid, flush=True)
    time.sleep(60)
text_index.TextScan.start = start
workspace = Workspace.locate(Path(sys.argv[2]), Path(sys.argv[3]))
build_index(require_current(workspace), Path(sys.argv[4]), seal=False)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie has exited; only its reaper is left to act)."""
    try:
        return (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_build_leaves_no_worker_running(big_repo: Any, tmp_path: Path) -> None:
    """SIGKILL of the build while its worker is up: the worker exits by itself (its request pipe
    closes, and a worker already scanning has the parent-death signal)."""
    root = Path(text_index.__file__).resolve().parents[2]
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_BUILD, str(root), str(big_repo.checkout), str(big_repo.root),
         str(tmp_path / "killed.sqlite")],
        stdout=subprocess.PIPE, text=True,
    )
    assert child.stdout is not None
    worker = int(child.stdout.readline())
    assert _running(worker)
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 10
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(worker)
    assert not (tmp_path / "killed.sqlite").exists()
