"""The Python truth of one definition, from the static walk (truth_python.py) and the dynamic
trace of the test suite (trace_python.py) together.

A name's occurrence is **bound** to the target when the walk binds it there or the trace saw the
call at that site reach it; **elsewhere** when the walk binds it to another definition or the
trace saw it reach only others; otherwise **unknown** (neither can tell: an instance call the
tests never execute). tasks.py scores bound sites as the truth, elsewhere sites as wrong, and
unknown sites as neither (never held against a strategy, never credited to it).

A trace edge is matched to the occurrence it executed by file, line (inside the call
expression's span) and name; a constructor (``__init__``, ``__new__``) is matched to the
instantiation of its class or of a subclass that inherits it. An edge no occurrence matches is
**dynamic-only** (a call through a variable, a registry, ``getattr``, a decorator's wrapper): it
counts for transitive impact and "which tests", never as a site a rename or signature change
edits by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from trace_python import Trace
from truth_python import MODULE, Definition, Key, Occurrence, PythonTruth

CALL_ROLES = ("call", "instantiation", "raise", "decorator")
CONSTRUCTORS = ("__init__", "__new__", "__post_init__")


@dataclass(frozen=True)
class Sites:
    """The lines holding a target's occurrences, sorted by what the truth says about them."""

    bound: frozenset[tuple[str, int]]
    elsewhere: frozenset[tuple[str, int]]
    unknown: frozenset[tuple[str, int]]


def _lines(occurrences: Iterable[Occurrence]) -> frozenset[tuple[str, int]]:
    return frozenset((o.path, o.line) for o in occurrences)


class Bindings:
    def __init__(self, truth: PythonTruth, trace: Trace | None) -> None:
        self.truth = truth
        self.trace = trace
        self.dynamic: dict[int, set[Key]] = {}  # occurrence index -> definitions the trace saw it call
        self.dynamic_only: list[tuple[str, int, Key]] = []  # (site path, site line, callee)
        self.executed_by: dict[Key, set[str]] = {}  # definition -> node ids of the tests that executed it
        self.test_functions: dict[str, Key] = {}  # node id -> the test function's definition
        self._by_name: dict[str, list[int]] = {}
        for index, occurrence in enumerate(truth.occurrences):
            self._by_name.setdefault(occurrence.name, []).append(index)
        self._call_graph: dict[Key, frozenset[Key]] | None = None
        if trace is not None:
            self._match(trace)
        self._by_target: dict[Key, set[int]] = {}
        for index, occurrence in enumerate(truth.occurrences):
            for target in {occurrence.binds, *self.dynamic.get(index, ())}:
                if target is not None:
                    self._by_target.setdefault(target, set()).add(index)

    def code_definition(self, path: str, first: int, name: str) -> Definition | None:
        definition = self.truth.by_first.get((path, first))
        return definition if definition is not None and definition.name == name else None

    def _match(self, trace: Trace) -> None:
        spans: dict[tuple[str, int], list[int]] = {}
        for index, occurrence in enumerate(self.truth.occurrences):
            if occurrence.role in CALL_ROLES:
                for line in range(occurrence.line, occurrence.end_line + 1):
                    spans.setdefault((occurrence.path, line), []).append(index)
        for caller, line, path, first, name in trace.edges:
            callee = self.code_definition(path, first, name)
            if callee is None or callee.kind == "class":  # a lambda, a comprehension, a class body
                continue
            matched = False
            for index in spans.get((caller, line), ()):
                occurrence = self.truth.occurrences[index]
                target = self._site_target(occurrence, callee)
                if target is not None:
                    self.dynamic.setdefault(index, set()).add(target)
                    matched = True
            if not matched:
                self.dynamic_only.append((caller, line, callee.key))
        for node, entry in trace.tests.items():
            function = entry.get("function")
            if function:
                test = self.truth.definition_at(function[0], int(function[1]))
                if test is not None:
                    self.test_functions[node] = test.key
            for path, first, name in entry["executed"]:
                definition = self.code_definition(path, first, name)
                if definition is not None:
                    self.executed_by.setdefault(definition.key, set()).add(node)

    def _site_target(self, occurrence: Occurrence, callee: Definition) -> Key | None:
        if occurrence.name == callee.name:
            return callee.key
        if callee.name in CONSTRUCTORS and callee.parent != MODULE:
            cls = (callee.path, callee.parent)
            if occurrence.binds is not None and self.truth.definitions[occurrence.binds].kind == "class":
                if self.truth.class_member(occurrence.binds, callee.name) == callee.key:
                    return occurrence.binds
            elif occurrence.name == self.truth.definitions[cls].name:
                return cls
        return None

    # ---- one target --------------------------------------------------------------------------
    def verdict(self, index: int, target: Key) -> str:
        occurrence = self.truth.occurrences[index]
        seen = self.dynamic.get(index, set())
        if occurrence.binds == target or target in seen:
            return "bound"
        if occurrence.binds is not None or seen or occurrence.how == "module":
            return "elsewhere"
        return "unknown"

    def _indexed(self, target: Key, by_binding: bool) -> list[int]:
        """The target's name's occurrences, and (``by_binding``) every other spelling bound to it:
        ``h(...)`` after ``from m import helper as h``, ``pkg.public_name(...)`` of a re-export."""
        found = set(self._by_name.get(self.truth.definitions[target].name, []))
        if by_binding:
            found |= self._by_target.get(target, set())
        return sorted(found)

    def occurrences(self, target: Key, roles: tuple[str, ...] | None = None, by_binding: bool = True
                    ) -> dict[str, list[Occurrence]]:
        """Every occurrence of the target's name (and, ``by_binding``, of any other spelling bound
        to it), by verdict (``roles``: only those roles)."""
        found: dict[str, list[Occurrence]] = {"bound": [], "elsewhere": [], "unknown": []}
        for index in self._indexed(target, by_binding):
            occurrence = self.truth.occurrences[index]
            if roles is None or occurrence.role in roles:
                found[self.verdict(index, target)].append(occurrence)
        return found

    def sites(self, target: Key, roles: tuple[str, ...] | None = None, by_binding: bool = True) -> Sites:
        """Lines: bound if any occurrence there is bound; elsewhere if every one is elsewhere."""
        found = self.occurrences(target, roles, by_binding)
        bound = _lines(found["bound"])
        unknown = _lines(found["unknown"]) - bound
        return Sites(bound, _lines(found["elsewhere"]) - bound - unknown, unknown)

    def overrides(self, target: Key) -> list[Definition]:
        """Methods overriding ``target``, directly or through another override."""
        found: list[Definition] = []
        frontier = {target}
        while frontier:
            layer = {d.key for d in self.truth.definitions.values()
                     if d.kind == "method" and self.truth.overridden(d) in frontier} - {f.key for f in found}
            found.extend(self.truth.definitions[k] for k in sorted(layer))
            frontier = layer
        return found

    def callers(self, target: Key) -> dict[tuple[str, str], list[Occurrence]]:
        """(path, enclosing definition) -> the bound call sites there (static or traced)."""
        found: dict[tuple[str, str], list[Occurrence]] = {}
        for occurrence in self.occurrences(target, CALL_ROLES)["bound"]:
            found.setdefault((occurrence.path, occurrence.owner), []).append(occurrence)
        return found

    def call_graph(self) -> dict[Key, frozenset[Key]]:
        """callee -> the definitions (or ``(path, MODULE)``) that call it, statically bound or traced."""
        if self._call_graph is not None:
            return self._call_graph
        reverse: dict[Key, set[Key]] = {}
        for index, occurrence in enumerate(self.truth.occurrences):
            if occurrence.role not in CALL_ROLES:
                continue
            targets = set(self.dynamic.get(index, ()))
            if occurrence.binds is not None:
                targets.add(occurrence.binds)
            for callee in targets:
                reverse.setdefault(callee, set()).add((occurrence.path, occurrence.owner))
                is_class = self.truth.definitions[callee].kind == "class"
                init = self.truth.class_member(callee, "__init__") if is_class else None
                if init is not None:
                    reverse.setdefault(init, set()).add((occurrence.path, occurrence.owner))
        for path, line, callee in self.dynamic_only:
            owner = self.truth.enclosing(path, line)
            reverse.setdefault(callee, set()).add((path, owner.qualname if owner else MODULE))
        self._call_graph = {k: frozenset(v) for k, v in reverse.items()}
        return self._call_graph

    def transitive_callers(self, target: Key, depth: int = 3) -> dict[Key, int]:
        """Every caller within ``depth`` hops, with its hop."""
        graph = self.call_graph()
        hops: dict[Key, int] = {}
        frontier = {target}
        for hop in range(1, depth + 1):
            layer = set()
            for node in frontier:
                for caller in graph.get(node, ()):
                    if caller not in hops and caller != target:
                        hops[caller] = hop
                        layer.add(caller)
            frontier = {k for k in layer if k[1] != MODULE}
        return hops

    def callees(self, target: Key) -> set[Key]:
        """What ``target`` (and the functions nested in it) calls by name: statically bound, or
        traced from a named call site (``prep.run(...)`` reaching each preprocessor's ``run``). A
        dynamic-only edge (a callback it was handed, ``self._partial(...)`` in toolz's curry) is
        what it is given to run, not how it works, and is left out."""
        definition = self.truth.definitions[target]
        inside = (definition.qualname, f"{definition.qualname}.")
        found: set[Key] = set()
        for index, occurrence in enumerate(self.truth.occurrences):
            if (occurrence.path == definition.path and occurrence.role in CALL_ROLES
                    and (occurrence.owner == inside[0] or occurrence.owner.startswith(inside[1]))):
                found.update(self.dynamic.get(index, ()))
                if occurrence.binds is not None:
                    found.add(occurrence.binds)
        found.discard(target)
        return found

    def tests_executing(self, target: Key) -> set[Key]:
        """The test functions (definitions) whose run executed ``target``."""
        return {self.test_functions[node] for node in self.executed_by.get(target, ())
                if node in self.test_functions}

    def tests_in(self, path: str, qualname_prefix: str | None = None) -> set[Key]:
        """The traced test functions of a file (or of one class in it)."""
        return {key for key in self.test_functions.values() if key[0] == path and (
            qualname_prefix is None or key[1] == qualname_prefix or key[1].startswith(f"{qualname_prefix}."))}
