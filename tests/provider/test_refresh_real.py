"""Reproducible artifacts and cheap refreshes, with the real pinned provider on real code.

- Two cold builds of one commit in two state dirs give byte-identical graph.bin, contained or
  not (the provider runs at the fixed run root; no scratch path or clock reaches the artifact).
- A commit with the current generation's tree is published from its artifact without running
  the provider (proved with a provider that fails if run), and that artifact is byte for byte
  what a cold build of the new commit gives.
- After a one-file commit, a refresh seeded with the provider's private cache re-extracts only
  the changed file and its graph.bin is byte-identical to a cold build of that commit.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import apsw
import pytest

import cm_graph
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current
from cm_graph.provider.build import build
from cm_graph.provider.fixedroot import fixed_root
from cm_graph.provider.run import ProviderRefusal, verify_provider

from ..generation.test_lifecycle import BWRAP, artifact_members, cli, ijson_files, install_provider, where
from ..support.helpers import commit_all, git, make_repo, write_files

pytestmark = [pytest.mark.provider]

FAILS_IF_RUN = "import sys\nsys.exit(3)\n"


def artifact_bytes(repo: Path, state: Path) -> bytes:
    return read_current(Workspace.locate(repo, state)).artifact_path.read_bytes()


def own_sources() -> dict[str, str | bytes]:
    """cm-graph's own package source: a real project of ~70 modules."""
    package = Path(cm_graph.__file__).parent
    return {
        f"cm_graph/{path.relative_to(package)}": path.read_bytes()
        for path in sorted(package.rglob("*.py")) if "__pycache__" not in path.parts
    }


@pytest.mark.parametrize("sandbox", ["off", "required"])
def test_two_cold_builds_in_two_state_dirs_are_byte_identical(tmp_path: Path, sandbox: str) -> None:
    if sandbox == "required" and not BWRAP.exists():
        pytest.skip("bubblewrap (/usr/bin/bwrap) is not installed")
    repo = make_repo(tmp_path / "repo", ijson_files())
    first = cli("build", "--sandbox", sandbox, *where(repo, tmp_path / "one"), "--json")
    second = cli("build", "--sandbox", sandbox, *where(repo, tmp_path / "two" / "deeper"), "--json")
    assert first.code == 0 and second.code == 0, (first.err, second.err)
    assert first.out["contained"] is second.out["contained"] is (sandbox == "required")
    a, b = artifact_bytes(repo, tmp_path / "one"), artifact_bytes(repo, tmp_path / "two" / "deeper")
    assert a == b
    assert first.out["completeness"] == "complete"
    members = artifact_members(read_current(Workspace.locate(repo, tmp_path / "one")).artifact_path)
    text = b"".join(data for _info, data in members.values()).decode()
    assert str(tmp_path) not in text, "no local path of the operator's reaches the artifact"


def test_same_tree_commit_is_published_without_the_provider(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    state = tmp_path / "state"
    assert cli("build", "--sandbox", "off", *where(repo, state), "--json").code == 0
    workspace = Workspace.locate(repo, state)
    before = read_current(workspace)
    new_commit = commit_all(repo, "an empty commit: same tree")
    failing = verify_provider(install_provider(tmp_path / "fake", FAILS_IF_RUN))

    result = build(workspace, failing, refresh=True, sandbox="off", timeout=30)
    after = read_current(workspace)
    assert after.manifest.commit == new_commit != before.manifest.commit
    assert after.manifest.tree == before.manifest.tree
    assert after.manifest.graph_digest == before.manifest.graph_digest
    assert after.manifest.completeness == "complete" and result.coverage.completeness == "complete"
    record = after.build_record()
    assert record is not None
    assert record["origin"] == "same_tree" and record["reused_generation"] == before.id
    assert result.index.counts.get("code_nodes", 0) > 0
    status = cli("status", *where(repo, state), "--json")
    assert status.out["state"] == "current", status.out

    # The reused bytes are exactly what a cold build of the new commit gives.
    assert cli("build", "--sandbox", "off", *where(repo, tmp_path / "cold"), "--json").code == 0
    assert artifact_bytes(repo, tmp_path / "cold") == after.artifact_path.read_bytes()

    # A refresh of the very commit the generation is bound to runs the provider (here: fails),
    # and so does --sandbox required when the reused run was not contained.
    with pytest.raises(ProviderRefusal, match="failed"):
        build(workspace, failing, refresh=True, sandbox="off", timeout=30)
    commit_all(repo, "another empty commit")
    with pytest.raises(ProviderRefusal):
        build(workspace, failing, refresh=True, sandbox="required", timeout=30)
    assert read_current(workspace).id == after.id, "a failed run leaves the generation current"


def _cache_entries(workspace: Workspace) -> dict[str, int]:
    root = workspace.directory / "provider-cache"
    found = {}
    for directory, _dirs, files in os.walk(root):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        for name in files:
            path = Path(directory) / name
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            found[str(path.relative_to(root))] = path.stat().st_mtime_ns
    return found


def test_one_file_refresh_reuses_the_provider_cache_and_equals_a_cold_build(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", own_sources())
    state = tmp_path / "state"
    assert cli("build", "--sandbox", "off", *where(repo, state), "--json").code == 0
    workspace = Workspace.locate(repo, state)
    cold_entries = _cache_entries(workspace)
    assert len(cold_entries) >= len(own_sources()) - 5, "one cache entry per extracted file"
    assert not any("cache" in info.name for info, _ in artifact_members(read_current(workspace).artifact_path).values())

    changed = "cm_graph/base/rules.py"
    write_files(repo, {changed: (repo / changed).read_text() + "\n\ndef added_for_refresh():\n    return 1\n"})
    commit_all(repo, "one file changed")
    warm = cli("refresh", "--sandbox", "off", *where(repo, state), "--json")
    assert warm.code == 0 and warm.out["completeness"] == "complete", warm.err
    warm_entries = _cache_entries(workspace)
    # Every entry of the cold run is still there, untouched (read, not rewritten); the only new
    # one is the changed file's.
    assert {k: warm_entries[k] for k in cold_entries} == cold_entries
    assert len(set(warm_entries) - set(cold_entries)) == 1

    cold = cli("build", "--sandbox", "off", *where(repo, tmp_path / "cold"), "--json")
    assert cold.code == 0, cold.err
    assert artifact_bytes(repo, tmp_path / "cold") == artifact_bytes(repo, state)
    graph = json.loads(artifact_members(read_current(workspace).artifact_path)["graph.json"][1])
    assert any(node.get("label", "").startswith("added_for_refresh") for node in graph["nodes"])
    assert git(repo, "status", "--porcelain") == ""


NOBODY = 65534


def as_nobody_possible() -> bool:
    return os.getuid() == 0 and shutil.which("setpriv") is not None


def nobody_dir() -> Path:
    """A directory another user can reach (pytest's tmp_path is private to this one)."""
    path = Path(tempfile.mkdtemp(prefix="cm-graph-uid-", dir="/tmp"))
    os.chown(path, NOBODY, NOBODY)
    return path


# A provider that records the path it runs in, as the pinned one does (extracted_sources).
PATH_RECORDING = """
import hashlib, json, os, pathlib
files = sorted(p.as_posix() for p in pathlib.Path(".").rglob("*.py"))
node = {"id": "m", "label": "main", "file_type": "code", "source_file": files[0], "source_location": "L1"}
out = pathlib.Path("graphify-out")
out.mkdir()
graph = {"nodes": [node], "edges": [], "extracted_sources": [os.getcwd() + "/" + f for f in files]}
(out / "graph.json").write_text(json.dumps(graph))
rows = {f: {"mtime": 0.0, "seen": 0.0, "ast_hash": hashlib.md5(open(f, "rb").read()).hexdigest(),
            "semantic_hash": ""} for f in files}
(out / "manifest.json").write_text(json.dumps(rows))
"""
SYSTEM_PYTHON = "/usr/bin/python3.11"


@pytest.mark.parametrize("sandbox", ["off", "required"])
def test_two_users_build_byte_identical_artifacts(tmp_path: Path, sandbox: str) -> None:
    """The run root carries no uid: the same build as root and as another user (each with its
    own clone and state dir, through a provider that records its working directory as the
    pinned one does) publishes the same graph.bin, contained or not. This install's interpreter
    lives under /root, which another user cannot enter, so both builds run this worktree under
    the system Python 3.11 with the venv's packages."""
    if not as_nobody_possible() or not Path(SYSTEM_PYTHON).exists():
        pytest.skip("running a build as another user needs root, setpriv and a system Python 3.11")
    if sandbox == "required" and not BWRAP.exists():
        pytest.skip("bubblewrap (/usr/bin/bwrap) is not installed")
    shared = nobody_dir()
    try:
        os.chmod(shared, 0o755)
        install_provider(shared / "provider", PATH_RECORDING, interpreter=SYSTEM_PYTHON)
        make_repo(shared / "source", {"app/main.py": "def main():\n    return 1\n", "README.md": "x\n"})
        artifacts = {}
        for user in ("root", "nobody"):
            home = shared / user
            subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(shared / "source"), str(home / "repo")],
                           check=True)
            if user == "nobody":
                subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(home)], check=True)
            argv = [SYSTEM_PYTHON, "-c", "import sys; from cm_graph.cli.entry import main; sys.exit(main())", "build",
                    "--sandbox", sandbox, "--repo-path", str(home / "repo"), "--state-dir", str(home / "state"),
                    "--json"]
            env = {
                "PATH": f"{shared / 'provider' / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LC_ALL": "C",
                "PYTHONPATH": f"{Path(cm_graph.__file__).parent.parent}:{Path(apsw.__file__).parent.parent}",
            }
            if user == "nobody":
                argv = ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups", *argv]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=home, env=env)
            if done.returncode != 0 and user == "nobody" and sandbox == "required":
                pytest.skip(f"bubblewrap does not work for another user here: {done.stderr.strip()}")
            assert done.returncode == 0, (user, done.stderr)
            assert json.loads(done.stdout)["contained"] is (sandbox == "required")
            (pointer,) = (home / "state").glob("graph/*/current")  # read as root: not through the
            generation = pointer.read_text().strip()                 # owner checks of its user
            artifacts[user] = (pointer.parent / "generations" / generation / "graph.bin").read_bytes()
        assert artifacts["root"] == artifacts["nobody"]
        assert b"/tmp/cm-graph-run/source/app/main.py" in artifacts["root"]
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_run_root_held_by_another_user_is_refused_by_name(tmp_path: Path) -> None:
    if not as_nobody_possible():
        pytest.skip("making a directory of another user needs root")
    repo = make_repo(tmp_path / "repo", ijson_files())
    root = fixed_root()
    assert root == Path("/tmp/cm-graph-run") and str(os.getuid()) not in root.name
    os.mkdir(root, 0o700)
    try:
        os.chown(root, NOBODY, NOBODY)
        refused = cli("build", "--sandbox", "off", *where(repo, tmp_path / "state"), "--json")
        assert refused.code == 1 and refused.out["reason"] == "provider", refused.out
        assert "belongs to another user" in refused.out["detail"] and str(root) in refused.out["detail"]
        assert not (tmp_path / "state").exists() or not list((tmp_path / "state").glob("graph/*/current"))
        assert os.stat(root).st_uid == NOBODY, "never entered or taken over"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    built = cli("build", "--sandbox", "off", *where(repo, tmp_path / "state"), "--json")
    assert built.code == 0, built.err
    assert not os.path.lexists(root), "removed after the run: the next user can create it"


def _provider_run(tree: Path) -> dict:
    """The pinned provider run in ``tree`` as cm-graph runs it (fixed clock-free environment)."""
    home = tree.parent / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home), "LC_ALL": "C", "LANG": "C",
           "TZ": "UTC", "PYTHONNOUSERSITE": "1", "GIT_CEILING_DIRECTORIES": str(tree.parent)}
    subprocess.run([str(Path(sys.executable).parent / "graphify"), "extract", ".", "--code-only", "--no-cluster"],
                   cwd=tree, env=env, check=True, capture_output=True, timeout=300)
    return json.loads((tree / "graphify-out" / "graph.json").read_bytes())


def test_the_providers_incremental_mode_is_not_a_cold_build(tmp_path: Path) -> None:
    """Why a refresh never leaves the previous graph.json in the tree (the provider's incremental
    mode): its output differs from a cold build of the same tree. ``extracted_sources`` lists
    only the files this run extracted, an added file's records come after the carried-over ones,
    and a changed file's cross-file edges are resolved against the carried graph, not the
    corpus (docs/lifecycle.md, "Refresh"). A provider release that changes this fails here."""
    files = {path: data if isinstance(data, bytes) else data.encode() for path, data in ijson_files().items()}
    changed, added, deleted = "ijson/common.py", "ijson/added_module.py", "ijson/version.py"
    after = dict(files)
    after[changed] = files[changed] + b"\n\ndef added_for_refresh():\n    return sorted([1])\n"
    after[added] = b"from .common import *\n\n\ndef added():\n    return 1\n"
    del after[deleted]

    incremental_tree = tmp_path / "incremental" / "tree"
    write_files(incremental_tree, files)
    _provider_run(incremental_tree)
    (incremental_tree / deleted).unlink()
    write_files(incremental_tree, {k: after[k] for k in (changed, added)})
    incremental = _provider_run(incremental_tree)

    cold_tree = tmp_path / "cold" / "tree"
    write_files(cold_tree, after)
    cold = _provider_run(cold_tree)

    def relative(graph: dict) -> list[str]:
        return sorted(path.split("/tree/", 1)[1] for path in graph["extracted_sources"])

    assert relative(cold) == sorted(p for p in after if p.endswith(".py"))
    assert relative(incremental) == sorted([changed, added]), "only this run's files are listed"
    assert incremental != cold
