"""An independent reference truth for Python: an ``ast`` walk of one commit that resolves names.

benchmarks/context.py's Python truth is name-based (``obj.name(...)`` counts whatever ``obj`` is),
so it can only judge names defined once. This walk binds: it reads every tracked ``.py`` file of
the commit (never the provider's output, never cm-graph) and records

* **definitions** with their ranges: every function, method and class, its qualified name
  (``Outer.method``, ``func.inner``), its ``def``/``class`` line, its first line (the first
  decorator's, which is also the code object's ``co_firstlineno``), its end line, its class's
  bases as written, and whether it is an ``@overload`` stub;
* **occurrences**: every spelling of a name in code — a ``Name``, the attribute of an
  ``Attribute``, an imported name, a definition's own name, and a string that is exactly the name
  or a dotted path ending in it (``"pkg.mod.Name"``, ``__all__`` entries). Each has its file, line,
  column, **role** (``call``, ``instantiation``, ``reference``, ``import``, ``raise``, ``except``,
  ``decorator``, ``inherit``, ``definition``, ``override``, ``string``, ``all``), the **enclosing
  definition** (from the syntax tree itself: a decorator or default argument belongs to the scope
  the ``def`` is written in, a nested function's body to the nested function) and, where static
  resolution is certain enough, the **definition it binds to** and how it was bound:

  - ``static``: a module's own definitions, ``import pkg`` / ``import pkg.mod as m`` followed by
    attribute access, ``from m import f as g``, relative imports, re-exports through
    ``__init__`` (imports, ``from x import *``, module-level aliases ``Str = String``), class
    attributes looked up through statically resolved bases;
  - ``self``: ``self.m`` / ``cls.m`` / ``super().m`` in a method, looked up from the method's
    class (a subclass override may be what runs: the dynamic trace says which);
  - ``inferred``: a local name every assignment of which is ``C(...)`` of a resolved class, and
    ``C(...).m`` itself.

Docstrings, comments and f-string text are not occurrences. Whatever this walk cannot bind is
left unbound (``binds is None``), never guessed; the dynamic trace (trace_python.py) binds the
sites the tests execute, and tasks.py treats a site neither binds as unknown, not as wrong.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MODULE = "<module>"
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
Key = tuple[str, str]  # (path, qualified name)


@dataclass(frozen=True)
class Definition:
    path: str
    qualname: str
    name: str
    kind: str  # "function", "method" or "class"
    line: int  # the def/class line
    first: int  # the first decorator's line, else ``line`` (== co_firstlineno)
    end: int
    parent: str  # qualified name of the enclosing definition, or MODULE
    bases: tuple[str, ...] = ()
    overload: bool = False

    @property
    def key(self) -> Key:
        return (self.path, self.qualname)


@dataclass(frozen=True)
class Occurrence:
    path: str
    line: int
    col: int
    name: str
    role: str
    owner: str  # qualified name of the enclosing definition, or MODULE
    binds: Key | None = None
    how: str | None = None  # "static", "self", "inferred"; "module" when it names a module (binds None)
    end_line: int = 0  # for a call-like role: the last line of the call expression


@dataclass
class _Module:
    name: str
    path: str
    is_package: bool
    defs: dict[str, Key] = field(default_factory=dict)
    # name -> ("module", dotted, "") or ("from", module, name)
    imports: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    shadowed: set[str] = field(default_factory=set)
    stars: list[str] = field(default_factory=list)


@dataclass
class _Frame:
    """A function scope during the walk."""

    definition: Definition | None  # None for a lambda
    local: set[str]
    defs: dict[str, Key]
    imports: dict[str, tuple[str, str, str]]
    inferred: dict[str, Key]
    self_name: str | None


def module_name(path: str) -> tuple[str, bool]:
    """(dotted module name, is a package) of a repository path; a ``src/`` layout is unwrapped."""
    parts = path[:-3].split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    package = parts[-1] == "__init__"
    if package:
        parts = parts[:-1]
    return ".".join(parts), package


class PythonTruth:
    """The walk's result for one checkout."""

    def __init__(self, files: dict[str, ast.Module], unparsed: tuple[str, ...]) -> None:
        self.files = files
        self.unparsed = unparsed
        self.modules: dict[str, _Module] = {}
        self.definitions: dict[Key, Definition] = {}
        self.members: dict[Key, dict[str, Key]] = {}  # class -> its own members
        self.occurrences: list[Occurrence] = []
        for path, tree in files.items():
            self._collect(path, tree)
        for path, tree in files.items():
            _Walker(self, path).visit_module(tree)
        self.by_name: dict[str, list[Occurrence]] = {}
        for occurrence in self.occurrences:
            self.by_name.setdefault(occurrence.name, []).append(occurrence)
        self.by_first: dict[tuple[str, int], Definition] = {}
        for definition in self.definitions.values():
            self.by_first.setdefault((definition.path, definition.first), definition)
            self.by_first.setdefault((definition.path, definition.line), definition)

    # ---- pass 1: definitions and module tables -------------------------------------------
    def _collect(self, path: str, tree: ast.Module) -> None:
        name, package = module_name(path)
        module = _Module(name, path, package)
        self.modules[name] = module
        for statement in tree.body:
            self._collect_statement(module, statement)

        def define(node: ast.AST, parent: str, in_class: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qualname = child.name if parent == MODULE else f"{parent}.{child.name}"
                    kind = "class" if isinstance(child, ast.ClassDef) else "method" if in_class else "function"
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    bases = tuple(ast.unparse(b) for b in child.bases) if isinstance(child, ast.ClassDef) else ()
                    overload = any(ast.unparse(d).split(".")[-1] == "overload" for d in child.decorator_list)
                    definition = Definition(path, qualname, child.name, kind, child.lineno, first,
                                            child.end_lineno or child.lineno, parent, bases, overload)
                    self.definitions[definition.key] = definition
                    if in_class:
                        self.members.setdefault((path, parent), {}).setdefault(child.name, definition.key)
                    if isinstance(child, ast.ClassDef):
                        self.members.setdefault(definition.key, {})
                    define(child, qualname, isinstance(child, ast.ClassDef))
                elif not isinstance(child, ast.Lambda):
                    define(child, parent, in_class)

        define(tree, MODULE, False)
        for statement in tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.defs[statement.name] = (path, statement.name)

    def _collect_statement(self, module: _Module, statement: ast.stmt) -> None:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    module.imports[alias.asname] = ("module", alias.name, "")
                else:
                    top = alias.name.split(".")[0]
                    module.imports[top] = ("module", top, "")
        elif isinstance(statement, ast.ImportFrom):
            source = self._absolute(module, statement.module, statement.level)
            for alias in statement.names:
                if alias.name == "*":
                    module.stars.append(source)
                else:
                    module.imports[alias.asname or alias.name] = ("from", source, alias.name)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    if isinstance(statement.value, (ast.Name, ast.Attribute)) and len(statement.targets) == 1:
                        module.aliases[target.id] = statement.value
                    else:
                        module.shadowed.add(target.id)
        elif isinstance(statement, (ast.If, ast.Try)):
            # Conditional imports (``try: import x except ImportError: ...``): the first spelling wins.
            bodies = [statement.body, *([h.body for h in statement.handlers] if isinstance(statement, ast.Try) else []),
                      statement.orelse]
            for body in bodies:
                for inner in body:
                    before = dict(module.imports)
                    self._collect_statement(module, inner)
                    for key, value in before.items():
                        module.imports[key] = value

    @staticmethod
    def _absolute(module: _Module, name: str | None, level: int) -> str:
        if level == 0:
            return name or ""
        parts = module.name.split(".")
        base = parts if module.is_package else parts[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, *([name] if name else [])])

    # ---- resolution -----------------------------------------------------------------------
    def module_attribute(self, dotted: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()
                         ) -> tuple[str, str] | None:
        """What ``name`` means in module ``dotted``: ("def", key-json) or ("module", dotted)."""
        if (dotted, name) in seen or len(seen) > 40:
            return None
        seen = seen | {(dotted, name)}
        module = self.modules.get(dotted)
        if module is not None:
            if name in module.defs:
                return ("def", "\0".join(module.defs[name]))
            found = None
            if name in module.aliases:
                found = self.expression_in_module(module, module.aliases[name], seen)
            elif name in module.imports:
                found = self._imported(module.imports[name], seen)
            elif name in module.shadowed:
                return None
            else:
                for star in module.stars:
                    found = self.module_attribute(star, name, seen) if not name.startswith("_") else None
                    if found is not None:
                        break
            if found is not None:
                return found
        if f"{dotted}.{name}" in self.modules:
            return ("module", f"{dotted}.{name}")
        return None

    def _imported(self, imported: tuple[str, str, str], seen: frozenset[tuple[str, str]]) -> tuple[str, str] | None:
        kind, source, name = imported
        if kind == "module":
            return ("module", source)
        found = self.module_attribute(source, name, seen)
        if found is None and f"{source}.{name}" in self.modules:
            return ("module", f"{source}.{name}")  # ``from pkg import submodule``
        return found

    def expression_in_module(self, module: _Module, expression: ast.expr, seen: frozenset[tuple[str, str]]
                             ) -> tuple[str, str] | None:
        if isinstance(expression, ast.Name):
            return self.module_attribute(module.name, expression.id, seen)
        if isinstance(expression, ast.Attribute):
            base = self.expression_in_module(module, expression.value, seen)
            return self.attribute_of(base, expression.attr, seen)
        return None

    def attribute_of(self, base: tuple[str, str] | None, name: str,
                     seen: frozenset[tuple[str, str]] = frozenset()) -> tuple[str, str] | None:
        if base is None:
            return None
        kind, value = base
        if kind == "module":
            return self.module_attribute(value, name, seen)
        key = tuple(value.split("\0"))
        definition = self.definitions.get((key[0], key[1]))
        if definition is not None and definition.kind == "class":
            member = self.class_member((key[0], key[1]), name)
            return ("def", "\0".join(member)) if member else None
        return None

    def class_member(self, cls: Key, name: str, skip_own: bool = False, depth: int = 0) -> Key | None:
        """``name`` looked up on class ``cls`` through its statically resolved bases (depth-first,
        left to right: the MRO of the single-inheritance case, an approximation of C3 otherwise)."""
        if depth > 20:
            return None
        if not skip_own and name in self.members.get(cls, {}):
            return self.members[cls][name]
        for base in self.bases(cls):
            found = self.class_member(base, name, False, depth + 1)
            if found is not None:
                return found
        return None

    def bases(self, cls: Key) -> list[Key]:
        definition = self.definitions.get(cls)
        if definition is None:
            return []
        module = self.modules[module_name(cls[0])[0]]
        found = []
        for spelled in definition.bases:
            try:
                expression = ast.parse(spelled, mode="eval").body
            except SyntaxError:
                continue
            resolved = self.expression_in_module(module, expression, frozenset())
            if resolved is not None and resolved[0] == "def":
                key = tuple(resolved[1].split("\0"))
                if self.definitions.get((key[0], key[1]), None) is not None:
                    found.append((key[0], key[1]))
        return found

    def overridden(self, definition: Definition) -> Key | None:
        """The base-class method ``definition`` overrides, if any."""
        if definition.kind != "method":
            return None
        cls = (definition.path, definition.parent)
        return self.class_member(cls, definition.name, skip_own=True)

    # ---- queries ----------------------------------------------------------------------------
    def definition_at(self, path: str, line: int) -> Definition | None:
        """The definition whose def or first (decorator) line is ``line``, else the innermost one
        whose range holds it."""
        exact = self.by_first.get((path, line))
        if exact is not None:
            return exact
        return self.enclosing(path, line)

    def enclosing(self, path: str, line: int) -> Definition | None:
        best = None
        for definition in self.definitions.values():
            if definition.path == path and definition.first <= line <= definition.end:
                if best is None or definition.first >= best.first:
                    best = definition
        return best

    def named(self, name: str) -> list[Definition]:
        return [d for d in self.definitions.values() if d.name == name]

    def find(self, path: str, qualname: str) -> Definition:
        found = self.definitions.get((path, qualname))
        if found is None:
            raise KeyError(f"no definition {path}::{qualname} in the truth")
        return found


def _as_key(resolved: tuple[str, str] | None) -> Key | None:
    if resolved is None or resolved[0] != "def":
        return None
    path, qualname = resolved[1].split("\0")
    return (path, qualname)


class _Walker:
    """Pass 2: every occurrence in one file, with its role, owner and binding."""

    def __init__(self, truth: PythonTruth, path: str) -> None:
        self.truth = truth
        self.path = path
        self.module = truth.modules[module_name(path)[0]]
        self.frames: list[_Frame] = []
        self.classes: list[Definition] = []
        self.owner = MODULE

    def emit(self, node: ast.AST, name: str, role: str, binds: Key | None, how: str | None, end: int = 0) -> None:
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", 0)
        if isinstance(node, ast.Attribute) and node.end_lineno is not None:
            line = node.end_lineno  # the attribute name sits at the end of a multi-line chain
        if role == "call" and binds is not None and self.truth.definitions[binds].kind == "class":
            role = "instantiation"
        self.truth.occurrences.append(Occurrence(self.path, line, col, name, role, self.owner, binds,
                                                 how if binds or how == "module" else None, end or line))

    # ---- resolution in scope --------------------------------------------------------------
    def resolve_name(self, name: str) -> tuple[tuple[str, str] | None, str | None]:
        for frame in reversed(self.frames):
            if name in frame.defs:
                return ("def", "\0".join(frame.defs[name])), "static"
            if name in frame.imports:
                return self.truth._imported(frame.imports[name], frozenset()), "static"
            if name in frame.inferred:
                return ("instance", "\0".join(frame.inferred[name])), "inferred"
            if frame.self_name == name and self.classes:
                cls = self.classes[-1]
                return ("instance", "\0".join(cls.key)), "self"
            if name in frame.local:
                return None, None
        return self.truth.module_attribute(self.module.name, name), "static"

    def resolve(self, expression: ast.expr) -> tuple[tuple[str, str] | None, str | None]:
        if isinstance(expression, ast.Name):
            return self.resolve_name(expression.id)
        if isinstance(expression, ast.Attribute):
            base, how = self.resolve(expression.value)
            if base is None:
                return None, None
            if base[0] == "instance":
                path, qualname = base[1].split("\0")
                member = self.truth.class_member((path, qualname), expression.attr)
                return (("def", "\0".join(member)) if member else None), how
            return self.truth.attribute_of(base, expression.attr), how
        if (isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name)
                and expression.func.id == "super" and self.classes and self.frames):
            cls = self.classes[-1]
            return ("super", "\0".join(cls.key)), "self"
        if isinstance(expression, ast.Call):  # `C(...).m`: an instance of a resolved class
            made, _ = self.resolve(expression.func)
            key = _as_key(made)
            if key is not None and self.truth.definitions[key].kind == "class":
                return ("instance", "\0".join(key)), "inferred"
        return None, None

    def bound(self, expression: ast.expr) -> tuple[Key | None, str | None]:
        """The definition an expression names, and how it was bound (``module`` when it names a
        module: an occurrence that is certainly not a definition's)."""
        if isinstance(expression, ast.Attribute):
            base, how = self.resolve(expression.value)
            if base is not None and base[0] == "super":
                path, qualname = base[1].split("\0")
                return self.truth.class_member((path, qualname), expression.attr, skip_own=True), "self"
        resolved, how = self.resolve(expression)
        if resolved is not None and resolved[0] == "module":
            return None, "module"
        return _as_key(resolved), how

    # ---- the walk -------------------------------------------------------------------------
    def visit_module(self, tree: ast.Module) -> None:
        for statement in tree.body:
            self.statement(statement)

    def body(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node)
        elif isinstance(node, ast.ClassDef):
            self.klass(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.imports(node)
        elif isinstance(node, ast.Raise):
            if node.exc is not None:
                self.expression(node.exc, "raise")
            if node.cause is not None:
                self.expression(node.cause)
        elif isinstance(node, ast.Try) or (hasattr(ast, "TryStar") and isinstance(node, ast.TryStar)):
            self.body(node.body)
            for handler in node.handlers:
                if handler.type is not None:
                    elements = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                    for element in elements:
                        self.expression(element, "except")
                self.body(handler.body)
            self.body(node.orelse)
            self.body(node.finalbody)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring or a bare string statement: text, not code
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and self._is_all(node):
            self.all_list(node.value)
        else:
            self.generic(node)

    def _is_all(self, node: ast.Assign | ast.AugAssign) -> bool:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return not self.frames and any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)

    def all_list(self, value: ast.expr) -> None:
        for element in getattr(value, "elts", []):
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                binds = _as_key(self.truth.module_attribute(self.module.name, element.value))
                self.emit(element, element.value, "all", binds, "static")
            else:
                self.expression(element)
        if not hasattr(value, "elts"):
            self.expression(value)

    def generic(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statement(child)
            elif isinstance(child, ast.expr):
                self.expression(child)
            else:
                self.generic(child)

    def imports(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            if self.frames:
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    self.frames[-1].imports[name] = ("module", alias.name if alias.asname else name, "")
            return
        source = PythonTruth._absolute(self.module, node.module, node.level)
        for alias in node.names:
            if alias.name == "*":
                continue
            binds = _as_key(self.truth.module_attribute(source, alias.name))
            self.emit(alias if hasattr(alias, "lineno") else node, alias.name, "import", binds, "static")
            if self.frames:
                self.frames[-1].imports[alias.asname or alias.name] = ("from", source, alias.name)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.expression(decorator, "decorator")
        for default in [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
            self.expression(default)
        for annotation in self._annotations(node):
            self.expression(annotation)
        qualname = node.name if self.owner == MODULE else f"{self.owner}.{node.name}"
        definition = self.truth.definitions[(self.path, qualname)]
        overridden = self.truth.overridden(definition)
        if overridden is not None:
            self.emit(node, node.name, "override", overridden, "static")
        else:
            self.emit(node, node.name, "definition", definition.key, "static")
        if self.frames:
            self.frames[-1].defs[node.name] = definition.key
        frame = self._frame(node, definition)
        outer = self.owner
        self.owner = qualname
        self.frames.append(frame)
        self._infer(node, frame)
        self.body(node.body)
        self.frames.pop()
        self.owner = outer

    @staticmethod
    def _annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.expr]:
        arguments = node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                         *([arguments.vararg] if arguments.vararg else []),
                         *([arguments.kwarg] if arguments.kwarg else [])]:
            if argument.annotation is not None:
                yield argument.annotation
        if node.returns is not None:
            yield node.returns

    def _frame(self, node: ast.FunctionDef | ast.AsyncFunctionDef, definition: Definition) -> _Frame:
        arguments = node.args
        params = [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]
        params += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
        local = set(params)
        declared: set[str] = set()
        for inner in _own_nodes(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, (ast.Store, ast.Del)):
                local.add(inner.id)
            elif isinstance(inner, (ast.Global, ast.Nonlocal)):
                declared.update(inner.names)
            elif isinstance(inner, ast.alias):
                local.add(inner.asname or inner.name.split(".")[0])
            elif isinstance(inner, ast.ExceptHandler) and inner.name:
                local.add(inner.name)
        local -= declared
        is_method = definition.kind == "method"
        self_name = None
        if is_method and params and not any(ast.unparse(d) == "staticmethod" for d in node.decorator_list):
            positional = arguments.posonlyargs + arguments.args
            self_name = positional[0].arg if positional else None
        elif self.frames and self.frames[-1].self_name and self.frames[-1].self_name not in local:
            self_name = self.frames[-1].self_name  # a closure inside a method sees its `self`
        return _Frame(definition, local, {}, {}, {}, self_name)

    def _infer(self, node: ast.FunctionDef | ast.AsyncFunctionDef, frame: _Frame) -> None:
        """Local names every assignment of which instantiates one resolved class."""
        values: dict[str, list[ast.expr]] = {}
        stores: dict[str, int] = {}
        for inner in _own_nodes(node):
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name):
                values.setdefault(inner.targets[0].id, []).append(inner.value)
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                stores[inner.id] = stores.get(inner.id, 0) + 1
        for name, assigned in values.items():
            if stores.get(name) != len(assigned) or not all(isinstance(v, ast.Call) for v in assigned):
                continue
            classes: set[Key | None] = set()
            for value in assigned:
                assert isinstance(value, ast.Call)
                key, _ = self.bound(value.func)
                classes.add(key if key is not None and self.truth.definitions[key].kind == "class" else None)
            only = next(iter(classes)) if len(classes) == 1 else None
            if only is not None:
                frame.inferred[name] = only

    def klass(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.expression(decorator, "decorator")
        for base in node.bases:
            self.expression(base, "inherit")
        for keyword in node.keywords:
            self.expression(keyword.value)
        qualname = node.name if self.owner == MODULE else f"{self.owner}.{node.name}"
        definition = self.truth.definitions[(self.path, qualname)]
        self.emit(node, node.name, "definition", definition.key, "static")
        if self.frames:
            self.frames[-1].defs[node.name] = definition.key
        outer, frames = self.owner, self.frames
        self.owner = qualname
        self.classes = [*self.classes, definition]
        self.frames = list(frames)  # a class body sees the enclosing function's names, adds none to methods
        self.body(node.body)
        self.frames = frames
        self.classes = self.classes[:-1]
        self.owner = outer

    def expression(self, node: ast.expr, role: str = "reference") -> None:
        if isinstance(node, ast.Call):
            self.expression(node.func, role if role in ("raise", "decorator") else "call")
            if isinstance(node.func, (ast.Name, ast.Attribute)):
                # The dynamic trace reports a line inside the call expression: keep its span.
                last = self.truth.occurrences[-1]
                self.truth.occurrences[-1] = Occurrence(
                    last.path, last.line, last.col, last.name, last.role, last.owner, last.binds, last.how,
                    max(last.line, node.end_lineno or 0))
            for argument in node.args:
                self.expression(argument)
            for keyword in node.keywords:
                self.expression(keyword.value)
            return
        if isinstance(node, ast.Name):
            binds, how = self.bound(node)
            self.emit(node, node.id, role, binds, how)
            return
        if isinstance(node, ast.Attribute):
            self.expression(node.value)
            binds, how = self.bound(node)
            self.emit(node, node.attr, role, binds, how)
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and DOTTED.fullmatch(node.value):
                name = node.value.rsplit(".", 1)[-1]
                binds = None
                if "." in node.value:
                    module, _, attr = node.value.rpartition(".")
                    binds = _as_key(self.truth.module_attribute(module, attr))
                self.emit(node, name, "string", binds, "static")
            return
        if isinstance(node, ast.JoinedStr):
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    self.expression(value.value)
            return
        if isinstance(node, ast.Lambda):
            for default in node.args.defaults:
                self.expression(default)
            arguments = node.args
            params = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                      *(x for x in (arguments.vararg, arguments.kwarg) if x is not None)]}
            self.frames.append(_Frame(None, params, {}, {}, {}, None))
            self.expression(node.body)
            self.frames.pop()
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expression(child)
            elif isinstance(child, ast.comprehension):
                self.expression(child.target)
                self.expression(child.iter)
                for condition in child.ifs:
                    self.expression(condition)


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's own scope: not inside nested functions, classes or lambdas."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(current))


def parse_checkout(repo: Path) -> PythonTruth:
    """The truth of every tracked ``.py`` file of ``repo``'s HEAD (files it cannot parse are counted)."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "*.py"], capture_output=True,
                            check=True).stdout.decode().split("\0")
    files: dict[str, ast.Module] = {}
    unparsed = []
    for path in sorted(p for p in listed if p):
        try:
            files[path] = ast.parse((repo / path).read_bytes(), filename=path)
        except (SyntaxError, ValueError):
            unparsed.append(path)
    return PythonTruth(files, tuple(unparsed))
