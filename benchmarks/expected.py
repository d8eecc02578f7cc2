"""The correct answer of each task (benchmarks/tasks.py), from the independent truths.

A task's answer is a set of **units**: lines (``(path, line)``: a rename or a signature change
edits lines), definitions (``(path, qualified name)``: transitive impact, "how does X work") or
test functions (``(path, qualified name)``: "which tests"). Beside the truth, ``wrong`` holds the
units known not to be the answer (a line whose every occurrence of the name binds to another
definition) and ``neutral`` the ones no truth can judge (an occurrence neither the walk nor the
trace binds): a claim on a neutral unit is neither right nor wrong, and is left out of precision.

Python (PythonTasks) reads the bound walk and the trace (bindings.py). JavaScript/TypeScript
(JsTasks) reads the parser walk of js_truth.py, which binds by name only: its tasks are chosen on
names defined once, a name a file binds to a package (``const send = require('send')``) is not
the target there, and ``x.name`` is the target whatever ``x`` is (its stated limit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bindings import CALL_ROLES, Bindings
from truth_python import MODULE, Definition

Unit = tuple[str, Any]

LINE_KINDS = ("signature_change", "rename", "raise_catch", "dead_code", "overrides")


@dataclass(frozen=True)
class Task:
    package: str  # HeldOut.key
    kind: str  # signature_change, rename, impact, tests, raise_catch, dead_code, overrides, how
    target: str  # as the agent spells it to cm-graph
    definition: tuple[str, str]  # (path, qualified name) in Python, (path, name) in JS/TS
    grep: tuple[str, ...] = ()  # the names grep-and-read searches (default: the definition's name)
    why: str = ""


@dataclass(frozen=True)
class Expected:
    unit: str  # "line", "definition" or "test"
    truth: frozenset[Unit]
    wrong: frozenset[Unit] = frozenset()
    neutral: frozenset[Unit] = frozenset()
    edit: tuple[tuple[str, int, int], ...] = ()  # definitions the task edits: read by every strategy
    notes: dict[str, Any] = field(default_factory=dict)


def unit_of(kind: str) -> str:
    return "line" if kind in LINE_KINDS else "test" if kind == "tests" else "definition"


class PythonTasks:
    language = "Python"

    def __init__(self, bindings: Bindings) -> None:
        self.bindings = bindings
        self.truth = bindings.truth

    def target(self, task: Task) -> Definition:
        return self.truth.find(*task.definition)

    def name(self, task: Task) -> str:
        return self.target(task).name

    def expected(self, task: Task) -> Expected:
        d = self.target(task)
        key, b = d.key, self.bindings
        overrides = frozenset((o.path, o.line) for o in b.overrides(key))
        notes: dict[str, Any] = {}
        if task.kind in ("signature_change", "rename", "raise_catch", "dead_code"):
            roles = {"signature_change": CALL_ROLES, "raise_catch": ("raise", "except")}.get(task.kind)
            # A rename edits the name's own spellings (``import helper as h`` changes, ``h(...)``
            # does not); every other kind follows the binding through aliases too.
            sites = b.sites(key, roles, by_binding=task.kind != "rename")
            truth, neutral = set(sites.bound), set(sites.unknown)
            if task.kind == "signature_change":
                truth |= overrides  # an override's signature changes with it
                notes["overrides"] = len(overrides)
                notes["dynamic_only_callers"] = sum(1 for _, _, callee in b.dynamic_only if callee == key)
            if task.kind == "rename":
                truth |= overrides | {(d.path, d.line)}
            if task.kind == "dead_code":
                truth = (truth | neutral) - {(d.path, d.line)}  # any spelling of a name defined once is a use
                neutral = set()
            return Expected("line", frozenset(truth), sites.elsewhere - frozenset(truth), frozenset(neutral - truth),
                            ((d.path, d.first, d.end),) if task.kind == "signature_change" else (), notes)
        if task.kind == "overrides":
            return Expected("line", overrides)
        if task.kind == "impact":
            hops = b.transitive_callers(key, 3)
            notes["by_hop"] = {h: sum(1 for v in hops.values() if v == h) for h in (1, 2, 3)}
            return Expected("definition", frozenset(hops), notes=notes)
        if task.kind == "how":
            return Expected("definition", frozenset(b.callees(key)))
        if task.kind == "tests":
            tests = b.tests_executing(key)
            notes["test_functions_traced"] = len(set(b.test_functions.values()))
            return Expected("test", frozenset(tests), notes=notes)
        raise ValueError(task.kind)

    # ---- mapping what a strategy cites onto units ---------------------------------------------
    def definition_unit(self, path: str, line: int, kind: str = "symbol") -> Unit:
        """A cited definition (a graph node's path and line) as a unit: the definition starting
        there, else the innermost one holding the line, else the module."""
        if kind == "file":
            return (path, MODULE)
        found = self.truth.definition_at(path, line)
        return (path, found.qualname) if found else (path, MODULE)

    def credited_unit(self, path: str, label: str, line: int) -> Unit:
        """The definition a mention's ``label`` names (the nearest definition of that name at or
        above the line), else the file."""
        name = label.lstrip(".").split("(")[0]
        best = None
        for definition in self.truth.definitions.values():
            if definition.path == path and definition.name == name and definition.first <= line:
                if best is None or definition.first > best.first:
                    best = definition
        return (path, best.qualname) if best else (path, MODULE)

    def enclosing_unit(self, path: str, line: int) -> Unit:
        found = self.truth.enclosing(path, line)
        return (path, found.qualname) if found else (path, MODULE)

    def test_units(self, path: str, line: int, kind: str) -> set[Unit]:
        """The test functions a cited location stands for: a test function, every test of a cited
        class, every test of a cited file (``pytest FILE`` runs them all)."""
        b = self.bindings
        if kind == "file":
            return set(b.tests_in(path))
        found = self.truth.definition_at(path, line)
        if found is None:
            return set(b.tests_in(path))
        tests = set(b.test_functions.values())
        if found.key in tests:
            return {found.key}
        if found.kind == "class":
            return set(b.tests_in(path, found.qualname))
        return set()

    def test_units_of_hit(self, path: str, line: int) -> set[Unit]:
        """grep-and-read: a hit inside a test runs that test; anywhere else in a test file
        (an import, a helper, a class attribute) the agent runs the file's (or class's) tests."""
        b = self.bindings
        tests = set(b.test_functions.values())
        found = self.truth.enclosing(path, line)
        while found is not None:
            if found.key in tests:
                return {found.key}
            if found.parent == MODULE:
                if found.kind == "class" and b.tests_in(path, found.qualname):
                    return set(b.tests_in(path, found.qualname))
                break
            found = self.truth.definitions.get((path, found.parent))
        return set(b.tests_in(path))

    def definitions_named(self, name: str) -> list[tuple[Unit, str, int]]:
        return [((d.path, d.qualname), d.path, d.line) for d in self.truth.named(name)]

    def called_names(self, task: Task) -> set[str]:
        """What an agent reading the target's body sees called by name (``f(``, ``x.f(``)."""
        d = self.target(task)
        inside = (d.qualname, f"{d.qualname}.")
        return {o.name for o in self.truth.occurrences if o.path == d.path and o.role in CALL_ROLES
                and (o.owner == inside[0] or o.owner.startswith(inside[1]))}

    def range_of(self, task: Task) -> tuple[str, int, int]:
        d = self.target(task)
        return (d.path, d.first, d.end)

    # ---- issue 28's caller metrics -----------------------------------------------------------
    def caller_truth(self, task: Task) -> tuple[dict[Unit, set[int]], dict[tuple[str, int], str]]:
        """(true callers -> their site lines, site line -> verdict) for the target's name."""
        d = self.target(task)
        callers = {(path, owner): {o.line for o in sites}
                   for (path, owner), sites in self.bindings.callers(d.key).items()}
        verdicts: dict[tuple[str, int], str] = {}
        found = self.bindings.occurrences(d.key, CALL_ROLES)
        for verdict in ("unknown", "elsewhere", "bound"):  # bound wins on a shared line
            for occurrence in found[verdict]:
                verdicts[(occurrence.path, occurrence.line)] = verdict
        return callers, verdicts


class JsTasks:
    """Name-based tasks over js_truth.py's walk (see the module docstring)."""

    language = "JavaScript/TypeScript"

    def __init__(self, truth: Any) -> None:
        self.truth = truth
        self.by_name: dict[str, list[tuple[str, int, str, str, str, tuple[str, ...]]]] = {}
        for occurrence in truth.occurrences:
            self.by_name.setdefault(occurrence[2], []).append(occurrence)

    def _range(self, path: str, name: str) -> tuple[str, str, int, int, str, str | None, str | None]:
        for entry in self.truth.ranges:
            if entry[0] == path and entry[1] == name:
                return entry
        raise KeyError(f"no definition {path}::{name} in the JS truth")

    def name(self, task: Task) -> str:
        return task.definition[1]

    def _is_target(self, occurrence: tuple[str, int, str, str, str, tuple[str, ...]]) -> bool:
        path, _, name, _, form, _ = occurrence
        return not (form == "id" and (path, name) in self.truth.externals)

    def _callers(self, name: str) -> set[Unit]:
        return {(o[0], o[5][-1]) for o in self.by_name.get(name, ()) if o[3] in CALL_ROLES and self._is_target(o)}

    def expected(self, task: Task) -> Expected:
        path, name = task.definition
        entry = self._range(path, name)
        occurrences = self.by_name.get(name, [])
        if task.kind in ("signature_change", "rename", "raise_catch", "dead_code"):
            roles = {"signature_change": CALL_ROLES, "raise_catch": ("raise", "except")}.get(task.kind)
            chosen = [o for o in occurrences if roles is None or o[3] in roles]
            truth = {(o[0], o[1]) for o in chosen if self._is_target(o)}
            wrong = {(o[0], o[1]) for o in chosen if not self._is_target(o)} - truth
            if task.kind == "rename":
                truth.add((path, entry[2]))
            if task.kind == "dead_code":
                truth -= {(path, entry[2])}
            if task.kind == "signature_change":
                truth |= {(p, start) for p, n, start, *_ in self.overrides(entry)}
            return Expected("line", frozenset(truth), frozenset(wrong), frozenset(),
                            ((path, entry[2], entry[3]),) if task.kind == "signature_change" else ())
        if task.kind == "overrides":
            return Expected("line", frozenset((p, start) for p, n, start, *_ in self.overrides(entry)))
        if task.kind == "impact":
            hops: dict[Unit, int] = {}
            frontier = {name}
            for hop in (1, 2, 3):
                layer = set()
                for called in frontier:
                    for caller in self._callers(called):
                        if caller not in hops and caller != (path, name):
                            hops[caller] = hop
                            layer.add(caller[1])
                frontier = layer - {"<module>"}
            return Expected("definition", frozenset(hops))
        if task.kind == "how":
            names = {o[2] for o in occurrences_of_owner(self.truth.occurrences, path, name) if o[3] in CALL_ROLES}
            return Expected("definition", frozenset((e[0], e[1]) for e in self.truth.ranges if e[1] in names))
        raise ValueError(f"{task.kind} is not a JavaScript task here")

    def overrides(self, entry: tuple[str, str, int, int, str, str | None, str | None]) -> list[tuple[Any, ...]]:
        """Methods of the same name in classes that extend the target's class (by name, transitively)."""
        if entry[4] != "method" or entry[5] is None:
            return []
        below: set[str] = set()
        frontier = {entry[5]}
        while frontier:
            layer = {e[1] for e in self.truth.ranges if e[4] == "class" and e[6] in frontier} - below
            below |= layer
            frontier = layer
        return [e for e in self.truth.ranges if e[4] == "method" and e[1] == entry[1] and e[5] in below]

    def definition_unit(self, path: str, line: int, kind: str = "symbol") -> Unit:
        if kind == "file":
            return (path, MODULE)
        exact = [e for e in self.truth.ranges if e[0] == path and e[2] == line]
        if exact:
            return (path, exact[0][1])
        return self.enclosing_unit(path, line)

    def credited_unit(self, path: str, label: str, line: int) -> Unit:
        name = label.lstrip(".").split("(")[0]
        return (path, name) if any(e[0] == path and e[1] == name for e in self.truth.ranges) else (path, MODULE)

    def enclosing_unit(self, path: str, line: int) -> Unit:
        holding = [e for e in self.truth.ranges if e[0] == path and e[2] <= line <= e[3]]
        return (path, max(holding, key=lambda e: e[2])[1]) if holding else (path, MODULE)

    def definitions_named(self, name: str) -> list[tuple[Unit, str, int]]:
        return [((e[0], e[1]), e[0], e[2]) for e in self.truth.ranges if e[1] == name]

    def called_names(self, task: Task) -> set[str]:
        path, name = task.definition
        return {o[2] for o in occurrences_of_owner(self.truth.occurrences, path, name) if o[3] in CALL_ROLES}

    def range_of(self, task: Task) -> tuple[str, int, int]:
        entry = self._range(*task.definition)
        return (entry[0], entry[2], entry[3])

    def caller_truth(self, task: Task) -> tuple[dict[Unit, set[int]], dict[tuple[str, int], str]]:
        name = task.definition[1]
        callers: dict[Unit, set[int]] = {}
        verdicts: dict[tuple[str, int], str] = {}
        for o in self.by_name.get(name, ()):
            if o[3] in CALL_ROLES:
                if self._is_target(o):
                    callers.setdefault((o[0], o[5][-1]), set()).add(o[1])
                    verdicts[(o[0], o[1])] = "bound"
                else:
                    verdicts.setdefault((o[0], o[1]), "elsewhere")
        return callers, verdicts


def occurrences_of_owner(occurrences: Any, path: str, name: str) -> list[Any]:
    """The occurrences written inside the named definition ``name`` of ``path`` (nested ones too)."""
    return [o for o in occurrences if o[0] == path and name in o[5][1:]]
