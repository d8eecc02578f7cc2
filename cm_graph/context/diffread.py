"""A diff read through the one git wrapper: which files changed, how, and which lines on each side.

``cm-graph changes`` asks about one of five diffs (``DiffSpec``): the working tree or the staged
index against HEAD, the working tree against the merge base with a ref, one commit against its
first parent, or one commit against another. Two ``git diff`` children read it, both with
``--find-renames`` and, from the wrapper (``base/git.py``), ``--no-ext-diff --no-textconv`` and
every filter driver neutralised, so no program a repository configures runs:

- ``--raw -z``: the files, each with its status, modes, object names and exact path bytes (a name
  with a space, a newline, a non-UTF-8 byte or a terminal escape comes through whole);
- ``-U0 --inter-hunk-context=0``: the patch, of which only the section heads (``diff --git``),
  ``Binary files`` lines and the ``-``/``+`` lines are read, counting old and new line numbers
  from each hunk head, so a configured context or inter-hunk context changes nothing. The
  patch's sections come in the raw listing's order (one git, one order), and the two are zipped;
  a count that disagrees is a refusal, never a guess.

Nothing here reads a file's content; ``side_bytes`` does, for one side of one file: a blob of the
object database (``git cat-file``), or a working-tree file opened without following a link.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..base.errors import BadRevision, GitFailure, InvalidInput, Oversized
from ..base.git import MAX_BLOB_BYTES, BlobReader, is_object_name, resolve_revision, run_git
from ..base.records import record
from ..base.rules import is_bounded_text

MODES = ("worktree", "staged", "base", "commit", "range")
EMPTY_TREE_SHA1 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAX_DIFF_FILES = 5_000
_HUNK = re.compile(rb"^@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))? @@")
_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "type_changed",
           "U": "unmerged", "X": "unknown"}
_NULL_OBJECT = re.compile(r"^0+$")


@record
class DiffSpec:
    """What to diff: ``mode`` (one of ``MODES``) and its argument (the ref, commit or range)."""

    mode: str
    argument: str | None = None


@record
class Sides:
    """The commits of the diff's two sides: ``old`` always a commit (None: the empty tree of a
    root commit), ``new`` a commit, or None for the staged index or the working tree (``new_kind``
    says which: "commit", "index" or "worktree")."""

    old: str | None
    new: str | None
    new_kind: str
    args: tuple[str, ...]


@record
class FileChange:
    """One file of the diff: its status, paths and modes, object names (None when the side is
    absent or is the working tree), and the changed line numbers on each side."""

    status: str
    old_path: str | None
    new_path: str | None
    old_mode: str
    new_mode: str
    old_blob: str | None
    new_blob: str | None
    binary: bool
    old_lines: tuple[int, ...]
    new_lines: tuple[int, ...]
    similarity: int | None

    @property
    def submodule(self) -> bool:
        return "160000" in (self.old_mode, self.new_mode)

    @property
    def symlink(self) -> bool:
        return "120000" in (self.old_mode, self.new_mode)


def _revision(checkout: Path, text: str, what: str) -> str:
    if not is_bounded_text(text, 256) or text.startswith("-"):
        raise BadRevision(f"The {what} must be single-line text that does not start with '-'.")
    try:
        return resolve_revision(checkout, text).commit
    except GitFailure:
        raise BadRevision(f"Git cannot resolve the {what} {text!r} in this checkout.") from None


def _merge_base(checkout: Path, one: str, other: str) -> str:
    done = run_git(checkout, "merge-base", one, other, check=False)
    found = done.stdout.decode("ascii", "replace").strip()
    if done.returncode != 0 or not is_object_name(found):
        raise BadRevision("The two revisions share no history (no merge base), so there is no diff between them.")
    return found


def _first_parent(checkout: Path, commit: str) -> str | None:
    done = run_git(checkout, "rev-list", "--parents", "-n", "1", commit, "--")
    names = done.stdout.decode("ascii", "replace").split()
    return names[1] if len(names) > 1 else None


def resolve_sides(checkout: Path, spec: DiffSpec) -> Sides:
    """The two sides of ``spec`` as commits, and the arguments that make ``git diff`` read them."""
    if spec.mode not in MODES:
        raise InvalidInput(f"The diff must be one of: {', '.join(MODES)}.")
    if spec.mode in ("worktree", "staged"):
        head = _revision(checkout, "HEAD", "revision")
        return Sides(head, None, "worktree" if spec.mode == "worktree" else "index",
                     (head,) if spec.mode == "worktree" else ("--cached", head))
    argument = spec.argument or ""
    if spec.mode == "base":
        base = _merge_base(checkout, _revision(checkout, argument, "base ref"), _revision(checkout, "HEAD", "revision"))
        return Sides(base, None, "worktree", (base,))
    if spec.mode == "commit":
        commit = _revision(checkout, argument, "commit")
        parent = _first_parent(checkout, commit)
        return Sides(parent, commit, "commit", (parent or EMPTY_TREE_SHA1, commit))
    one, dots, other = argument.partition("...")
    if not dots:
        one, dots, other = argument.partition("..")
    if not dots or not one or not other:
        raise BadRevision("A range is written A..B (or A...B from their merge base).")
    old, new = _revision(checkout, one, "range start"), _revision(checkout, other, "range end")
    if dots == "...":
        old = _merge_base(checkout, old, new)
    return Sides(old, new, "commit", (old, new))


_COMMON = ("--find-renames", "--no-relative", "--full-index", "--no-abbrev")


def _submodules(sides: Sides) -> tuple[str, ...]:
    """A gitlink's move to another commit is named when neither side is the working tree: the
    staged index and commits hold a submodule as an object name, so git reads nothing of the
    submodule itself (``--ignore-submodules=dirty`` overrides the git wrapper's ``all`` for this
    diff only). Against the working tree the wrapper's ``all`` stands: git would open the
    submodule's repository to read its HEAD, and a submodule's repository is as untrusted as the
    checkout's (``base/git.py``), so a worktree diff does not see a submodule moved there."""
    return () if sides.new_kind == "worktree" else ("--ignore-submodules=dirty",)


def read_diff(checkout: Path, sides: Sides) -> list[FileChange]:
    """The files of the diff, in git's order, each with its changed lines on both sides."""
    common = (*_COMMON, *_submodules(sides))
    raw = run_git(checkout, "diff", "--raw", "-z", *common, *sides.args, "--").stdout
    patch = run_git(checkout, "diff", "-U0", "--inter-hunk-context=0", "--no-prefix", *common,
                    *sides.args, "--").stdout
    entries = _raw_entries(raw)
    if len(entries) > MAX_DIFF_FILES:
        raise Oversized(f"The diff touches more than {MAX_DIFF_FILES:,} files, more than cm-graph maps at once.")
    sections = _patch_sections(patch)
    read = [entry for entry in entries if entry[0] != "U"]
    if len(sections) != len(read):
        raise GitFailure("Git's file listing and its patch of the diff disagree; cm-graph does not guess between them.")
    changes = []
    by_section = iter(sections)
    for status, old_mode, new_mode, old_blob, new_blob, score, old_path, new_path in entries:
        binary, old_lines, new_lines = (False, (), ()) if status == "U" else next(by_section)
        changes.append(FileChange(_STATUS.get(status, "unknown"), old_path, new_path, old_mode, new_mode,
                                  old_blob, new_blob, binary, old_lines, new_lines, score))
    return changes


def _name(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")


def _object(value: str) -> str | None:
    return None if _NULL_OBJECT.match(value) else value


def _raw_entries(raw: bytes) -> list[tuple[str, str, str, str | None, str | None, int | None, str | None, str | None]]:
    """``:oldmode newmode old new STATUS[score]\\0path\\0[path\\0]`` records."""
    fields = raw.split(b"\0")
    entries = []
    at = 0
    while at < len(fields) and fields[at]:
        head = fields[at].decode("ascii", "replace")
        if not head.startswith(":"):
            raise GitFailure("Git returned a malformed diff listing.")
        parts = head[1:].split()
        if len(parts) != 5:
            raise GitFailure("Git returned a malformed diff listing.")
        old_mode, new_mode, old_blob, new_blob, status = parts
        letter, score = status[0], (int(status[1:]) if status[1:].isdigit() else None)
        paired = letter in ("R", "C")
        names = fields[at + 1: at + (3 if paired else 2)]
        if len(names) != (2 if paired else 1):
            raise GitFailure("Git ended the diff listing in the middle of a record.")
        at += 3 if paired else 2
        first, second = _name(names[0]), _name(names[-1])
        old_path = None if letter == "A" else first
        new_path = None if letter == "D" else second
        entries.append((letter, old_mode, new_mode, None if letter == "A" else _object(old_blob),
                        None if letter == "D" else _object(new_blob), score, old_path, new_path))
    return entries


def _patch_sections(patch: bytes) -> list[tuple[bool, tuple[int, ...], tuple[int, ...]]]:
    """(binary, old changed lines, new changed lines) of each ``diff --git`` section, in order."""
    sections: list[tuple[bool, list[int], list[int]]] = []
    old_at = new_at = 0
    in_hunk = False
    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git ") or line.startswith(b"diff --cc "):
            sections.append((False, [], []))
            in_hunk = False
            continue
        if not sections:
            continue
        if not in_hunk and line.startswith(b"Binary files ") or line == b"GIT binary patch":
            binary, old, new = sections[-1]
            sections[-1] = (True, old, new)
            continue
        found = _HUNK.match(line)
        if found:
            old_at, new_at = int(found.group(1)), int(found.group(3))
            # a side of 0 lines names the line before the hunk: its first line is the next one
            if found.group(2) == b"0":
                old_at += 1
            if found.group(4) == b"0":
                new_at += 1
            in_hunk = True
            continue
        if not in_hunk:
            continue
        if line.startswith(b"-"):
            sections[-1][1].append(old_at)
            old_at += 1
        elif line.startswith(b"+"):
            sections[-1][2].append(new_at)
            new_at += 1
        elif line.startswith(b" "):
            old_at += 1
            new_at += 1
    return [(binary, tuple(old), tuple(new)) for binary, old, new in sections]


class SideReader:
    """The bytes of one side of a file: a blob by name, or a working-tree file read without
    following a link (None when it is not a regular file, or is over ``MAX_BLOB_BYTES``)."""

    def __init__(self, checkout: Path) -> None:
        self._checkout = checkout
        self._blobs: BlobReader | None = None

    def blob(self, name: str) -> bytes | None:
        if self._blobs is None:
            self._blobs = BlobReader(self._checkout)
        size = _blob_size(self._checkout, name)
        if size is None or size > MAX_BLOB_BYTES:
            return None
        return b"".join(self._blobs.chunks(name, size))

    def worktree(self, path: str) -> bytes | None:
        """The working-tree file at ``path``, each directory and the file opened with
        ``O_NOFOLLOW`` under the checkout (a link anywhere on the way is not read)."""
        parts = path.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return None
        flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self._checkout, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                try:
                    nxt = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
                except OSError:
                    return None
                os.close(fd)
                fd = nxt
            try:
                leaf = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
            except OSError:
                return None
            try:
                info = os.fstat(leaf)
                if not _is_regular(info.st_mode) or info.st_size > MAX_BLOB_BYTES:
                    return None
                chunks = []
                while chunk := os.read(leaf, 1 << 16):
                    chunks.append(chunk)
                return b"".join(chunks)
            finally:
                os.close(leaf)
        finally:
            os.close(fd)

    def close(self) -> None:
        if self._blobs is not None:
            self._blobs.close()


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def _blob_size(checkout: Path, name: str) -> int | None:
    done = run_git(checkout, "cat-file", "-s", name, check=False)
    text = done.stdout.decode("ascii", "replace").strip()
    return int(text) if done.returncode == 0 and text.isdigit() else None
