"""The resolved layer of an index: files, definitions with their ranges, and references, as rows.

Language-neutral on purpose: a file has a language, a definition a kind (``module``, ``class``,
``function``, ``method``) and a range, a reference a role (``call``, ``instantiate``,
``reference``, ``import``, ``inherit``, ``decorate``, ``override``, ``fixture``) and a bound
definition or, when the receiver's type is unknown, only the name it uses. Python's resolver
(``pyresolve``) makes these rows; another language's resolver makes the same rows.

Numbers are ranks, never discovery order: files by path, definitions by (file, start line, end
line descending, column, def line, kind, qualified name: what encloses comes first), references
by (file, line, column, role, bound definition, name, enclosing definition). So the rows are one
function of the blobs, whatever order they were read in, and a worker process and the importer's
own thread make the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

FileRow = tuple[str, str, str, str]  # (path, language, module, status)
# (definition, file, parent, kind, name, qualname, start_line, line, end_line, overload)
DefinitionRow = tuple[int, int, int | None, str, str, str, int, int, int, int]
# (file, line, column, role, definition or None, name, enclosing)
ReferenceRow = tuple[int, int, int, str, int | None, str, int]



def numbered_rows(
    paths: list[str], every: list[Any], references: Callable[[], Iterable[tuple[Any, ...]]],
    overload: Callable[[Any], int],
) -> tuple[list[DefinitionRow], list[ReferenceRow]]:
    """A resolver's definitions and references as rows, numbered by rank, the same for every
    language: files by path, definitions outer first within a file (each definition's
    ``number`` is set here), references deduplicated and sorted; ``overload`` is a definition's
    overload flag (0 or 1). ``references()``, called once the definitions are numbered, yields
    (path, line, column, role, target or None, name, enclosing)."""
    numbers = {path: index for index, path in enumerate(paths, start=1)}
    every.sort(key=lambda d: (d.path, d.start, -d.end, d.column, d.line, d.kind, d.qualname))  # outer first
    for number, definition in enumerate(every, start=1):
        definition.number = number
    definitions: list[DefinitionRow] = [
        (d.number, numbers[d.path], d.parent.number if d.parent is not None else None, d.kind, d.name, d.qualname,
         d.start, d.line, d.end, overload(d))
        for d in every
    ]
    # Unbound is 0 while the rows are deduplicated and sorted (numbers start at 1, so the order is
    # the rank's, None first), which lets the tuples compare themselves: no key per row.
    rows: set[tuple[int, int, int, str, int, str, int]] = {
        (numbers[path], line, column, role, target.number if target is not None else 0, name, enclosing.number)
        for path, line, column, role, target, name, enclosing in references()
    }
    ordered: list[ReferenceRow] = [
        row if row[4] else (row[0], row[1], row[2], row[3], None, row[5], row[6]) for row in sorted(rows)
    ]
    return definitions, ordered

@dataclass
class ResolvedLayer:
    """Every row of the resolved tables (``files`` numbered from 1 in list order)."""

    files: list[FileRow] = field(default_factory=list)
    definitions: list[DefinitionRow] = field(default_factory=list)
    references: list[ReferenceRow] = field(default_factory=list)

    def to_json(self) -> bytes:
        return json.dumps([self.files, self.definitions, self.references], separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> ResolvedLayer:
        files, definitions, references = json.loads(data)
        return cls([tuple(row) for row in files], [tuple(row) for row in definitions],  # type: ignore[misc]
                   [tuple(row) for row in references])  # type: ignore[misc]
