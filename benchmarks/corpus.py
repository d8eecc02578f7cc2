"""The real corpus: pinned releases from PyPI and npm, each a one-commit git repository with its
provider output, made once and cached under the cache directory.

PyPI packages reuse ``import_memory.prepare_corpus`` (the wheel's top-level packages, which are
the package's sources). npm packages are fetched with the ordinary client, ``npm pack
NAME@VERSION``; the tarball's ``package/`` directory becomes the repository (sources, typings,
package.json), less its build output (``dist/``, ``build/``, ``bundles/``, source maps: bundled
copies of the sources, which the provider skips too). Both are committed with fixed dates and run
through the pinned provider exactly as ``import_memory.py`` does::

    graphify extract . --code-only --no-cluster

Cache layout (shared with ``import_memory.py``)::

    <cache>/<name>-<version>/repo/           the checkout (one commit)
    <cache>/<name>-<version>/graphify-out/   the provider's output, moved out of the checkout
    <cache>/<name>-<version>/provider.json   what was made, and how long the provider took
"""

from __future__ import annotations

import json
import os
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

import import_memory  # noqa: E402  (the colleague's wheel corpus and children, reused as is)

Log = Callable[[str], None]
git = import_memory._git


@dataclass(frozen=True)
class RealPackage:
    name: str
    version: str
    registry: str  # "pypi" or "npm"
    language: str
    quick: bool = False

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"

    @property
    def spec(self) -> str:
        return f"{self.name}=={self.version}" if self.registry == "pypi" else f"{self.name}@{self.version}"


# Ordered by size (raw edges): ~1k up to ~180k.
REAL_PACKAGES: tuple[RealPackage, ...] = (
    RealPackage("requests", "2.32.3", "pypi", "Python", quick=True),
    RealPackage("axios", "1.7.9", "npm", "JavaScript", quick=True),
    RealPackage("rxjs", "7.8.1", "npm", "TypeScript + JavaScript"),
    RealPackage("rich", "15.0.0", "pypi", "Python"),
    RealPackage("django", "5.1.4", "pypi", "Python"),
    RealPackage("sympy", "1.13.3", "pypi", "Python"),
)


def provider_command() -> list[str]:
    beside = Path(sys.executable).parent / "graphify"
    return [str(beside)] if beside.is_file() else [shutil.which("graphify") or "graphify"]


def run_provider(home: Path, repo: Path, log: Log, name: str) -> float:
    """Run the pinned provider in ``repo`` and move its output to ``home/graphify-out``."""
    command = [*provider_command(), "extract", ".", "--code-only", "--no-cluster"]
    log(f"[{name}] running the provider: {' '.join(command)}")
    private = home / "home"
    private.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(private), "XDG_CACHE_HOME": str(private / ".cache")}
    started = time.perf_counter()
    with open(home / "provider.log", "wb") as provider_log:
        subprocess.run(command, cwd=repo, env=env, stdout=provider_log, stderr=subprocess.STDOUT, check=True)
    seconds = time.perf_counter() - started
    shutil.move(str(repo / "graphify-out"), str(home / "graphify-out"))
    if git(repo, "status", "--porcelain", "--untracked-files=all"):
        raise SystemExit(f"[{name}] the provider left files in the checkout")
    return seconds


def _npm_tarball(package: RealPackage, downloads: Path, log: Log) -> Path:
    downloads.mkdir(parents=True, exist_ok=True)
    expected = downloads / f"{package.name.replace('@', '').replace('/', '-')}-{package.version}.tgz"
    if expected.is_file():
        return expected
    log(f"[{package.name}] npm pack {package.spec}")
    subprocess.run(
        ["npm", "pack", package.spec, "--silent", "--pack-destination", str(downloads)],
        check=True, stdout=subprocess.DEVNULL,
    )
    if not expected.is_file():
        raise SystemExit(f"npm pack wrote no {expected.name}")
    return expected


NPM_SKIPPED_DIRS = ("dist", "build", "bundles")


def _unpack_npm(tarball: Path, repo: Path) -> int:
    """Unpack the tarball's ``package/`` tree into ``repo`` (regular files only), leaving out build
    output: top-level ``dist/``, ``build/`` and ``bundles/`` (bundled and minified copies of the
    sources, which the provider does not extract either) and source maps."""
    count = 0
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            if not member.isfile():
                continue
            parts = member.name.split("/")
            if len(parts) < 2 or parts[0] != "package" or ".." in parts:
                continue
            if parts[1] in NPM_SKIPPED_DIRS or parts[-1].endswith(".map"):
                continue
            relative = "/".join(parts[1:])
            target = repo / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())
            count += 1
    return count


def prepare_npm(package: RealPackage, cache: Path, log: Log) -> dict[str, Any]:
    home = cache / package.key
    repo, out, meta_path = home / "repo", home / "graphify-out", home / "provider.json"
    if meta_path.is_file() and (out / "graph.json").is_file():
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if git(repo, "rev-parse", "HEAD") == meta["commit"]:
            log(f"[{package.name}] reusing cached provider output in {home}")
            return meta
    shutil.rmtree(home, ignore_errors=True)
    (home / "home").mkdir(parents=True)
    tarball = _npm_tarball(package, cache / "downloads", log)
    log(f"[{package.name}] unpacking {tarball.name} into {repo}")
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _unpack_npm(tarball, repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{package.name} {package.version} from its npm tarball")
    provider_seconds = run_provider(home, repo, log, package.name)
    meta = {
        "package": package.name,
        "version": package.version,
        "registry": "npm",
        "tarball": tarball.name,
        "tracked_files": len(git(repo, "ls-files").splitlines()),
        "commit": git(repo, "rev-parse", "HEAD"),
        "repo": str(repo),
        "graphify_out": str(out),
        "graph_json_bytes": (out / "graph.json").stat().st_size,
        "provider_seconds": provider_seconds,
    }
    meta_path.write_text(json.dumps(meta, indent=2))
    return meta


def prepare_real(package: RealPackage, cache: Path, log: Log) -> dict[str, Any]:
    """The checkout and provider output of ``package`` (cached)."""
    if package.registry == "npm":
        meta = prepare_npm(package, cache, log)
    else:
        meta = dict(import_memory.prepare_corpus(package.spec, cache, log))
        meta.setdefault("registry", "pypi")
    meta["language"] = package.language
    return meta
