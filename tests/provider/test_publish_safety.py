"""Nothing lost: a graph is validated before it is published, a partial build never replaces or
prunes the last usable generation, a full disk is a clean ``io`` refusal, concurrent builds and
killed builds leave no one else's files damaged, and the index carries an integrity seal.

Everything runs the installed console script against real git repositories and real state dirs.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cm_graph.base.errors import Refusal
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current, read_generation
from cm_graph.provider.build import build
from cm_graph.provider.run import verify_provider

from ..generation.test_lifecycle import assert_untouched, baseline, install_provider, ok_body  # noqa: F401 - a fixture
from ..support.cli import where
from ..support.g0 import g0_graph
from ..support.helpers import CM_GRAPH, code_paths, inventory_for, run_installed, write_output


def read_attempt(workspace: Workspace):  # type: ignore[no-untyped-def]
    """The generation the ``attempt`` pointer names (read as a file: the layout is the contract)."""
    path = workspace.directory / "attempt"
    return read_generation(workspace, path.read_text().strip()) if path.exists() else None


def good_output(repo: Path, directory: Path) -> Path:
    return write_output(directory, g0_graph(), inventory_for(repo, code_paths(repo)))


def build_from(repo: Path, state: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_installed("build", "--from-graph", out, *where(repo, state), *extra, cwd=repo)


def answer(repo: Path, state: Path) -> str:
    done = run_installed("ask", "impact", "parse_config", *where(repo, state), cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout


def hidden_leftovers(workspace: Workspace) -> list[str]:
    """Scratch names (dot-files and directories) anywhere in the workspace."""
    found = []
    for _directory, dirs, files in os.walk(workspace.directory):
        for name in [*files, *dirs]:
            if name.startswith("."):
                found.append(name)
    return sorted(found)


def state_of(workspace: Workspace) -> tuple[str, list[str], list[str]]:
    return (
        workspace.current_pointer.read_text(),
        sorted(os.listdir(workspace.generations_dir)),
        sorted(os.listdir(workspace.indexes_dir)),
    )


@pytest.fixture
def built(g0_repo: Path, state_dir: Path, tmp_path: Path) -> Workspace:
    """G0 built through ``build --from-graph``: current, indexed, answering."""
    done = build_from(g0_repo, state_dir, good_output(g0_repo, tmp_path / "good"))
    assert done.returncode == 0, done.stderr
    return Workspace.locate(g0_repo, state_dir)


def test_a_truncated_graph_is_refused_before_anything_is_published(built: Workspace, tmp_path: Path) -> None:
    repo, state = built.checkout, built.root
    before, previous = answer(repo, state), state_of(built)
    out = good_output(repo, tmp_path / "truncated")
    graph = out / "graph.json"
    graph.write_bytes(graph.read_bytes()[:1000])  # head -c 1000

    done = build_from(repo, state, out)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("cm-graph: unreadable: "), done.stderr
    assert done.stdout == ""
    assert state_of(built) == previous, "a refused graph must publish, prune and replace nothing"
    assert hidden_leftovers(built) == []
    status = run_installed("status", "--json", *where(repo, state), cwd=repo)
    assert status.returncode == 0 and json.loads(status.stdout)["state"] == "current"
    assert answer(repo, state) == before


def test_a_graph_the_reader_cannot_consume_is_refused_before_publishing(built: Workspace, tmp_path: Path) -> None:
    """Any importer refusal, not only a parse error: here a record that is not an object."""
    repo, state = built.checkout, built.root
    previous = state_of(built)
    graph = g0_graph()
    graph["nodes"].append(None)
    out = write_output(tmp_path / "bad", graph, inventory_for(repo, code_paths(repo)))
    done = build_from(repo, state, out)
    assert done.returncode == 1 and done.stderr.startswith("cm-graph: unreadable: ")
    assert state_of(built) == previous
    assert hidden_leftovers(built) == []


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_while_publishing_is_an_io_refusal_and_keeps_the_previous_generation(
    built: Workspace, tmp_path: Path
) -> None:
    """A real write fault: the child may write no file larger than 4 KiB, so packing graph.bin
    (a tar of graph.json padded to 10 KiB) fails with EFBIG, as a full disk fails with ENOSPC."""
    repo, state = built.checkout, built.root
    before, previous = answer(repo, state), state_of(built)
    out = good_output(repo, tmp_path / "again")
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    done = subprocess.run(
        [str(CM_GRAPH), "build", "--from-graph", str(out), *where(repo, state)],
        cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False,
        preexec_fn=lambda: _limit_file_size(4096),  # noqa: PLW1509 - a limit for this child only
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.startswith("cm-graph: disk_full: The disk filled up while publishing"), done.stderr
    assert "Traceback" not in done.stderr and str(state) not in done.stderr
    assert state_of(built) == previous
    assert hidden_leftovers(built) == []
    assert answer(repo, state) == before


def _mount_tmpfs(directory: Path, size: str) -> bool:
    directory.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(directory)],
        capture_output=True, check=False,
    )
    return done.returncode == 0


def test_a_full_tmpfs_while_indexing_is_an_io_refusal(g0_repo: Path, tmp_path: Path) -> None:
    """A real full disk: a small tmpfs state dir holds the first G0 generation but not a large
    second graph's index; the refusal is ``io`` and the first generation stays current."""
    state = tmp_path / "small"
    if not _mount_tmpfs(state, "600k"):
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        done = build_from(g0_repo, state, good_output(g0_repo, tmp_path / "good"))
        assert done.returncode == 0, done.stderr
        workspace = Workspace.locate(g0_repo, state)
        before, previous = answer(g0_repo, state), state_of(workspace)
        graph = g0_graph()
        # Many symbols on real lines: graph.bin compresses nothing, so it and the index exceed the disk.
        graph["nodes"].extend(
            {"id": f"n-{n}", "label": f"symbol_{n}_{'x' * 40}", "file_type": "code",
             "source_file": "example_pkg/config.py", "source_location": f"L{1 + n % 40}"}
            for n in range(3000)
        )
        out = write_output(tmp_path / "large", graph, inventory_for(g0_repo, code_paths(g0_repo)))
        done = build_from(g0_repo, state, out)
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert done.stderr.startswith("cm-graph: disk_full: The disk filled up while "), done.stderr
        assert "Traceback" not in done.stderr
        assert state_of(workspace) == previous
        assert hidden_leftovers(workspace) == []
        assert answer(g0_repo, state) == before
    finally:
        subprocess.run(["umount", str(state)], check=False)


def partial_output(repo: Path, directory: Path) -> Path:
    """G0 whose inventory lacks one code input: the build comes out partial."""
    paths = code_paths(repo)
    return write_output(directory, g0_graph(), inventory_for(repo, paths[1:]))


def test_a_partial_build_never_replaces_or_prunes_the_usable_generation(built: Workspace, tmp_path: Path) -> None:
    repo, state = built.checkout, built.root
    kept = read_current(built).id
    before = answer(repo, state)

    done = build_from(repo, state, partial_output(repo, tmp_path / "partial"), "--json")
    assert done.returncode == 1, "a partial build is published but the command fails"
    summary = json.loads(done.stdout)
    assert summary["completeness"] == "partial" and summary["usable"] is False
    attempt = read_attempt(built)
    assert attempt is not None and attempt.id == summary["generation"] != kept
    assert read_current(built).id == kept
    assert sorted(os.listdir(built.generations_dir)) == sorted([kept, attempt.id])
    assert answer(repo, state) == before

    status = run_installed("status", "--json", *where(repo, state), cwd=repo)
    value = json.loads(status.stdout)
    assert status.returncode == 0 and value["state"] == "current" and value["build"]["generation"] == kept
    assert value["cm_graph"]["last_build"]["generation"] == attempt.id
    assert value["cm_graph"]["last_build"]["completeness"] == "partial"
    assert value["cm_graph"]["last_build"]["kept_generation"] == kept
    assert value["cm_graph"]["last_build"]["partial_because"] == ["1 code inputs are missing"]
    assert value["cm_graph"]["last_build"]["summary"] == (
        f"The build of {attempt.manifest.commit} came out partial: 1 code inputs are missing; "
        f"the current generation {kept} for {read_current(built).manifest.commit} is kept."
    )
    human = run_installed("status", *where(repo, state), cwd=repo)
    text = " ".join(human.stdout.replace("│", " ").split())
    assert "came out partial: 1 code inputs are missing; the current generation" in text
    assert "cm-graph refresh" in text

    # A second partial attempt replaces the first one, never the kept generation.
    again = build_from(repo, state, partial_output(repo, tmp_path / "partial-2"), "--json")
    second = json.loads(again.stdout)["generation"]
    assert sorted(os.listdir(built.generations_dir)) == sorted([kept, second])
    assert read_current(built).id == kept

    # A complete build becomes current and prunes both; the attempt record goes with them.
    fixed = build_from(repo, state, good_output(repo, tmp_path / "fixed"), "--json")
    assert fixed.returncode == 0
    new = json.loads(fixed.stdout)["generation"]
    assert os.listdir(built.generations_dir) == [new] and read_current(built).id == new
    assert read_attempt(built) is None
    assert "last_build" not in json.loads(run_installed("status", "--json", *where(repo, state), cwd=repo).stdout)


def test_a_partial_build_becomes_current_when_nothing_usable_is(g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    done = build_from(g0_repo, state_dir, partial_output(g0_repo, tmp_path / "partial"), "--json")
    assert done.returncode == 1
    workspace = Workspace.locate(g0_repo, state_dir)
    assert read_current(workspace).id == json.loads(done.stdout)["generation"]
    assert read_attempt(workspace) is None


def test_keep_previous_keeps_every_generation(built: Workspace, tmp_path: Path) -> None:
    repo, state = built.checkout, built.root
    kept = read_current(built).id
    build_from(repo, state, partial_output(repo, tmp_path / "p1"), "--keep-previous")
    build_from(repo, state, partial_output(repo, tmp_path / "p2"), "--keep-previous")
    assert len(os.listdir(built.generations_dir)) == 3 and read_current(built).id == kept


# --- concurrent builds, killed builds, orphaned indexes -------------------------------------


def test_concurrent_builds_from_graph_each_complete_and_leave_one_whole_generation(
    built: Workspace, tmp_path: Path
) -> None:
    repo, state = built.checkout, built.root
    before = answer(repo, state)
    outs = [good_output(repo, tmp_path / f"out-{n}") for n in range(6)]
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    rounds = []
    for pair in (outs[0:2], outs[2:4], outs[4:6]):
        children = [
            subprocess.Popen(
                [str(CM_GRAPH), "build", "--from-graph", str(out), *where(repo, state), "--json"],
                cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            for out in pair
        ]
        results = [(child.communicate(timeout=120), child.returncode) for child in children]
        rounds.append([(code, stderr.strip()) for (_out, stderr), code in results])
        published = {json.loads(stdout)["generation"] for (stdout, _err), code in results if code == 0}
        current = read_current(built).id
        assert current in published and os.listdir(built.generations_dir) == [current]
        assert answer(repo, state) == before
    assert rounds == [[(0, ""), (0, "")]] * 3, "every build of every pair must complete"
    current = read_current(built).id
    assert sorted(os.listdir(built.indexes_dir)) == sorted(
        f"{current}{suffix}" for suffix in (".sqlite", ".sqlite.seal", ".seal")
    )
    assert hidden_leftovers(built) == []


def large_output(repo: Path, directory: Path, nodes: int) -> Path:
    graph = g0_graph()
    graph["nodes"].extend(
        {"id": f"n-{n}", "label": f"symbol_{n}", "file_type": "code",
         "source_file": "example_pkg/config.py", "source_location": f"L{1 + n % 40}"}
        for n in range(nodes)
    )
    graph["edges"].extend(
        {"source": f"n-{n}", "target": f"n-{n + 1}", "relation": "calls", "confidence": "EXTRACTED",
         "source_file": "example_pkg/config.py", "source_location": f"L{1 + n % 40}"}
        for n in range(nodes - 1)
    )
    return write_output(directory, graph, inventory_for(repo, code_paths(repo)))


def test_the_scratch_of_a_killed_build_is_swept_by_the_next_status(built: Workspace, tmp_path: Path) -> None:
    """A real build --from-graph, SIGKILLed while its staging and index scratch exist."""
    repo, state = built.checkout, built.root
    previous = state_of(built)
    out = large_output(repo, tmp_path / "large", 60_000)
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    child = subprocess.Popen(
        [str(CM_GRAPH), "build", "--from-graph", str(out), *where(repo, state)],
        cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not any(".tmp" in name for name in hidden_leftovers(built)):
        assert child.poll() is None, "the build ended before its index scratch was seen"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert hidden_leftovers(built) != [], "the kill left no scratch"

    status = run_installed("status", "--json", *where(repo, state), cwd=repo)
    assert status.returncode == 0, status.stdout
    assert hidden_leftovers(built) == [], "status must sweep a dead build's scratch"
    assert os.listdir(built.directory / "owners") == [], "the dead owner's record goes too"
    assert state_of(built) == previous


LIVE_BUILDER = """
import sys, time
from pathlib import Path
from cm_graph.generation.layout import Workspace
from cm_graph.provider.run import verify_provider
from cm_graph.generation.scratch import scratch_owner
workspace = Workspace.locate(Path(sys.argv[1]), Path(sys.argv[2]))
with scratch_owner(workspace) as token:
    (workspace.directory / f".{token}.build").mkdir(mode=0o700)
    (workspace.directory / f".{token}.build" / "source").write_text("copy of the commit")
    gen = "f" * 32
    (workspace.indexes_dir / f".{gen}.sqlite.{token}.tmp").write_bytes(b"")
    print(token, flush=True)
    time.sleep(120)
"""


def test_a_live_builds_scratch_survives_a_concurrent_status(built: Workspace) -> None:
    repo, state = built.checkout, built.root
    live = subprocess.Popen(
        [sys.executable, "-c", LIVE_BUILDER, str(repo), str(state)], stdout=subprocess.PIPE, text=True,
    )
    try:
        assert live.stdout is not None
        token = live.stdout.readline().strip()
        assert len(token) == 32
        mine = sorted(hidden_leftovers(built))
        assert mine == sorted([f".{token}.build", f".{'f' * 32}.sqlite.{token}.tmp"])
        for command in ("status", "doctor"):
            run_installed(command, *where(repo, state), cwd=repo)
            assert sorted(hidden_leftovers(built)) == mine, f"{command} removed a live build's scratch"
    finally:
        live.send_signal(signal.SIGKILL)
        live.wait()
    run_installed("status", *where(repo, state), cwd=repo)
    assert hidden_leftovers(built) == [], "once its owner is dead the scratch is swept"


def test_orphaned_indexes_are_removed_by_prune_and_by_doctor(built: Workspace, tmp_path: Path) -> None:
    """The reference prunes generations/ only; the index files it leaves behind are ours to remove."""
    repo, state = built.checkout, built.root
    kept = read_current(built).id
    orphan = "e" * 32
    for suffix in (".sqlite", ".sqlite.seal", ".seal"):
        (built.indexes_dir / f"{orphan}{suffix}").write_bytes(b"left by a pruned generation")
    doctor = run_installed("doctor", "--json", *where(repo, state), cwd=repo)
    check = {c["check"]: c for c in json.loads(doctor.stdout)["checks"]}["orphaned-indexes"]
    assert check["status"] == "pass" and check["message"].startswith("Removed 3 index file(s)")
    assert sorted(os.listdir(built.indexes_dir)) == sorted(f"{kept}{s}" for s in (".sqlite", ".sqlite.seal", ".seal"))
    again = run_installed("doctor", "--json", *where(repo, state), cwd=repo)
    check = {c["check"]: c for c in json.loads(again.stdout)["checks"]}["orphaned-indexes"]
    assert check["message"] == "Every index file belongs to an existing generation."

    (built.indexes_dir / f"{orphan}.sqlite").write_bytes(b"left by a pruned generation")
    assert build_from(repo, state, good_output(repo, tmp_path / "next")).returncode == 0
    assert not (built.indexes_dir / f"{orphan}.sqlite").exists(), "prune must remove orphaned indexes"


def test_a_refresh_whose_provider_output_the_reader_refuses_publishes_nothing(
    tmp_path: Path, baseline: Workspace,  # noqa: F811 - the imported fixture
) -> None:
    """The same shared publish path for ``refresh`` with a (fake, pinned) provider run."""
    workspace = baseline
    before = read_current(workspace).id
    graph = g0_graph()
    graph["nodes"].append(None)
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(graph)))
    with pytest.raises(Refusal) as refused:
        build(workspace, provider, refresh=True, sandbox="off", timeout=30)
    assert refused.value.reason == "unreadable"
    assert_untouched(workspace, before)
    assert os.listdir(workspace.generations_dir) == [before]
