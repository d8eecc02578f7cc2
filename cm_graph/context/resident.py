"""A resident server's judged graph, kept between calls while the files it was judged from stay put.

A one-shot question judges the graph (``graph_status``: HEAD through git, the pointer, the
manifest, graph.bin's seal) and opens the index, then exits. A server answering call after call
would do all of that again each time for the same answer, so it keeps the judgement and the open
index (with SQLite's prepared statements, per generation) under a **key**: the identity (device,
inode, mode, links, owner, size, mtime_ns, ctime_ns) of every file and directory the judgement
read, the bytes of the ``current`` pointer, the connection file's identity, and HEAD as read from
git's own files (``base/gitfiles.py``, no child process). The next call computes the key again
(a few ``lstat`` calls and small reads): equal, it answers from what is held; different in any
part, it lets go and judges from scratch exactly as a one-shot question does. Any write, rename,
chmod or chown moves a file's ctime, which an unprivileged process cannot set back, so a held
judgement is never one the files no longer support. A layout the HEAD reader does not follow
gives no key, and every call is then judged from scratch.

The key is taken before judging and again after: only a judgement whose files did not move while
it ran is kept. One call at a time uses what is held; a concurrent call judges on its own.
Scratch of dead builders is swept at most every ``SWEEP_EVERY`` seconds, not on every call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput
from ..base.gitfiles import identity, read_head
from ..base.rules import is_generation_id
from ..generation.layout import Workspace
from ..generation.scratch import sweep_stale_scratch
from ..generation.store import ARTIFACT_NAME, ATTEMPT_NAME, BUILD_RECORD_NAME, MANIFEST_NAME
from ..index.seal import seal_path
from .coupling import history_path
from .settled import Settled

SWEEP_EVERY = 60.0


def _lstat(path: str) -> tuple[int, ...] | None:
    try:
        return identity(os.lstat(path))
    except OSError:
        return None


def _small(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 65)
    finally:
        os.close(fd)


def state_key(workspace: Workspace, also: tuple[Path, ...] = ()) -> tuple[Any, ...] | None:
    """The key of everything a judgement of ``workspace``'s graph and the open of its index read
    (see the module docstring), or None when HEAD's files are a layout left to git."""
    head = read_head(workspace.checkout)
    if head is None:
        return None
    pointer_path, fixed = _workspace_paths(workspace, also)
    pointer = _small(pointer_path)
    generation = (pointer or b"").decode("ascii", "replace").strip()
    paths = fixed + _generation_paths(workspace, generation) if is_generation_id(generation) else fixed
    return (str(workspace.checkout), str(workspace.root), head, pointer, tuple(_lstat(path) for path in paths))


@lru_cache(maxsize=8)
def _workspace_paths(workspace: Workspace, also: tuple[Path, ...]) -> tuple[str, tuple[str, ...]]:
    """The pointer, and the directories and files every judgement reads (joined once, not per call)."""
    paths = (workspace.root, workspace.graph_dir, workspace.directory, workspace.generations_dir,
             workspace.indexes_dir, workspace.current_pointer, workspace.directory / ATTEMPT_NAME, *also)
    return str(workspace.current_pointer), tuple(str(path) for path in paths)


@lru_cache(maxsize=8)
def _generation_paths(workspace: Workspace, generation: str) -> tuple[str, ...]:
    """The files a judgement of ``generation`` and the open of its index and history read."""
    directory, index = workspace.generation_dir(generation), workspace.index_path(generation)
    history = history_path(index)
    return tuple(str(path) for path in (
        directory, directory / MANIFEST_NAME, directory / BUILD_RECORD_NAME, directory / ARTIFACT_NAME,
        workspace.indexes_dir / f"{generation}.seal", index, seal_path(index), history, seal_path(history)))


@dataclass
class Resident:
    """The one held judgement of a long-lived server (see the module docstring)."""

    sweep_every: float = SWEEP_EVERY
    clock: Callable[[], float] = time.monotonic
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _key: tuple[Any, ...] | None = None
    _held: Settled | None = None
    _swept: dict[tuple[str, str], float] = field(default_factory=dict)

    @contextmanager
    def settled(
        self, workspace: Workspace, settle: Callable[[], Settled], also: tuple[Path, ...] = ()
    ) -> Iterator[Settled]:
        """What is held when the key is unchanged, else ``settle()`` (kept when its files held
        still while it ran). A refusal from ``settle`` passes through and nothing is held."""
        if not self._lock.acquire(blocking=False):
            found = settle()  # another call is using what is held: judge this one on its own
            try:
                yield found
            finally:
                found.close()
            return
        try:
            self._sweep_if_due(workspace)
            key = state_key(workspace, also)
            if key is None or key != self._key:
                self.release()
                found = settle()
                if key is not None and state_key(workspace, also) == key:
                    self._key, self._held = key, found
                else:
                    try:
                        yield found
                    finally:
                        found.close()
                    return
            assert self._held is not None
            try:
                yield self._held
            except InvalidInput:
                raise  # the arguments were refused: what is held is as good as before
            except BaseException:
                self.release()  # the index failed while answering (or anything else): judge again next time
                raise
        finally:
            self._lock.release()

    def release(self) -> None:
        """Let go of what is held (the caller holds the lock, or the server is stopping)."""
        if self._held is not None:
            self._held.close()
        self._key = self._held = None

    def _sweep_if_due(self, workspace: Workspace) -> None:
        where = (str(workspace.checkout), str(workspace.root))
        now = self.clock()
        last = self._swept.get(where)
        if last is None or now - last >= self.sweep_every:
            sweep_stale_scratch(workspace)
            self._swept[where] = now
