"""The provider's own per-file extraction cache, kept privately between builds of one checkout.

``graphifyy==0.9.58`` caches each file's AST extraction in ``graphify-out/cache/ast/
v<extractor>-s<schema>/<sha256>.json``, keyed by the SHA-256 of the file's content and its path
relative to the run root, and reads an entry back instead of re-parsing when the key matches
(``graphify.cache.load_cached``). Cross-file resolution runs after that on every build, and
with no ``graph.json`` in the tree the provider does a full (not incremental) scan, so a seeded
cache only saves parsing: ``graph.json`` is the same as a cold build's (tests compare bytes).

Only ``cache/ast`` is kept: not the stat index (keyed by absolute path and mtime), not the
inventory or graph (either would switch the provider to its incremental merge). The store is
keyed by the provider pin and the fixed run root, lives under the workspace's private state
dir (0700 dirs, 0600 files), is moved (not copied) into the scratch tree for a run and back
after a successful one, and is never packed into an artifact. A build that fails loses it, and
the next build is cold.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from ..generation.manifest import ProviderPin

CACHE_PARTS = ("cache", "ast")


def cache_key(pin: ProviderPin, run_root: Path) -> str:
    return hashlib.sha256(f"{pin.requirement}\0{run_root}".encode()).hexdigest()[:32]


class ProviderCache:
    """One checkout's store of the provider's AST cache for one provider pin."""

    def __init__(self, state: Path, pin: ProviderPin, run_root: Path) -> None:
        self.directory = state / "provider-cache"
        self.store = self.directory / cache_key(pin, run_root)

    def seed(self, output: Path) -> bool:
        """Move the stored cache into ``output`` (the tree's future graphify-out); True if there
        was one."""
        if self.store.is_symlink() or not self.store.is_dir():
            return False
        target = output.joinpath(*CACHE_PARTS)
        os.makedirs(target.parent, 0o700, exist_ok=True)
        shutil.move(self.store, target)
        return True

    def keep(self, output: Path) -> None:
        """After a successful run: make ``output``'s AST cache the stored one (private modes),
        dropping any other pin's store."""
        source = output.joinpath(*CACHE_PARTS)
        if source.is_symlink() or not source.is_dir():
            return
        os.makedirs(self.directory, 0o700, exist_ok=True)
        os.chmod(self.directory, 0o700)
        for entry in os.listdir(self.directory):
            shutil.rmtree(self.directory / entry, ignore_errors=True)
        _make_private(source)
        shutil.move(source, self.store)


def _make_private(tree: Path) -> None:
    for directory, _dirs, files in os.walk(tree):
        os.chmod(directory, 0o700)
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                os.unlink(path)
            else:
                os.chmod(path, 0o600)
