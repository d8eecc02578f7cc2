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
from .resolved import ResolvedLayer, numbered_rows

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
    every: list[Definition] = [definition for facts in scanned for definition in facts.definitions]
    definitions, ordered = numbered_rows(paths, every, linker.references,
                                         lambda d: 1 if d.flags & OVERLOAD else 0)
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
