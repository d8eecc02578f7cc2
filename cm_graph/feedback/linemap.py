"""Carry a recorded cited set from the commit it was recorded on to a later commit.

An eval case's citations are ``PATH#L<start>[-L<end>]`` strings in the recorded commit's
coordinates. Comparing them verbatim with a later answer's citations counts a pure line shift
(one line inserted at the top of a file) as every citation lost and gained again. We map them
through ``git diff`` between the two commits instead of comparing by the definition a citation
names: the diff is exact for every citation kind (a relationship's call line names no
definition), needs nothing the case did not record, and still sees a real content change — a
citation whose cited lines the diff touches is not moved, so it matches only a new citation of
the very same place, and a deleted file's citations match nothing.

When git cannot diff the two commits (the recorded one is gone), citations are compared as
recorded: no worse than before, never an invented match. Only full object names are given to
git: a recorded commit is read from a file anyone with the state can edit, and ``git diff``
would take ``--output=FILE`` in its place as an option.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..base.errors import GitFailure
from ..base.git import run_git
from ..base.rules import is_object_name

_CITATION = re.compile(r"(?P<path>[^#]+)(?:#L(?P<start>[0-9]+)(?:-L(?P<end>[0-9]+))?)?")
_HUNK = re.compile(rb"^@@ -(?P<a>[0-9]+)(?:,(?P<b>[0-9]+))? \+(?P<c>[0-9]+)(?:,(?P<d>[0-9]+))? @@", re.M)
Hunk = tuple[int, int, int]  # old start, old count, new count


def map_citations(checkout: Path, old_commit: str, new_commit: str, citations: Iterable[str]) -> dict[str, str]:
    """Each recorded citation, as the new commit would write it (itself when it cannot move)."""
    citations = sorted(set(citations))
    if old_commit == new_commit or not citations or not (is_object_name(old_commit) and is_object_name(new_commit)):
        return {c: c for c in citations}
    try:
        renamed, changed = _changed_paths(checkout, old_commit, new_commit)
        hunks: dict[str, list[Hunk]] = {}
        mapped = {}
        for citation in citations:
            match = _CITATION.fullmatch(citation)
            path = match["path"] if match else None
            if match is None or path not in changed:
                mapped[citation] = citation
                continue
            new_path = renamed.get(path, path)
            if match["start"] is None:
                mapped[citation] = new_path
                continue
            if path not in hunks:
                hunks[path] = _hunks(checkout, f"{old_commit}:{path}", f"{new_commit}:{new_path}")
            mapped[citation] = _moved(citation, new_path, int(match["start"]),
                                      int(match["end"] or match["start"]), hunks[path])
        return mapped
    except GitFailure:
        return {c: c for c in citations}


def _changed_paths(checkout: Path, old: str, new: str) -> tuple[dict[str, str], set[str]]:
    """Renamed paths (old → new) and every old path that changed, from one name-status diff."""
    listed = run_git(checkout, "diff", "-M", "-z", "--name-status", old, new, "--").stdout.split(b"\0")
    renamed: dict[str, str] = {}
    deleted: set[str] = set()
    changed: set[str] = set()
    at = 0
    while at < len(listed) and listed[at]:
        status = listed[at].decode("ascii", "replace")
        if status[:1] in ("R", "C"):
            old_path, new_path = listed[at + 1].decode("utf-8", "surrogateescape"), \
                listed[at + 2].decode("utf-8", "surrogateescape")
            if status[:1] == "R":
                renamed[old_path] = new_path
                changed.add(old_path)
            at += 3
            continue
        path = listed[at + 1].decode("utf-8", "surrogateescape")
        (deleted if status[:1] == "D" else changed).add(path)
        at += 2
    return renamed, changed - deleted


def _hunks(checkout: Path, old_blob: str, new_blob: str) -> list[Hunk]:
    """The zero-context hunks between two blobs, in order."""
    patch = run_git(checkout, "diff", "-U0", old_blob, new_blob).stdout
    return [(int(m["a"]), int(m["b"] if m["b"] is not None else 1), int(m["d"] if m["d"] is not None else 1))
            for m in _HUNK.finditer(patch)]


def _moved(citation: str, new_path: str, start: int, end: int, hunks: list[Hunk]) -> str:
    new_start, new_end = _line(start, hunks), _line(end, hunks)
    if new_start is None or new_end is None or any(_touches(start, end, hunk) for hunk in hunks):
        return citation  # its cited lines changed: it is matched only where it stands
    return f"{new_path}#L{new_start}" if start == end else f"{new_path}#L{new_start}-L{new_end}"


def _touches(start: int, end: int, hunk: Hunk) -> bool:
    old_start, old_count, _ = hunk
    return old_count > 0 and start <= old_start + old_count - 1 and old_start <= end


def _line(line: int, hunks: list[Hunk]) -> int | None:
    """Where an old line stands in the new blob; None when a hunk replaced or removed it."""
    offset = 0
    for old_start, old_count, new_count in hunks:
        if old_count == 0:  # an insertion after old_start
            if old_start < line:
                offset += new_count
                continue
            break
        if line < old_start:
            break
        if line <= old_start + old_count - 1:
            return None
        offset += new_count - old_count
    return line + offset
