"""Reading and writing a few files inside a checkout without ever following a link.

A repository is untrusted: it can commit ``AGENTS.md -> ~/.bashrc`` or a ``.cursor`` directory
that is a symlink to somewhere else, and a command that writes "its" file there would write
outside the checkout. So every path is walked from the checkout's top level one component at a
time with ``O_NOFOLLOW`` directory descriptors, a link anywhere on the way is refused
(``LinkedPath``), and a write is a new file in the same directory renamed over the old one
(``os.replace`` on a directory descriptor: atomic, and a rename replaces a name, never what a
link points at). Files keep their mode; new ones are 0644, as a file a person would commit.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path, PurePosixPath

from ..base.errors import InvalidInput, LinkedPath

MAX_FILE_BYTES = 1 << 20  # an instructions file or a host config; anything larger is not one
NEW_FILE_MODE = 0o644
NEW_DIRECTORY_MODE = 0o755
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(relative: str) -> tuple[list[str], str]:
    path = PurePosixPath(relative)
    if path.is_absolute() or any(part in ("", ".", "..") for part in path.parts):
        raise InvalidInput("A checkout file must be a plain relative path.")
    return list(path.parts[:-1]), path.parts[-1]


def _kind(directory: int, name: str) -> int | None:
    """The ``st_mode`` of ``name`` in ``directory`` (the link itself, never its target), or None."""
    try:
        return os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None


def _open_directory(checkout: Path, relative: str, *, create: bool) -> int | None:
    """A descriptor of the directory ``relative``'s file lives in (None when it does not exist and
    ``create`` is false), refusing a link or a non-directory on the way."""
    return _open_directories(checkout, _parts(relative)[0], create=create)


def _open_directories(checkout: Path, directories: list[str], *, create: bool) -> int | None:
    """A descriptor of ``checkout/directories[0]/...``, walked one component at a time."""
    descriptor = os.open(checkout, _DIRECTORY_FLAGS)
    try:
        for walked, part in enumerate(directories, 1):
            mode = _kind(descriptor, part)
            where = "/".join(directories[:walked])
            if mode is None:
                if not create:
                    os.close(descriptor)
                    return None
                os.mkdir(part, NEW_DIRECTORY_MODE, dir_fd=descriptor)
            elif stat.S_ISLNK(mode):
                raise LinkedPath(f"{where} in the checkout is a symlink; cm-graph agents does not write through it.")
            elif not stat.S_ISDIR(mode):
                raise InvalidInput(f"{where} in the checkout is not a directory.")
            inner = os.open(part, _DIRECTORY_FLAGS, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _refuse_unwritable(directory: int, relative: str, name: str) -> int | None:
    """The mode of the file ``name`` (None when absent), refused when it is a link or not a
    regular file."""
    mode = _kind(directory, name)
    if mode is not None and stat.S_ISLNK(mode):
        raise LinkedPath(f"{relative} in the checkout is a symlink; cm-graph agents does not write through it.")
    if mode is not None and not stat.S_ISREG(mode):
        raise InvalidInput(f"{relative} in the checkout is not a regular file.")
    return mode


def read_checkout_file(checkout: Path, relative: str) -> bytes | None:
    """The bytes of ``relative`` in the checkout, or None when there is no such file."""
    directory = _open_directory(checkout, relative, create=False)
    if directory is None:
        return None
    try:
        name = _parts(relative)[1]
        if _refuse_unwritable(directory, relative, name) is None:
            return None
        descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(directory)
    if len(data) > MAX_FILE_BYTES:
        raise InvalidInput(f"{relative} is larger than {MAX_FILE_BYTES} bytes; it is not a file cm-graph writes to.")
    return data


def write_checkout_file(checkout: Path, relative: str, data: bytes) -> None:
    """Replace (or create) ``relative`` with ``data``, atomically, keeping the old file's mode."""
    directory = _open_directory(checkout, relative, create=True)
    assert directory is not None
    name = _parts(relative)[1]
    temporary = f".{name}.cm-graph-{secrets.token_hex(8)}.tmp"
    try:
        mode = _refuse_unwritable(directory, relative, name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(temporary, flags, 0o600, dir_fd=directory)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fchmod(handle.fileno(), stat.S_IMODE(mode) if mode is not None else NEW_FILE_MODE)
                os.fsync(handle.fileno())
            _refuse_unwritable(directory, relative, name)  # planted while we wrote: still refused
            os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=directory)
            except FileNotFoundError:
                pass
            raise
        os.fsync(directory)
    finally:
        os.close(directory)


def delete_checkout_file(checkout: Path, relative: str) -> None:
    """Delete ``relative`` (a file this command created), then each directory it leaves empty
    on its way up to the checkout (directories ``write_checkout_file`` made for it)."""
    directories, name = _parts(relative)
    directory = _open_directory(checkout, relative, create=False)
    if directory is None:
        return
    try:
        if _refuse_unwritable(directory, relative, name) is not None:
            os.unlink(name, dir_fd=directory)
            os.fsync(directory)
    finally:
        os.close(directory)
    for depth in range(len(directories), 0, -1):
        parent = _open_directories(checkout, directories[:depth - 1], create=False)
        if parent is None:
            return
        try:
            os.rmdir(directories[depth - 1], dir_fd=parent)
        except OSError:  # not empty: it held more than what was created here
            return
        finally:
            os.close(parent)
