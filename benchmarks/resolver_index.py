"""What the resolver benchmark reads from a subject's index (definitions, resolved references,
graph edges), shared by the scorer (``resolver.py``) and the engines it compares
(``resolver_engines.py``) so neither imports the other."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Definition:
    number: int
    path: str
    kind: str
    name: str
    qualname: str
    start: int
    line: int
    end: int
    node: int | None
    parent: int | None


# A reference as every engine gives it: (path, line, role, definition or None, name, enclosing).
Ref = tuple[str, int, str, int | None, str, int]


class Index:
    """What the scorer reads from a subject's index: definitions, resolved references, graph edges."""

    def __init__(self, path: Path) -> None:
        import apsw

        connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        self.modules = {p: m for p, m in connection.execute("SELECT path, module FROM resolved_files")}
        self.definitions: dict[int, Definition] = {}
        for row in connection.execute(
                "SELECT d.definition, f.path, d.kind, d.name, d.qualname, d.start_line, d.line, d.end_line, d.node,"
                " d.parent FROM definitions AS d JOIN resolved_files AS f USING (file)"):
            self.definitions[row[0]] = Definition(*row)
        self.references: list[Ref] = [
            (p, line, role, definition, name, enclosing)
            for p, line, role, definition, name, enclosing in connection.execute(
                "SELECT f.path, r.line, r.role, r.definition, r.name, r.enclosing FROM resolved_references AS r"
                " JOIN resolved_files AS f USING (file)")]
        by_node = {d.node: d.number for d in self.definitions.values() if d.node is not None}
        self.graph: list[Ref] = []
        for source, target, site_path, site_line in connection.execute(
                "SELECT source, target, site_path, site_line FROM edges WHERE kind IN ('calls', 'references')"):
            if source in by_node and target in by_node:
                callee = self.definitions[by_node[target]]
                self.graph.append((site_path, site_line or 0, "call", callee.number, callee.name, by_node[source]))
        connection.close()
        self.by_qualname: dict[tuple[str, str], list[Definition]] = defaultdict(list)
        self.by_path: dict[str, list[Definition]] = defaultdict(list)
        for definition in self.definitions.values():
            self.by_qualname[(definition.path, definition.qualname)].append(definition)
            self.by_path[definition.path].append(definition)
        self.by_def_line = {(d.path, d.line, d.name): d.number for d in self.definitions.values()}

    def code(self, path: str, qualname: str, first_line: int) -> Definition | None:
        """The definition a code object is (a lambda's or comprehension's: its lexical parent)."""
        module = self.modules.get(path)
        if module is None:
            return None
        parts = [part for part in qualname.split(".") if part != "<locals>"]
        while parts and parts[-1].startswith("<"):
            parts.pop()
        found = self.by_qualname.get((path, ".".join([module, *parts]) if parts else module), [])
        if not found:
            return None
        exact = [d for d in found if d.start == first_line]
        return (exact or found)[0]

    def enclosing(self, path: str, line: int) -> int | None:
        """The innermost definition of ``path`` whose range holds ``line``."""
        best = None
        for definition in self.by_path.get(path, ()):
            if definition.start <= line <= definition.end and (best is None or definition.start >= best.start):
                best = definition
        return best.number if best is not None else None

    def decorated_at(self, path: str, line: int, caller: int) -> int | None:
        """The definition directly inside ``caller`` whose decorator lines hold ``line``."""
        for definition in self.by_path.get(path, ()):
            if definition.parent == caller and definition.start <= line < definition.line:
                return definition.number
        return None

    def overridden(self) -> dict[int, set[int]]:
        """Every method's ancestors by override (the definitions its override rows bind, transitively)."""
        direct: dict[int, set[int]] = defaultdict(set)
        for ref in self.references:
            if ref[2] == "override" and ref[3] is not None:
                direct[ref[5]].add(ref[3])
        closed: dict[int, set[int]] = {}
        for method in direct:
            seen: set[int] = set()
            stack = list(direct[method])
            while stack:
                base = stack.pop()
                if base not in seen:
                    seen.add(base)
                    stack.extend(direct.get(base, ()))
            closed[method] = seen
        return closed
