"""Issue 31: a plain ``status`` checks the graph as a question does, against the seals, and
writes nothing; ``status --verify`` and ``audit`` hash graph.bin in full and catch a corruption
that forged seals hide from the plain one; a graph.bin changed in place is caught by either."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cm_graph.generation.store import Generation, _seal_text, read_current
from cm_graph.index.ensure import ensure_index
from cm_graph.index.seal import _read_seal, seal_path, write_seal

from ..support.g0 import g0_graph, make_g0_repo
from ..support.helpers import publish, run_installed


def _indexed(tmp_path: Path) -> tuple[Path, Path, Generation]:
    repo = make_g0_repo(tmp_path / "repo")
    state = tmp_path / "state"
    workspace = publish(repo, state, g0_graph())
    ensure_index(workspace)
    return repo, state, read_current(workspace)


def _status(repo: Path, state: Path, *flags: str) -> tuple[int, dict[str, object]]:
    done = run_installed("status", "--json", *flags, "--state-dir", state, cwd=repo)
    return done.returncode, json.loads(done.stdout)


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _identity(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns, st.st_ctime_ns


def test_plain_status_trusts_the_seals_and_rewrites_neither(tmp_path: Path) -> None:
    repo, state, generation = _indexed(tmp_path)
    index = generation.workspace.index_path(generation.id)
    assert _status(repo, state)[0] == 0
    seals = {generation.seal_path: _identity(generation.seal_path), seal_path(index): _identity(seal_path(index))}
    for flags in ((), (), ("--verify",)):
        code, value = _status(repo, state, *flags)
        assert code == 0 and value["state"] == "current" and value["search"] == "available", value
        assert {path: _identity(path) for path in seals} == seals, f"a seal was written again ({flags})"


def test_forged_seals_hide_a_corruption_from_plain_status_not_from_verify_or_audit(tmp_path: Path) -> None:
    repo, state, generation = _indexed(tmp_path)
    index = generation.workspace.index_path(generation.id)
    index_digest = _read_seal(generation.id, index)
    assert index_digest is not None
    _flip_a_byte(generation.artifact_path)
    # Someone who can write the state directory seals the damaged graph.bin as verified.
    generation._write_seal(_seal_text(os.stat(generation.artifact_path), generation.manifest.graph_digest))
    write_seal(generation, index, index_digest[0])
    code, value = _status(repo, state)
    assert code == 0 and value["state"] == "current", value  # what a plain status does not check
    code, value = _status(repo, state, "--verify")
    assert code == 1 and value["state"] == "corrupt", value
    audited = run_installed("audit", "--json", "--state-dir", state, cwd=repo)
    assert audited.returncode == 1, audited.stdout


def test_a_graph_bin_changed_in_place_is_caught_by_plain_status(tmp_path: Path) -> None:
    repo, state, generation = _indexed(tmp_path)
    _flip_a_byte(generation.artifact_path)
    for flags in ((), ("--verify",)):
        code, value = _status(repo, state, *flags)
        assert code == 1 and value["state"] == "corrupt", (flags, value)
