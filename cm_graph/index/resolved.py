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
from dataclasses import dataclass, field

FileRow = tuple[str, str, str, str]  # (path, language, module, status)
# (definition, file, parent, kind, name, qualname, start_line, line, end_line, overload)
DefinitionRow = tuple[int, int, int | None, str, str, str, int, int, int, int]
# (file, line, column, role, definition or None, name, enclosing)
ReferenceRow = tuple[int, int, int, str, int | None, str, int]


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
