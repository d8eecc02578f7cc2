"""Python's resolver: the bound commit's Python blobs in, the resolved layer's rows out.

Two passes (``pyscope`` per file, ``pylink`` across files) over trees that the standard library's
``ast`` parses; no repository code is imported, compiled or run, and nothing outside the blobs
is read (no ``sys.path``, no installed packages: what the tree does not define is external).
``ast`` is parsed with ``feature_version=(3, 11)``, the oldest Python cm-graph supports, so the
same blobs give the same rows under every interpreter cm-graph runs on (a file that needs newer
syntax is ``unparsable`` everywhere). The measured choice of this engine over jedi and
scip-python is in docs/resolver.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ..base.git import BlobReader, CensusEntry, count_lines
from .pylink import Linker
from .pymodules import ModuleMap
from .pyscope import MAX_RESOLVED_BYTES, OVERLOAD, Definition, scan_file
from .resolved import DefinitionRow, ReferenceRow, ResolvedLayer

LANGUAGE = "python"


def resolve_python(blobs: Iterable[tuple[str, bytes | int]]) -> ResolvedLayer:
    """The resolved layer of these ``(path, content)`` files, in any order (a content too large
    to parse is given as its line count: ``read_python_blobs``)."""
    contents = dict(blobs)
    paths = sorted(contents)
    modules = ModuleMap(paths)
    scanned = []
    for path in paths:
        scanned.append(scan_file(path, contents.pop(path), modules))
    linker = Linker(scanned, modules)
    numbers = {path: index for index, path in enumerate(paths, start=1)}
    every: list[Definition] = [definition for facts in scanned for definition in facts.definitions]
    every.sort(key=lambda d: (d.path, d.start, -d.end, d.column, d.line, d.kind, d.qualname))  # outer first
    for number, definition in enumerate(every, start=1):
        definition.number = number
    definitions: list[DefinitionRow] = [
        (d.number, numbers[d.path], d.parent.number if d.parent is not None else None, d.kind, d.name, d.qualname,
         d.start, d.line, d.end, 1 if d.flags & OVERLOAD else 0)
        for d in every
    ]
    # Unbound is 0 while the rows are deduplicated and sorted (numbers start at 1, so the order is
    # the rank's, None first), which lets the tuples compare themselves: no key per row.
    references: set[tuple[int, int, int, str, int, str, int]] = {
        (numbers[path], line, column, role, target.number if target is not None else 0, name, enclosing.number)
        for path, line, column, role, target, name, enclosing in linker.references()
    }
    ordered: list[ReferenceRow] = [
        row if row[4] else (row[0], row[1], row[2], row[3], None, row[5], row[6]) for row in sorted(references)
    ]
    files = [(facts.path, LANGUAGE, facts.module.qualified, facts.status) for facts in scanned]
    return ResolvedLayer(files, definitions, ordered)


def read_python_blobs(checkout: Path, entries: list[CensusEntry]) -> Iterator[tuple[str, bytes | int]]:
    """The contents ``resolve_python`` takes for these census entries, each distinct blob read
    once through one ``git cat-file --batch`` (one over ``MAX_RESOLVED_BYTES``: counted in
    chunks, never held)."""
    distinct = list({entry.blob: entry.size for entry in entries}.items())
    done: dict[str, bytes | int] = {}
    with BlobReader(checkout) as blobs:
        contents = blobs.each(distinct)
        for entry in entries:
            if entry.blob not in done:
                content = next(contents)
                done[entry.blob] = (count_lines(content) if entry.size > MAX_RESOLVED_BYTES
                                    else b"".join(content))
            yield entry.path, done[entry.blob]
