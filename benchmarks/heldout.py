"""The held-out corpus of benchmarks/tasks.py: pinned releases this project had not used before,
each a one-commit git repository with a generation built by the real ``cm-graph build``.

Python packages come from their **sdists** (``pip download --no-binary :all:``), because the sdist
ships the project's own test suite (the wheel does not), and the dynamic trace of that suite is
the "which tests execute X" truth (trace_python.py). npm packages reuse corpus.py's tarball
download and unpacking (build output left out, as there). Every repository is committed with
fixed dates (import_memory's git runner), so its commit id is the same on every machine.

Cache layout (under ``<cache>/heldout``)::

    <key>/repo/            the checkout (one commit; never written to after it)
    <key>/state/           cm-graph's state for it (``cm-graph build --state-dir``)
    <key>/build.json       the build summary and how long ``cm-graph build`` took
    <key>/testenv/         the virtualenv the Python test suite is traced in (trace_python.py)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
import import_memory  # noqa: E402

Log = Callable[[str], None]
git = import_memory._git


@dataclass(frozen=True)
class HeldOut:
    """One pinned release and how its own test suite is run (Python only)."""

    name: str
    version: str
    registry: str  # "pypi" or "npm"
    language: str
    # The test paths handed to pytest, relative to the checkout, in order (Markdown's
    # tests/test_legacy.py turns every warning into an error when imported, so its subdirectory
    # is collected first; pytest collects a path once).
    tests: tuple[str, ...] = ()
    test_requirements: tuple[str, ...] = ()  # pinned, installed from PyPI into the test venv

    @property
    def key(self) -> str:
        return f"{self.name.lower()}-{self.version}"

    @property
    def real(self) -> corpus.RealPackage:
        return corpus.RealPackage(self.name, self.version, self.registry, self.language)


PYTEST = "pytest==8.3.4"
BUILD_BACKENDS = ("setuptools==75.6.0", "wheel==0.45.1", "flit_core==3.10.1")

# None of these appears in benchmarks/, docs/ or an issue of this project before issue 27's
# evaluation (checked by name); each builds with the provider in well under a minute.
HELDOUT: tuple[HeldOut, ...] = (
    HeldOut("marshmallow", "3.23.2", "pypi", "Python", tests=("tests",),
            test_requirements=(PYTEST, "simplejson==3.19.3", "packaging==24.2")),
    HeldOut("Markdown", "3.7", "pypi", "Python", tests=("tests/test_syntax", "tests"),
            test_requirements=(PYTEST, "PyYAML==6.0.2")),
    HeldOut("toolz", "1.0.0", "pypi", "Python", tests=("toolz",), test_requirements=(PYTEST,)),
    HeldOut("express", "4.21.2", "npm", "JavaScript"),
    HeldOut("mobx", "6.13.5", "npm", "TypeScript"),
)

# Packaging metadata of an sdist, not the project's sources: left out of the repository.
SDIST_SKIPPED = (".egg-info", "PKG-INFO")


def _sdist(package: HeldOut, downloads: Path, log: Log) -> Path:
    downloads.mkdir(parents=True, exist_ok=True)
    stem = f"{package.name.lower()}-{package.version}"
    for found in downloads.glob("*.tar.gz"):
        if found.name.lower() == f"{stem}.tar.gz":
            return found
    log(f"[{package.name}] pip download --no-binary :all: {package.name}=={package.version}")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "-d", str(downloads), f"{package.name}=={package.version}"], check=True)
    for found in downloads.glob("*.tar.gz"):
        if found.name.lower() == f"{stem}.tar.gz":
            return found
    raise SystemExit(f"pip downloaded no sdist {stem}.tar.gz")


def _unpack_sdist(archive_path: Path, repo: Path) -> int:
    """The sdist's top directory as the repository (regular files only, no packaging metadata)."""
    count = 0
    with tarfile.open(archive_path, "r:gz") as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if not member.isfile() or len(parts) < 2 or ".." in parts:
                continue
            if any(part.endswith(SDIST_SKIPPED) for part in parts[1:]):
                continue
            target = repo.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())
            count += 1
    return count


def _checkout(package: HeldOut, home: Path, log: Log) -> tuple[Path, str]:
    """The one-commit repository of ``package`` and the archive it came from."""
    repo = home / "repo"
    marker = home / "source.json"
    if marker.is_file() and (repo / ".git").is_dir():
        return repo, json.loads(marker.read_text())["archive"]
    shutil.rmtree(home, ignore_errors=True)
    (home / "home").mkdir(parents=True)
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    downloads = home.parent / "downloads"
    if package.registry == "npm":
        archive = corpus._npm_tarball(package.real, downloads, log)
        corpus._unpack_npm(archive, repo)
    else:
        archive = _sdist(package, downloads, log)
        _unpack_sdist(archive, repo)
    log(f"[{package.name}] committing {archive.name} as one commit")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{package.name} {package.version} from {archive.name}")
    marker.write_text(json.dumps({"archive": archive.name}))
    return repo, archive.name


def cm_graph_command() -> list[str]:
    """The installed console script beside this interpreter (the venv built from the worktree)."""
    beside = Path(sys.executable).parent / "cm-graph"
    return [str(beside)] if beside.is_file() else [shutil.which("cm-graph") or "cm-graph"]


def prepare(package: HeldOut, cache: Path, log: Log) -> dict[str, Any]:
    """The checkout of ``package`` and a current generation of it (``cm-graph build``), cached."""
    home = cache / "heldout" / package.key
    repo, archive = _checkout(package, home, log)
    commit = git(repo, "rev-parse", "HEAD")
    state = home / "state"
    recorded = home / "build.json"
    if recorded.is_file():
        meta: dict[str, Any] = json.loads(recorded.read_text())
        if meta.get("commit") == commit and state.is_dir():
            return meta
    shutil.rmtree(state, ignore_errors=True)
    log(f"[{package.name}] cm-graph build (the pinned provider, contained)")
    started = time.perf_counter()
    done = subprocess.run([*cm_graph_command(), "build", "--repo-path", str(repo), "--state-dir", str(state),
                           "--json"], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"[{package.name}] cm-graph build failed ({done.returncode}): {done.stderr[-800:]}")
    summary = json.loads(done.stdout)
    meta = {"package": package.name, "version": package.version, "registry": package.registry,
            "language": package.language, "archive": archive, "commit": commit, "repo": str(repo),
            "state": str(state), "tracked_files": len(git(repo, "ls-files").splitlines()),
            "build_seconds": round(seconds, 2), "build": summary}
    recorded.write_text(json.dumps(meta, indent=1))
    return meta
