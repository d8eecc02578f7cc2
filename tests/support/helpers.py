"""Real parts for tests: git repositories in temp dirs, provider output, published generations.

Nothing here mocks git, SQLite or the filesystem: repositories are made with the git binary,
generations are published through the same code the CLI uses, indexes are real SQLite files.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from cm_graph.base.errors import Refusal
from cm_graph.base.git import BlobReader, read_census, resolve_revision
from cm_graph.generation import artifact
from cm_graph.generation.coverage import assess, read_inventory
from cm_graph.generation.layout import Workspace
from cm_graph.generation.manifest import PINNED_PROVIDER, ProviderPin
from cm_graph.generation.store import publish as publish_generation
from cm_graph.provider.publish import make_manifest_factory
from cm_graph.provider.run import default_executable, verify_provider

FIXED_DATE = "2026-01-01T12:00:00+00:00"
FIXED_BUILT_AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def git(repo: Path, *args: str, config: dict[str, str] | None = None) -> str:
    """``git -C repo ARGS`` at a fixed date and identity; ``config`` is given to git as
    command-line configuration (in its environment, so a key may hold any character)."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE,
    }
    for number, (key, value) in enumerate((config or {}).items()):
        env.update({f"GIT_CONFIG_KEY_{number}": key, f"GIT_CONFIG_VALUE_{number}": value})
    env["GIT_CONFIG_COUNT"] = str(len(config or {}))
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


def make_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """A real git repository at ``root`` with ``files`` committed at a fixed date."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    commit_all(root, "initial")
    return root


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


def edit(repo: Path, path: str, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in ``repo``'s file ``path``."""
    target = repo / path
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new))


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def numbered_lines(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


def inventory_for(repo: Path, paths: list[str]) -> dict[str, Any]:
    """A provider-style per-file inventory whose ast_hash is the MD5 of the committed bytes."""
    rows = {}
    for path in paths:
        blob = subprocess.run(
            ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, check=True
        ).stdout
        digest = hashlib.md5(blob).hexdigest()
        rows[path] = {"mtime": 0.0, "seen": 0.0, "ast_hash": digest, "semantic_hash": digest}
    return rows


def write_output(
    out_dir: Path,
    graph: dict[str, Any] | bytes,
    inventory: dict[str, Any] | None = None,
) -> Path:
    """A ``graphify-out/`` directory holding ``graph`` (a dict, or raw bytes to write as is)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = graph if isinstance(graph, bytes) else json.dumps(graph).encode()
    (out_dir / "graph.json").write_bytes(data)
    if inventory is not None:
        (out_dir / "manifest.json").write_text(json.dumps(inventory))
    return out_dir


def code_paths(repo: Path) -> list[str]:
    listed = git(repo, "ls-files").splitlines()
    return [path for path in listed if path.endswith(".py")]


def publish(
    repo: Path,
    state: Path,
    graph: dict[str, Any] | bytes,
    *,
    out_dir: Path | None = None,
    inventory: dict[str, Any] | None = None,
    revision: str = "HEAD",
    keep_previous: bool = False,
) -> Workspace:
    """Publish ``graph`` as the current generation of ``repo`` under the state root ``state``,
    as another compatible tool would (see ``publish_unchecked``): the index is derived on first use."""
    out = out_dir or state.parent / f"out-{os.urandom(4).hex()}"
    if inventory is None:
        inventory = inventory_for(repo, code_paths(repo))
    write_output(out, graph, inventory)
    workspace = Workspace.locate(repo, state)
    publish_unchecked(workspace, out, revision=revision, keep_previous=keep_previous)
    return workspace


def publish_unchecked(
    workspace: Workspace,
    out: Path,
    *,
    revision: str = "HEAD",
    provider: ProviderPin = PINNED_PROVIDER,
    keep_previous: bool = False,
) -> None:
    """Publish ``out`` the way another compatible tool (the reference implementation) does: packed
    with a real manifest and made current, but without deriving and validating our index first.
    ``build --from-graph`` refuses such a graph before publishing; tests of the importer's and
    the question path's refusals need the generation on disk, as a foreign tool leaves it."""
    bound = resolve_revision(workspace.checkout, revision)
    census = read_census(workspace.checkout, bound.commit)
    inventory_path = out / artifact.INVENTORY_MEMBER
    with BlobReader(workspace.checkout) as blobs:
        coverage = assess(census, read_inventory(inventory_path), blobs)
    members = [artifact.GRAPH_MEMBER] + ([artifact.INVENTORY_MEMBER] if inventory_path.is_file() else [])
    factory = make_manifest_factory(bound, census, coverage, provider, FIXED_BUILT_AT)
    publish_generation(
        workspace, lambda handle: artifact.pack(out, members, handle), factory, keep_previous=keep_previous
    )


CM_GRAPH = Path(sys.executable).parent / "cm-graph"


def run_installed(*args: Any, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed ``cm-graph`` console script, as a user's shell runs it (no COLUMNS/LINES)."""
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    return subprocess.run(
        [str(CM_GRAPH), *(str(arg) for arg in args)], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=120, check=False,
    )


PROVIDER_TIMEOUT = 300


def provider_command() -> list[str] | None:
    """The pinned ``graphify`` command, verified (None without it: the ``provider`` marker's one
    guard in conftest.py then skips every test that needs it)."""
    executable = default_executable()
    return None if provider_missing() is not None or executable is None else [str(executable)]


def provider_extract(repo: Path, out: Path) -> dict[str, Any]:
    """Run the pinned provider in ``repo`` as a user runs it by hand (``graphify extract .
    --code-only --no-cluster``, with its own HOME and cache beside ``out``), move the
    ``graphify-out/`` it writes to ``out`` (so the checkout stays clean) and return its graph."""
    command = provider_command()
    assert command is not None, provider_missing()
    home = out.parent / f"{out.name}-home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    done = subprocess.run([*command, "extract", ".", "--code-only", "--no-cluster"], cwd=repo, env=env,
                          capture_output=True, timeout=PROVIDER_TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-4000:]
    produced = repo / "graphify-out"
    assert (produced / "graph.json").is_file(), "the provider wrote no graphify-out/graph.json"
    produced.rename(out)
    return dict(json.loads((out / "graph.json").read_bytes()))


@cache
def provider_missing() -> str | None:
    """Why the pinned provider cannot run here (its refusal's sentence), or None when it can: the
    one check behind the ``provider`` marker (conftest.py skips a marked test on it), asked once."""
    try:
        verify_provider(default_executable())
    except Refusal as refusal:
        return refusal.message
    return None
