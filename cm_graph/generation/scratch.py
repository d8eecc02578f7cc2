"""Scratch files with an owner: every build's temporary names carry its token, and only the
scratch of a dead owner is ever swept.

A builder (a build, a publish, an index derivation, an audit, a change-coupling history) first
takes a token: an owner record ``owners/<token>`` is created already flock-ed (it is locked under
a temporary name and renamed into place) and stays locked for as long as the builder runs. Every
scratch name it then creates embeds the token. The kernel drops the lock when the process dies,
however it dies (SIGKILL included), so "the record's lock can be taken" means "its owner is gone".
Any command that takes the workspace sweeps: scratch whose owner record is unlocked or missing is
removed, scratch of a live owner is never touched. Listing the scratch before the records makes
the order safe: a record always exists before the first scratch name with its token, and is
removed only after its owner has removed (or renamed into place) everything it made.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..base.privfs import ensure_private_dir
from .layout import Workspace

OWNERS_DIR = "owners"
_HEX = "[0-9a-f]{32}"
_SQLITE_SIDE = "(?:-journal|-wal|-shm)?"
# The scratch names (token in the group "token"), by the directory they live in.
_BUILD = re.compile(rf"\.(?P<token>{_HEX})\.build")
_STAGING = re.compile(rf"\.(?P<token>{_HEX})\.staging")
_INDEX = re.compile(
    rf"(?:\.(?:{_HEX}(?:\.history)?|\.audit-{_HEX})\.sqlite\.(?P<token>{_HEX})\.(?:tmp|staging|resolved)"
    rf"|\.audit-(?P<audit>{_HEX})\.sqlite){_SQLITE_SIDE}"
    # The atomic-write siblings of seals: a builder's carry its token; a question's re-seal has a
    # random name, and removing it only makes that optional re-seal fail quietly.
    rf"|\.{_HEX}\.(?:(?:history\.)?sqlite\.|tests\.json\.)?seal\.(?P<seal>{_HEX})\.tmp"
    # The write sibling of an observed test map (``cm-graph tests record``).
    rf"|\.{_HEX}\.tests\.json\.(?P<observed>{_HEX})\.tmp"
)
_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def owners_dir(workspace: Workspace) -> Path:
    return workspace.directory / OWNERS_DIR


# What indexes/ holds per generation: the index, its seal, and the artifact's seal.
DERIVED_SUFFIXES = (".sqlite", ".sqlite.seal", ".seal")


@contextmanager
def scratch_owner(workspace: Workspace, *, claim: str | None = None) -> Iterator[str]:
    """A fresh token whose owner record stays locked until the block ends (or the process dies).

    The caller removes its own scratch; the record goes last, so a sweeper never sees scratch
    without a live record while its owner still runs. ``claim`` is a generation id a publisher
    is staging: its derived files (index, seals) exist before its directory does, and a sweep
    leaves them alone while the claim's owner lives.
    """
    directory = owners_dir(workspace)
    ensure_private_dir(directory, private_from=workspace.root)
    for _attempt in range(_RECORD_ATTEMPTS):
        token, fd = _locked_record(directory, claim)
        if fd is not None:
            break
    else:
        raise FileNotFoundError(errno.ENOENT, "An owner record was removed before it was locked.")
    try:
        yield token
    finally:
        _unlink(directory / token)
        os.close(fd)


_RECORD_ATTEMPTS = 3


def _locked_record(directory: Path, claim: str | None) -> tuple[str, int | None]:
    """A new owner record, locked and renamed into place: (token, its descriptor). The pending
    name is visible for an instant before its lock is taken, and a concurrent sweep that locks it
    first takes it for a dead owner's and removes it; the rename then finds nothing, and the
    descriptor is None (try again with a fresh token)."""
    import uuid  # builders only: the question path never creates scratch

    token = uuid.uuid4().hex
    pending = directory / f".{token}.new"
    fd = os.open(pending, _FLAGS, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{os.getpid()}\n{claim or ''}\n".encode("ascii"))
        os.rename(pending, directory / token)
    except FileNotFoundError:
        os.close(fd)
        return token, None
    except BaseException:
        os.close(fd)
        _unlink(pending)
        raise
    return token, fd


def _scratch_entries(workspace: Workspace) -> list[tuple[Path, str]]:
    """(path, token) of every scratch name in the workspace, by the naming rules above."""
    found = []
    for directory, pattern in (
        (workspace.directory, _BUILD),
        (workspace.generations_dir, _STAGING),
        (workspace.indexes_dir, _INDEX),
    ):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            match = pattern.fullmatch(name)
            if match:
                found.append((directory / name, _token(match)))
    return found


def _token(match: re.Match[str]) -> str:
    return next((value for value in match.groupdict().values() if value), "")


# The atomic-write siblings of the pointers: only a publisher writes them, under the build lock.
_POINTER_TEMP = re.compile(rf"\.(?:current|attempt)\.{_HEX}\.tmp")


def sweep_stale_scratch(workspace: Workspace, *, build_lock_held: bool = False) -> list[str]:
    """Remove the scratch of dead owners (and their records); the names removed, for reporting.

    With ``build_lock_held`` (a publisher), the pointers' write siblings go too: no one else can
    be writing them. Never raises: a sweep that cannot finish leaves the rest for the next command.
    """
    if not os.path.isdir(workspace.directory):
        return []
    try:
        entries = _scratch_entries(workspace) + _unclaimed_derived(workspace)
        if build_lock_held:
            entries += [
                (workspace.directory / name, "") for name in os.listdir(workspace.directory)
                if _POINTER_TEMP.fullmatch(name)
            ]
        live, dead = _owner_records(workspace)
    except OSError:
        return []
    removed = []
    try:
        for path, token in entries:
            if token in live:
                continue
            if token.startswith("generation:") and os.path.isdir(workspace.generation_dir(token[11:])):
                continue  # published meanwhile (its owner renamed it in before leaving)
            if os.path.isdir(path) and not os.path.islink(path):
                import shutil  # only when there is a leftover to remove: a question's sweep finds none

                shutil.rmtree(path, ignore_errors=True)
            else:
                _unlink(path)
            removed.append(path.name)
        for record, _fd in dead:
            _unlink(record)
    finally:
        for _record, fd in dead:
            os.close(fd)
    return removed


def _unclaimed_derived(workspace: Workspace) -> list[tuple[Path, str]]:
    """Index files and seals of generations that do not exist, keyed ``generation:<id>`` so a
    live publisher's claim protects them (see ``_owner_records``)."""
    try:
        names = os.listdir(workspace.indexes_dir)
    except OSError:
        return []
    found = []
    for name in names:
        generation = name[:32]
        if re.fullmatch(_HEX, generation) and name[32:] in DERIVED_SUFFIXES:
            if not os.path.isdir(workspace.generation_dir(generation)):
                found.append((workspace.indexes_dir / name, f"generation:{generation}"))
    return found


def _owner_records(workspace: Workspace) -> tuple[set[str], list[tuple[Path, int]]]:
    """Tokens (and ``generation:<id>`` claims) of live owners, and the records of dead ones
    (each held locked by us until swept)."""
    live: set[str] = set()
    dead: list[tuple[Path, int]] = []
    directory = owners_dir(workspace)
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return live, dead
    for name in names:
        token = name[1:33] if name.startswith(".") else name
        path = directory / name
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue  # removed by its owner meanwhile (or not a file we made)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            live.add(token)
            try:
                claim = os.read(fd, 128).decode("ascii", "replace").split("\n")[1:2]
            except OSError:
                claim = []
            os.close(fd)
            live.update(f"generation:{value}" for value in claim if value)
            continue
        dead.append((path, fd))
    return live, dead


def _unlink(path: Path) -> None:
    """Remove ``path`` if it can be removed: a sweep or cleanup never fails for a leftover."""
    try:
        os.unlink(path)
    except OSError:
        pass
