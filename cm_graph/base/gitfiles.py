"""HEAD read from the files git writes, with no child process: the resident server's change check.

``git rev-parse`` is a child process (1-2 ms idle, 5-7 ms on a loaded machine); a resident server
asks "did HEAD move since the last call?" on every call, and that is answered by the few files
git keeps HEAD in: ``HEAD`` itself, the ref it names (a chain of symbolic refs, at most five
deep, as git follows), and ``packed-refs`` when the ref is not loose. A linked worktree's ``.git``
is a file naming its git directory, whose ``commondir`` names where the shared refs live.

Nothing here runs anything and nothing is trusted beyond what it is: every file is opened
without following a link and non-blocking (a FIFO is refused, never waited on), must be a regular
file of bounded size, and must say exactly what git writes. Anything else (a reftable
repository, a per-worktree ref, a name outside the conservative ref grammar, an unborn branch, a
``.git`` that is a link) gives ``None``: the caller then asks the git wrapper, as it always did.
The key returned holds every file's identity and the bytes of the small ones, so two equal keys
mean git would read the same HEAD from the same files.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

MAX_SMALL_FILE = 4096  # HEAD, a loose ref, a .git file, commondir
MAX_PACKED_REFS = 16 * 1024 * 1024
SYMREF_MAXDEPTH = 5  # git's own limit on a chain of symbolic refs
_OBJECT = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})?")
# A conservative subset of git check-ref-format: ASCII components that do not start with a dot,
# contain no "..", and do not end with ".lock". Anything else is left to git.
_COMPONENT = r"[A-Za-z0-9_+=,@-][A-Za-z0-9._+=,@-]*"
_REF_NAME = re.compile(rf"refs/{_COMPONENT}(?:/{_COMPONENT})*")
# Refs each worktree keeps in its own git directory (git's ref namespaces); not followed here.
_PER_WORKTREE = ("refs/worktree/", "refs/bisect/", "refs/rewritten/")
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

Identity = tuple[int, int, int, int, int, int, int, int]
# (path, identity or None when the file is absent, its bytes when small and read)
FileKey = tuple[str, "Identity | None", "bytes | None"]


def identity(st: os.stat_result) -> Identity:
    """What moves when a file is replaced, rewritten, chmod-ed, chown-ed or linked."""
    return (st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_uid, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Unusual(Exception):
    """A layout this reader does not follow: the caller asks git instead."""


def _read_small(path: Path, limit: int = MAX_SMALL_FILE) -> tuple[Identity, bytes] | None:
    """(identity, bytes) of a regular file, None when it does not exist; Unusual otherwise."""
    try:
        fd = os.open(path, _FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        raise Unusual(path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise Unusual(path)
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) != st.st_size:
        raise Unusual(path)  # changed while it was read
    return identity(st), data


def _one_line(data: bytes) -> bytes:
    if not data.endswith(b"\n") or data.count(b"\n") != 1:
        raise Unusual("not one line")
    return data[:-1]


def git_dirs(checkout: Path, keys: list[FileKey]) -> tuple[Path, Path]:
    """(the git directory, the common directory) of a work tree's top, as git finds them."""
    dot_git = checkout / ".git"
    try:
        st = os.lstat(dot_git)
    except OSError:
        raise Unusual(dot_git) from None
    if stat.S_ISDIR(st.st_mode):
        # The directory's own times move with every lock file git makes in it: only which
        # directory it is, and whose, is part of the key.
        keys.append((str(dot_git), (st.st_dev, st.st_ino, st.st_mode, 0, st.st_uid, 0, 0, 0), None))
        git_dir = dot_git
    elif stat.S_ISREG(st.st_mode):
        found = _read_small(dot_git)
        if found is None:
            raise Unusual(dot_git)
        keys.append((str(dot_git), *found))
        line = _one_line(found[1])
        if not line.startswith(b"gitdir: ") or b"\0" in line:
            raise Unusual(dot_git)
        git_dir = checkout / os.fsdecode(line[8:])
    else:
        raise Unusual(dot_git)  # a link, or anything else
    common = _read_small(git_dir / "commondir")
    keys.append((str(git_dir / "commondir"), *(common or (None, None))))
    if common is None:
        return git_dir, git_dir
    line = _one_line(common[1])
    if not line or b"\0" in line:
        raise Unusual(git_dir)
    return git_dir, git_dir / os.fsdecode(line)


def _packed(common: Path, name: str, keys: list[FileKey]) -> bytes | None:
    """The object ``name`` has in ``packed-refs`` (None when it is not there)."""
    path = common / "packed-refs"
    found = _read_small(path, MAX_PACKED_REFS)
    if found is None:
        keys.append((str(path), None, None))
        return None
    keys.append((str(path), found[0], None))  # the identity moves with any rewrite (git renames a lock in)
    wanted = b" " + name.encode("ascii") + b"\n"
    data = found[1]
    at = data.find(wanted)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        if at - start in (40, 64) and _OBJECT.fullmatch(data, start, at):
            return data[start:at]
        at = data.find(wanted, at + 1)
    return None


def read_head(checkout: Path) -> tuple[str, tuple[FileKey, ...]] | None:
    """(the object HEAD names, the key of every file read to find it), or None when the layout is
    one this reader leaves to git (see the module's docstring)."""
    keys: list[FileKey] = []
    try:
        git_dir, common = git_dirs(checkout, keys)
        if os.path.lexists(common / "reftable"):
            return None
        path = git_dir / "HEAD"
        name = "HEAD"
        for _depth in range(SYMREF_MAXDEPTH + 1):
            found = _read_small(path)
            keys.append((str(path), *(found or (None, None))))
            if found is None:
                if name == "HEAD":
                    return None
                value = _packed(common, name, keys)
                return None if value is None else (value.decode("ascii"), tuple(keys))
            line = _one_line(found[1])
            if _OBJECT.fullmatch(line):
                return line.decode("ascii"), tuple(keys)
            if not line.startswith(b"ref: "):
                return None
            target = line[5:].decode("ascii", "replace")
            if not _REF_NAME.fullmatch(target) or target.endswith(".lock") or ".." in target:
                return None
            if target.startswith(_PER_WORKTREE):
                return None
            name, path = target, common / target
        return None  # deeper than git follows
    except Unusual:
        return None
