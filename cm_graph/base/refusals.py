"""The refusal a fault of the machine stands for: an operating system error or SQLite's own words,
turned into a reason code and one sentence (the CLI's boundary, ``cli/boundary.py``, reports it).

A damaged index surfaces from SQLite as ``apsw.Error`` anywhere a command reads it; it is reported
as the ``unreadable`` refusal with the one remedy that works, never as a traceback. An operating
system error (a read-only or full disk, a directory where a file belongs, a permission) is an
expected fault of the machine, not a bug: it is reported by its class as a reason code and one
sentence that names no local path (``OSError.filename`` is never printed).
"""

from __future__ import annotations

import errno

import apsw

from .errors import Refusal

# errno -> (reason, sentence). The sentence says what to do; the path stays out of it.
OS_REFUSALS: dict[int, tuple[str, str]] = {
    errno.EROFS: ("read_only", "The file system is read-only; point --state-dir (or the output) at a writable one."),
    errno.ENOSPC: ("disk_full", "The disk is full; free some space and try again."),
    errno.EDQUOT: ("disk_full", "The disk quota is exhausted; free some space and try again."),
    errno.EACCES: ("permission_denied", "Permission was denied on a file or directory this command needs."),
    errno.EPERM: ("permission_denied", "The operation is not permitted on a file or directory this command needs."),
    errno.EISDIR: ("not_a_file", "A directory stands where a file is expected (a path given, or in the state)."),
    errno.ENOTDIR: ("not_a_directory", "A file stands where a directory is expected."),
    errno.ENOENT: ("missing", "A file or directory this command needs does not exist."),
    errno.ELOOP: ("unsafe", "A symlink stands where private state must be a real file or directory."),
    errno.ENAMETOOLONG: ("invalid", "A path is too long for the file system."),
    errno.EMFILE: ("io", "Too many files are open; try again."),
}


def refusal_for_os_error(error: OSError) -> Refusal:
    """The refusal an ``OSError`` stands for, by its errno class; anything else is ``io``."""
    if isinstance(error.errno, int) and error.errno in OS_REFUSALS:
        reason, sentence = OS_REFUSALS[error.errno]
        return Refusal(sentence, reason=reason)
    detail = error.strerror or "an input/output error"
    return Refusal(f"The file system failed the operation ({detail}).", reason="io")


def refusal_for_sqlite_error(error: apsw.Error) -> Refusal:
    """SQLite's own words for a full disk, a read-only file and a file it cannot open; these are
    faults of the machine, not a damaged index, so the remedy is not a rebuild."""
    if isinstance(error, apsw.FullError):
        return Refusal(OS_REFUSALS[errno.ENOSPC][1], reason="disk_full")
    if isinstance(error, apsw.ReadOnlyError):
        return Refusal(OS_REFUSALS[errno.EROFS][1], reason="read_only")
    return Refusal(
        "An index file could not be opened (unwritable, missing or not a file); check the state directory.",
        reason="unreadable",
    )
