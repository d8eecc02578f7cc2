"""Run the provider at one path that is the same on every build, so its output is reproducible.

The pinned provider records the absolute path it was run in (``graph.json``'s
``extracted_sources`` lists every file as ``<cwd>/<path>``) and stamps its per-file inventory
with the files' mtimes and the wall clock (``seen``). Left alone, each build's random scratch
directory under the operator's state dir and the time of the run end up in ``graph.bin``, so
two builds of one commit never give the same artifact, and a local path of the operator's is
published. Three things fix it without changing what the provider computes:

- the provider always sees the scratch tree at ``/tmp/cm-graph-run``, a path with no user,
  host or state dir in it: under bubblewrap the scratch dir is bound there (the sandbox has its
  own ``/tmp``, so every user has their own); without a sandbox the scratch is moved there for
  the run, under an exclusive lock on a 0700 directory this user created, and moved back
  afterwards; the directory is removed after the run, so the next build, of any user, can
  create it. One held by another user (their uncontained build runs, or was killed) is refused
  by name, never entered. The same path for every user and in both modes means two users, two
  machines, a host with and one without bubblewrap publish the same bytes;
- every materialised file gets mtime 0 before the run (its content is what the commit fixes);
- after the run, the inventory's ``seen`` (when the provider stamped a row in a scratch tree
  that is deleted right after; only the provider's next incremental run in that same tree would
  read it, and there is none) is set to the row's ``mtime``. Nothing else is touched.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..base import locking
from ..base.errors import FixedRootRefusal

# The directories of the scratch dir the provider uses: the tree, its HOME and its TMPDIR.
SCRATCH_PARTS = ("source", "home", "tmp")
MAX_INVENTORY_BYTES = 256 * 1024 * 1024


RUN_ROOT = Path("/tmp/cm-graph-run")


def fixed_root() -> Path:
    """Where the provider sees the scratch dir: the same path on every build of every user."""
    return RUN_ROOT


def pin_mtimes(source: Path) -> None:
    """Give every materialised file and directory mtime 0, so the inventory does not carry the
    time of materialisation."""
    for directory, _dirs, files in os.walk(source):
        for name in files:
            os.utime(os.path.join(directory, name), ns=(0, 0), follow_symlinks=False)
    # Directories after their contents (writing a file moves its directory's mtime).
    for directory, _dirs, _files in sorted(os.walk(source), key=lambda entry: -len(entry[0])):
        os.utime(directory, ns=(0, 0), follow_symlinks=False)


def normalise_inventory(output: Path) -> None:
    """Set each inventory row's clock stamp ``seen`` to its ``mtime`` (see the module note)."""
    path = output / "manifest.json"
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_INVENTORY_BYTES:
        return  # the completeness check reports a missing or unusable inventory
    try:
        rows = json.loads(path.read_bytes())
    except ValueError:
        return
    if not isinstance(rows, dict):
        return
    for row in rows.values():
        if isinstance(row, dict) and "seen" in row and "mtime" in row:
            row["seen"] = row["mtime"]
    # The provider writes its inventory with json.dump(indent=2, ensure_ascii=True); so do we.
    temporary = path.with_name(".manifest.json.normalised")
    temporary.write_text(json.dumps(rows, indent=2, ensure_ascii=True), encoding="ascii")
    os.replace(temporary, path)


@contextmanager
def moved_to_fixed_root(scratch: Path) -> Iterator[Path]:
    """Without a sandbox: move the scratch parts to ``fixed_root()`` for the run, holding an
    exclusive lock on it (one uncontained build at a time runs there), move them back, and
    remove the directory."""
    root = fixed_root()
    fd = claim(root)
    try:
        for entry in os.listdir(root):  # what a killed build of this user left behind
            _remove(root / entry)
        moved: list[str] = []
        try:
            for part in SCRATCH_PARTS:
                shutil.move(scratch / part, root / part)
                moved.append(part)
            yield root
        finally:
            for part in moved:
                if os.path.lexists(root / part):
                    shutil.move(root / part, scratch / part)
            for entry in os.listdir(root):
                _remove(root / entry)
            os.rmdir(root)  # still locked: a waiter sees the directory gone and claims anew
    finally:
        os.close(fd)


def claim(root: Path) -> int:
    """An open, locked descriptor of ``root`` (what a running uncontained build holds; a test
    holds it the same way): a 0700 directory of this user (created when
    absent), not a link, and still the one at ``root`` once locked (the previous holder removes
    it before unlocking). Waits as long as the build lock waits, then refuses as busy."""
    deadline = time.monotonic() + locking.LOCK_WAIT_SECONDS
    while True:
        fd = _open_own(root)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise locking.BuildBusy(
                    "Another uncontained build is running the provider; wait for it or build under "
                    "bubblewrap."
                ) from None
            time.sleep(0.1)
            continue
        held = os.fstat(fd)
        try:
            now = os.lstat(root)
        except FileNotFoundError:
            now = None
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)  # removed (and maybe re-created) by the build that held it: claim again


def _open_own(root: Path) -> int:
    """Create (or accept) ``root`` as a private directory of this user and open it."""
    try:
        os.mkdir(root, 0o700)
    except FileExistsError:
        pass
    except OSError:
        raise FixedRootRefusal(f"The provider's fixed run directory {root} cannot be created.") from None
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return _open_own(root)  # removed between the two calls by a finishing build
    except OSError:
        raise FixedRootRefusal(
            f"The provider's fixed run directory {root} is not a directory (a link?); remove it and "
            "build again."
        ) from None
    st = os.fstat(fd)
    if st.st_uid != os.getuid():
        os.close(fd)
        raise FixedRootRefusal(
            f"The provider's fixed run directory {root} belongs to another user (their uncontained "
            "build runs or was killed); build under bubblewrap, or have it removed once no build of "
            "theirs runs."
        )
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.close(fd)
        raise FixedRootRefusal(f"The provider's fixed run directory {root} is not private; remove it and build again.")
    return fd


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
