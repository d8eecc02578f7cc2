"""The resolved layer is one function of the blobs (issue 28 items 1 and 6): its rows do not depend on
the order the blobs come in, a worker process and the importer's own thread write the same index
bytes, a worker that dies, is killed or answers garbage only costs time, and a fault of the
resolver itself costs only the resolved layer, never the index.

Real git repositories, real worker processes, real SQLite files; faults are real signals."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import require_current
from cm_graph.index import resolve_worker, resolved_index
from cm_graph.index.importer import build_index
from cm_graph.index.pyresolve import resolve_python

from ..support.helpers import make_repo, publish
from ..support.resolvedkit import file_nodes
from .test_resolved_classes import CLASSES, TYPES
from .test_resolved_fixtures import FILES as FIXTURES
from .test_resolved_imports import FILES as IMPORTS

CORPUS: dict[str, str | bytes] = {**IMPORTS, **CLASSES, **TYPES, **FIXTURES}
BLOBS = sorted((path, text.encode() if isinstance(text, str) else text) for path, text in CORPUS.items())
IN_PATH_ORDER = resolve_python(BLOBS).to_json()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(BLOBS))
def test_the_rows_do_not_depend_on_the_order_of_the_blobs(order: list[tuple[str, bytes]]) -> None:
    assert resolve_python(order).to_json() == IN_PATH_ORDER


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    repo = make_repo(tmp_path / "repo", CORPUS)
    return publish(repo, tmp_path / "state", file_nodes(CORPUS))


def _build(workspace: Workspace, path: Path) -> bytes:
    build_index(require_current(workspace), path, seal=False)
    return path.read_bytes()


def test_a_worker_and_the_importer_write_the_same_bytes(workspace: Workspace, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    alone = _build(workspace, tmp_path / "alone.sqlite")
    answered: list[bool] = []
    real_layer = resolve_worker.ResolveWorker.layer

    def layer(self: resolve_worker.ResolveWorker, blobs: dict[str, str]) -> Any:
        got = real_layer(self, blobs)
        answered.append(got is not None)
        return got

    monkeypatch.setattr(resolved_index, "WORKER_FROM_GRAPH_BYTES", 0)
    monkeypatch.setattr(resolve_worker.ResolveWorker, "layer", layer)
    assert _build(workspace, tmp_path / "worker.sqlite") == alone
    assert answered == [True]  # the worker's rows were the ones written
    assert _build(workspace, tmp_path / "again.sqlite") == alone  # and a second derivation too


@pytest.mark.parametrize("fault", ["killed", "garbage", "cannot_start", "other_blobs"])
def test_a_failed_worker_only_costs_time(workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         fault: str) -> None:
    alone = _build(workspace, tmp_path / "alone.sqlite")
    monkeypatch.setattr(resolved_index, "WORKER_FROM_GRAPH_BYTES", 0)
    real_start = resolved_index.Resolution.start

    def start(self: resolved_index.Resolution, *args: Any) -> None:
        real_start(self, *args)
        worker = self._worker
        assert worker is not None
        if fault == "killed":
            assert worker._child is not None
            worker._child.send_signal(signal.SIGKILL)
        elif fault == "garbage":
            worker._output.write(b'[["a.py", "0"]]\nnot a layer\n')
            worker._output.flush()

    if fault == "cannot_start":
        import sys

        monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    if fault == "other_blobs":  # the worker resolved blobs the census does not name at those paths
        real_layer = resolve_worker.ResolveWorker.layer
        monkeypatch.setattr(resolve_worker.ResolveWorker, "layer",
                            lambda self, blobs: real_layer(self, {path: "0" * 40 for path in blobs}))
    monkeypatch.setattr(resolved_index.Resolution, "start", start)
    assert _build(workspace, tmp_path / "faulty.sqlite") == alone


def test_a_resolver_fault_costs_only_the_resolved_layer(workspace: Workspace, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import apsw

    good = tmp_path / "good.sqlite"
    _build(workspace, good)

    def broken(blobs: Any) -> Any:
        raise RecursionError("a resolver bug met some file")

    monkeypatch.setattr(resolved_index, "resolve_blobs", broken)
    faulty = tmp_path / "faulty.sqlite"
    _build(workspace, faulty)
    connection = apsw.Connection(str(faulty))
    connection.execute("ATTACH DATABASE ? AS good", (str(good),))
    assert {status for (status,) in connection.execute("SELECT status FROM resolved_files")} == {"failed"}
    assert connection.execute("SELECT count(*) FROM definitions").fetchall() == [(0,)]
    for table in ("nodes", "edges", "adjacency", "census", "mention_names"):  # the rest is as ever
        assert connection.execute(f"SELECT * FROM {table} EXCEPT SELECT * FROM good.{table}").fetchall() == []
    connection.close()
