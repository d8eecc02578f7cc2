"""Private files and directories: owner-only, never through a symlink, replaced atomically.

Evidence and graph state are private to the operator. Modes are set at creation and checked again
on every read, because a file we made 0600 can have been replaced, hard-linked or chmod-ed since.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

from .errors import Unsafe, UnsafeDestination, UnsafeStateRoot

DIR_MODE = 0o700
FILE_MODE = 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _check_private_stat(st: os.stat_result, *, is_dir: bool) -> None:
    kind_ok = stat.S_ISDIR(st.st_mode) if is_dir else stat.S_ISREG(st.st_mode)
    if not kind_ok or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise Unsafe("Private state is not an owner-only " + ("directory." if is_dir else "file."))
    if not is_dir and st.st_nlink != 1:
        raise Unsafe("Private state file has more than one link.")


def _check_private_dir_stat(path: Path, st: os.stat_result) -> None:
    """Refuse a directory of private state that is not owner-only. One the user made themselves
    (``mkdir -p D``: theirs, but 0755) is named with the command that fixes it: cm-graph never
    chmods a directory it did not create, and the path is the one the operator chose."""
    if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and st.st_mode & 0o077:
        raise UnsafeStateRoot(
            f"The private state directory {path} is mode {stat.S_IMODE(st.st_mode):04o}, not owner-only; "
            f"run `chmod 700 {shlex.quote(str(path))}`, or point CM_GRAPH_HOME or --state-dir at another directory."
        )
    _check_private_stat(st, is_dir=True)


def check_private_dir(path: Path) -> None:
    try:
        st = os.lstat(path)
    except OSError:
        raise Unsafe("Private state directory is unavailable.") from None
    _check_private_dir_stat(path, st)


def ensure_private_dir(path: Path, *, private_from: Path) -> None:
    """Create ``path`` (0700) and every missing directory between ``private_from`` and it.

    Directories from ``private_from`` down must be owner-only real directories; those above it
    only need to be real directories.
    """
    path = Path(path)
    private_from = Path(private_from)
    chain = [path, *path.parents]
    for directory in reversed(chain):
        inside = directory == private_from or private_from in directory.parents
        try:
            st = os.lstat(directory)
        except FileNotFoundError:
            try:
                os.mkdir(directory, DIR_MODE)
            except FileExistsError:
                # Another process made it between the two calls: judge theirs like any other.
                st = os.lstat(directory)
            else:
                os.chmod(directory, DIR_MODE)
                continue
        if inside:
            _check_private_dir_stat(directory, st)
        elif not stat.S_ISDIR(st.st_mode):
            raise Unsafe("A parent of the private state directory is not a directory.")


def open_private_read(path: Path) -> int:
    """Open an existing private regular file without following a symlink; return its fd.

    Opened non-blocking so that a FIFO planted where private state belongs is refused by the
    regular-file check instead of hanging the open (it changes nothing for a regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError:
        raise Unsafe("Private state file could not be opened safely.") from None
    try:
        _check_private_stat(os.fstat(fd), is_dir=False)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_private_bytes(path: Path, limit: int) -> bytes:
    """Read at most ``limit`` bytes of a private file; more is a refusal, not a truncation."""
    fd = open_private_read(path)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        from .errors import Oversized

        raise Oversized("A private state file exceeds its size budget.")
    return data


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | _CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temp_sibling(destination: Path, suffix: str = ".tmp") -> Path:
    return destination.with_name(f".{destination.name}.{os.urandom(16).hex()}{suffix}")


def owned_sibling(destination: Path, token: str | None) -> Path:
    """The write sibling of ``destination`` named by a scratch owner's ``token``, so that a
    sweep knows whose it is (``generation/scratch.py``); a random one without a token."""
    return destination.with_name(f".{destination.name}.{token}.tmp") if token else temp_sibling(destination)


def create_exclusive(path: Path) -> int:
    """A brand-new 0600 file: never an existing one, never through a symlink."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return fd


def check_replaceable(destination: Path) -> None:
    """Refuse a destination that is neither absent, a regular file nor a symlink to one.

    The seed replaces an existing destination rather than reopening it, which is right for a file
    or a symlink to a file (the link is replaced, its target untouched). A device node, FIFO,
    socket or directory is something else the operator owns (as root, ``/dev/null`` itself), and
    so is a symlink that leads to one (``/dev/stdout`` -> ``/proc/self/fd/1``): renaming over it
    would destroy it, so nothing is written at all. A dangling symlink is replaced.
    """
    try:
        mode = os.lstat(destination).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        try:
            mode = os.stat(destination).st_mode
        except OSError:
            return  # dangling (or a loop): nothing behind it to destroy
    if not stat.S_ISREG(mode):
        raise UnsafeDestination(
            "The output path exists and is not a regular file (a device, FIFO, socket, directory or a "
            "symlink to one, such as /dev/stdout); name a file instead."
        )


def write_private_atomic(destination: Path, data: bytes, *, token: str | None = None) -> None:
    """Write ``data`` to a fresh private sibling, fsync it, and rename it over ``destination``.

    An existing file or symlink at the destination is replaced, never written through; anything
    else there is refused before a byte is written (``check_replaceable``, checked again just
    before the rename). A failure leaves the previous file intact with no temporary file behind.
    ``token`` (a scratch owner's) names the sibling, so a sweep knows whose it is; else its name
    is random.
    """
    check_replaceable(destination)
    staging = owned_sibling(destination, token)
    fd = create_exclusive(staging)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        check_replaceable(destination)
        os.replace(staging, destination)
    except BaseException:
        try:
            os.unlink(staging)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(destination.parent)


def read_regular_file(path: Path, limit: int, what: str) -> bytes:
    """Read a file the operator named: a regular file only (a FIFO or device would hang or never
    end), at most ``limit`` bytes, refused past that rather than truncated."""
    from .errors import InvalidInput

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _CLOEXEC)
    except OSError:
        raise InvalidInput(f"The {what} cannot be opened.") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise InvalidInput(f"The {what} is not a regular file.")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InvalidInput(f"The {what} exceeds its {limit:,}-byte budget.")
    return data
