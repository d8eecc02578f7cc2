"""Pinned releases from the package registries as one-commit repositories, for tests that need
real code the provider is known to mis-extract or not to read (issue 27: jinja2's
``Environment.compile``, immer's ``types-external.ts``, yargs's ``build/``, msgpack's ``.pyx``).

The archives are fetched once with the ordinary clients (``pip download``, ``npm pack``) into the
benchmarks' download cache and unpacked as ``benchmarks/corpus.py`` does (a wheel's top-level
packages; an sdist's whole tree; an npm package's ``package/`` tree, by default less its build
output); a test skips, naming why, when the registry cannot be reached.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from .helpers import commit_all, git
from .network import npm_registry_unreachable

DOWNLOADS = Path(tempfile.gettempdir()) / "cm-graph-bench" / "downloads"  # the benchmarks' cache
NPM_SKIPPED_DIRS = ("dist", "build", "bundles")  # corpus.py's: bundled copies of the sources


def _fetched(name: str, command: Callable[[Path], list[str]],
             unreachable: Callable[[], str | None] = lambda: None) -> Path:
    """The cached archive ``name``, fetched by ``command(directory)`` into a private directory and
    renamed into the cache, so parallel test workers never read one half-written."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    found = DOWNLOADS / name
    if found.is_file():
        return found
    why_not = unreachable()
    if why_not is not None:
        pytest.skip(f"{name} comes from a package registry: {why_not}")
    with tempfile.TemporaryDirectory(dir=DOWNLOADS, prefix=".fetch-") as private:
        done = subprocess.run(command(Path(private)), capture_output=True, text=True, timeout=300)
        fetched = Path(private) / name
        if done.returncode != 0 or not fetched.is_file():
            pytest.skip(f"{name} could not be fetched: {done.stderr.strip()[-300:]}")
        fetched.replace(found)
    return found


def pypi_release(root: Path, name: str, version: str, package: str) -> Path:
    """A repository of the wheel's ``package/`` directory, committed at a fixed date."""
    wheel = _fetched(f"{name}-{version}-py3-none-any.whl", lambda into: [
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
        "-d", str(into), f"{name}=={version}"])
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.startswith(f"{package}/") and not member.endswith("/"):
                target = root / member
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(member))
    commit_all(root, f"{name} {version}")
    return root


def pypi_sdist(root: Path, name: str, version: str) -> Path:
    """A repository of the source distribution's whole tree (its ``name-version/`` directory)."""
    sdist = _fetched(f"{name}-{version}.tar.gz", lambda into: [
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
        "-d", str(into), f"{name}=={version}"])
    return _unpacked(root, sdist, f"{name}-{version}", (), f"{name} {version}")


def npm_release(root: Path, name: str, version: str, skipped_dirs: tuple[str, ...] = NPM_SKIPPED_DIRS) -> Path:
    """A repository of the npm package's ``package/`` tree, less ``skipped_dirs`` (its build output)."""
    tarball = _fetched(f"{name}-{version}.tgz", lambda into: [
        "npm", "pack", f"{name}@{version}", "--silent", "--pack-destination", str(into)],
        npm_registry_unreachable)
    return _unpacked(root, tarball, "package", skipped_dirs, f"{name} {version}", maps=False)


def _unpacked(root: Path, tarball: Path, top: str, skipped_dirs: tuple[str, ...], message: str, *,
              maps: bool = True) -> Path:
    """The regular files under ``top/`` of a gzipped tarball, less ``skipped_dirs`` (and source
    maps unless ``maps``), committed as one repository."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if (not member.isfile() or len(parts) < 2 or parts[0] != top or ".." in parts
                    or parts[1] in skipped_dirs or (not maps and parts[-1].endswith(".map"))):
                continue
            source = archive.extractfile(member)
            assert source is not None
            target = root.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
    commit_all(root, message)
    return root
