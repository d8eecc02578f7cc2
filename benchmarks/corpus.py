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
import shutil
import subprocess
import sys
import tarfile
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
    cached = import_memory.cached_meta(meta_path, repo, out, package.name, log)
    if cached is not None:
        return cached
    shutil.rmtree(home, ignore_errors=True)
    (home / "home").mkdir(parents=True)
    tarball = _npm_tarball(package, cache / "downloads", log)
    log(f"[{package.name}] unpacking {tarball.name} into {repo}")
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _unpack_npm(tarball, repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{package.name} {package.version} from its npm tarball")
    provider_seconds = import_memory.run_provider(home, repo, log, package.name)
    meta = {
        "package": package.name,
        "version": package.version,
        "registry": "npm",
        "tarball": tarball.name,
        "tracked_files": len(git(repo, "ls-files").splitlines()),
        **import_memory.checkout_facts(repo, out),
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
