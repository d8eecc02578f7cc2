"""The definitions of one side of one changed file, with their line ranges, and who owns each line.

A side's ranges come from the best source that side has, and say which (``source``):

- ``index``: the side is the bound commit and a resolver read the file (Python, JavaScript,
  TypeScript): the generation's own ``definitions`` rows (``docs/resolver.md``), with their
  definition and node numbers, so a changed definition's callers can be walked;
- ``parsed``: any other side of such a file (a working-tree file, the staged index, another
  commit): the same walker its resolver runs (``index/pyscope.scan_file``,
  ``index/jsscope.scan_file``), over that side's bytes, so both sides' ranges are the same
  function of their text;
- ``line_only``: the bound commit's side of a file of another language: the graph's nodes give a
  definition's line and no end, so a changed line is a definition's only when it is that line;
- ``none``: nothing is known (another language on a side that is not the bound commit, a
  file that does not parse or is too large to, a binary or unreadable side).

A definition is keyed by its qualified name within its module (``Class.method``); the module
itself is not a definition here (its lines are the file's ``module_level``). Two definitions of
one name in one file (an ``@overload``, an ``if``/``else``) get ``#2``, ``#3``, ... in line order.
"""

from __future__ import annotations

import apsw

from ..base.records import record
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index import jsscope
from ..index.pymodules import ModuleMap, is_python_path
from ..index.pyscope import scan_file
from ..index.resolvers import is_resolved_path


@record
class DefRange:
    key: str  # the qualified name within the module, with #N for a repeated one
    kind: str
    name: str
    start: int  # the first decorator's line
    line: int  # the def/class line (the provider's)
    end: int
    definition: int | None = None  # the index's definition number (source "index" only)
    node: int | None = None  # the provider's node, when the side is the bound commit


@record
class SideDefs:
    source: str  # index | parsed | line_only | none
    definitions: tuple[DefRange, ...]
    lines: tuple[bytes, ...] | None  # the side's text, split in lines (None: not read)


NOTHING = SideDefs("none", (), None)


_Row = tuple[str, str, str, int, int, int, int | None, int | None]


def _keyed(rows: list[_Row]) -> tuple[DefRange, ...]:
    seen: dict[str, int] = {}
    found = []
    for local, kind, name, start, line, end, definition, node in sorted(rows, key=lambda r: (r[3], r[4], -r[5])):
        seen[local] = seen.get(local, 0) + 1
        key = local if seen[local] == 1 else f"{local}#{seen[local]}"
        found.append(DefRange(key, kind, name, start, line, end, definition, node))
    return tuple(found)


def _lines(data: bytes | None) -> tuple[bytes, ...] | None:
    return None if data is None else tuple(data.split(b"\n"))


def parsed_side(path: str, data: bytes | None) -> SideDefs:
    """The definitions of ``data`` (one side of the Python, JavaScript or TypeScript file ``path``)
    by its resolver's walker."""
    if data is None or b"\0" in data[:8000]:
        return NOTHING
    facts = scan_file(path, data, ModuleMap([path])) if is_python_path(path) else \
        jsscope.scan_file(path, data, frozenset([path]))
    if facts.status != "resolved":
        return SideDefs("none", (), _lines(data))
    prefix = facts.definitions[0].qualname + "."
    rows: list[_Row] = [(d.qualname[len(prefix):], d.kind, d.name, d.start, d.line, d.end, None, None)
            for d in facts.definitions[1:] if d.qualname.startswith(prefix)]
    return SideDefs("parsed", _keyed(rows), _lines(data))


def index_side(connection: apsw.Connection, path: str, data: bytes | None) -> SideDefs:
    """The bound commit's side of ``path``: its resolved definitions, else its nodes' lines."""
    rows = fetch_rows(connection.execute(query_sql("changed_file_definitions"), {"path": path}),
                      tuple[int, str, str, str, int, int, int, int | None, str])
    if rows and rows[0][8] == "resolved":
        module = next((row for row in rows if row[1] == "module"), None)
        prefix = (module[3] + ".") if module else ""
        keyed: list[_Row] = [(qualname[len(prefix):], kind, name, start, line, end, definition, node)
                 for definition, kind, name, qualname, start, line, end, node, _ in rows
                 if kind != "module" and qualname.startswith(prefix)]
        return SideDefs("index", _keyed(keyed), _lines(data))
    if is_resolved_path(path):
        return parsed_side(path, data)
    nodes = fetch_rows(connection.execute(query_sql("definitions_in_file"), {"path": path}),
                       tuple[int, int, str, str])
    line_rows: list[_Row] = [(label, kind, label, line, line, line, None, node) for line, node, label, kind in nodes]
    return SideDefs("line_only" if nodes else "none", _keyed(line_rows), _lines(data))


def other_side(path: str, data: bytes | None) -> SideDefs:
    """A side that is not the bound commit: parsed when a resolver reads its language, else nothing known."""
    return parsed_side(path, data) if is_resolved_path(path) else NOTHING


def owners(side: SideDefs) -> dict[int, str]:
    """Each line's innermost definition (by key); a line of no definition is not in the map.
    Line-only ranges own their one line."""
    owned: dict[int, str] = {}
    for found in sorted(side.definitions, key=lambda d: (-(d.end - d.start), d.start)):
        for line in range(found.start, found.end + 1):
            owned[line] = found.key
    return owned


def own_text(side: SideDefs, found: DefRange, owned: dict[int, str], *, anonymous: bool = False) -> bytes | None:
    """The lines ``found`` owns (its range less its nested definitions'), each stripped of its
    indentation; ``anonymous``: its name on its def/class line replaced, to match a rename."""
    if side.lines is None or side.source == "line_only":
        return None
    parts = []
    for number in range(found.start, found.end + 1):
        if owned.get(number) != found.key or number > len(side.lines):
            continue
        text = side.lines[number - 1].strip()
        if anonymous and number == found.line:
            text = text.replace(found.name.encode("utf-8", "surrogateescape"), b"\0", 1)
        parts.append(text)
    return b"\n".join(parts)
