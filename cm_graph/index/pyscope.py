"""The resolver's first pass over one Python file: its definitions, scopes and pending references.

One ``ast.parse`` of the blob (never an import, never a compile, never the repository's code),
then one walk that records, per scope (module, class, function), what each name is bound to —
a definition, an import, an assigned value, an annotation, a parameter — and, per use, a pending
reference: where it is, in which scope, what it names as a compact expression (``compact``), its
role and the definition enclosing it. Nothing here looks at another file: ``pylink`` resolves the
pending references once every file is scanned.

Why compact expressions instead of the tree: a file's tree is discarded after its walk, so memory
holds scopes and references, not every node of every file. A compact expression is a tuple:
``("n", name)``, ``("a", base, attribute)``, ``("c", callee)`` (a call; its arguments do not matter
to what it returns) or ``("ca", callee, first)`` (one whose first positional argument is ``first``:
a function that returns its first parameter returns it), ``("super",)`` / ``("super", class)``,
``NONE`` for ``None`` and ``OTHER`` for anything the resolver does not follow. Types (annotations)
are ``("t", expr)``: an instance of the class ``expr`` names, ``("tc", expr)``: the class itself
(``type[X]``), ``("u", type, ...)``: a union, ``("e", type)``: a container, iterator or generator of
``type`` (``list[X]``, ``Iterator[X]``, ``tuple[X, ...]``), ``("m", key, value)``: a mapping,
``("g", type, argument)``: a generic class of the repository's with one type argument
(``Registry[Processor]``), ``("tu", type, ...)``: a tuple of those members by position
(``Tuple[A, B]``) and ``SELF_TYPE``. ``("i", base)`` is an item of ``base`` (a subscript),
``("lit", element, ...)`` a literal list or set (or a tuple with a starred member),
``("tlit", element, ...)`` a literal tuple, by position; ``("or", operand, ...)`` one of the
operands of ``or``/``and`` or a conditional expression; ``("bi", name, argument, ...)`` a call of
``next``/``iter``/``enumerate`` (the builtin's meaning when no scope binds the name) and
``("cast", callee, type)`` of a ``cast(T, v)`` (typing's when its binding says so);
``("ix", value, position, count)`` one name of ``a, b = value`` and ``("el", value)`` an element of
what a ``for`` iterates.

A block that narrows a name (``except E as e:``, ``if isinstance(x, C):``) binds it once more
under a name no source can spell (``e@12``), and the uses of the name inside the block (not in a
function, class or lambda defined there, and not when the block rebinds it) read that one.

Bounds that keep the walk deterministic whatever a file holds: expressions are walked with an
explicit stack (a deep ``a + a + ...`` costs no recursion), statements nest at most as deep as
Python's parser allows (100 levels of indentation), and a compact expression stops at 64 links.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from typing import Any

from ..base.git import count_lines
from .pymodules import ModuleMap, ModuleName

Expr = tuple[Any, ...]  # a compact expression, type or binding (the module docstring)

# Binding kinds: (kind, payload, scope the payload is evaluated in, line, fallback).
DEF, IMPORT, FROM, VALUE, TYPE, SELF, CLS, FIXTURE, ENTER, EXCEPT, ITER, UNKNOWN = range(12)
DEFINING = (DEF, IMPORT, FROM)

# Roles of a pending reference (``pylink`` turns them into the stored roles).
CALL, LOAD, DECORATE, INHERIT, IMPORTS, FIXTURE_USE = "call", "load", "decorate", "inherit", "import", "fixture"

NONE = ("none",)
OTHER = ("?",)
SELF_TYPE = ("self",)
_MAX_LINKS = 64
_MAX_UNION = 8  # members of a union type, or of a literal list or tuple, that are followed

# Definition flags.
PROPERTY, ACCESSOR, STATIC, CLASSMETHOD, OVERLOAD, IS_FIXTURE, IS_TEST, GENERATOR = (1 << bit for bit in range(8))

_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_TRANSPARENT_TYPES = frozenset({"Optional", "Annotated", "ClassVar", "Final", "Required", "NotRequired", "ReadOnly"})
# Annotations whose instances hold (or yield) elements of their first argument, and mappings.
_CONTAINERS = frozenset({
    "Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "List", "list",
    "Sequence", "MutableSequence", "Set", "set", "FrozenSet", "frozenset", "AbstractSet", "MutableSet",
    "Collection", "Deque", "deque", "Reversible", "KeysView", "ValuesView",
})
_MAPPINGS = frozenset({"Dict", "dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict",
                       "ChainMap"})
_CLASS_TYPES = frozenset({"Type", "type"})
_PROPERTIES = frozenset({"property", "cached_property", "abstractproperty"})


class Definition:
    """A module, class or function (a method when directly in a class body) of one file."""

    __slots__ = ("path", "kind", "name", "qualname", "start", "line", "end", "column", "parent", "flags",
                 "scope", "returns", "fixture_name", "number", "first_parameter")

    def __init__(self, path: str, kind: str, name: str, qualname: str, start: int, line: int, end: int,
                 column: int, parent: Definition | None) -> None:
        self.path = path
        self.kind = kind
        self.name = name
        self.qualname = qualname
        self.start = start  # the first decorator's line (the def/class line when undecorated)
        self.line = line  # the def/class keyword's line
        self.end = end
        self.column = column
        self.parent = parent
        self.flags = 0
        self.scope: Scope | None = None
        self.returns: Expr | None = None  # the return annotation, as a compact type
        self.fixture_name = ""
        self.number = 0  # its place in the resolved layer, given by pylink
        self.first_parameter = ""  # a function's first positional parameter (``return it`` passes it on)


class Scope:
    """What names mean inside one module, class or function body."""

    __slots__ = ("kind", "parent", "definition", "bindings", "globals", "nonlocals", "stars", "bases", "instance_attrs",
                 "returns", "yields", "owner", "facts")

    def __init__(self, kind: str, parent: Scope | None, definition: Definition, facts: FileFacts) -> None:
        self.kind = kind
        self.parent = parent
        self.definition = definition
        self.bindings: dict[str, list[Expr]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.stars: list[str] = []  # modules star-imported here (module scope)
        self.bases: list[Expr] = []  # a class's bases, evaluated in its parent scope
        self.instance_attrs: dict[str, list[Expr]] = {}  # self.x = ... in its methods
        self.returns: list[Expr] = []
        self.yields: list[Expr] = []
        self.owner: Scope | None = None  # a method's class scope
        self.facts = facts

    def bind(self, name: str, binding: Expr) -> None:
        self.bindings.setdefault(name, []).append(binding)


class FileFacts:
    """One file's first pass: its module, status, definitions, scopes and pending references."""

    __slots__ = ("path", "module", "status", "lines", "definitions", "scope", "pending", "all_names")

    def __init__(self, path: str, module: ModuleName) -> None:
        self.path = path
        self.module = module
        self.status = "resolved"
        self.lines = 0
        self.definitions: list[Definition] = []
        self.scope: Scope | None = None
        # (line, column, role, expression, scope, enclosing definition, name at the site)
        self.pending: list[Expr] = []
        self.all_names: tuple[str, ...] | None = None  # a literal __all__


_MAX_ARGUMENT_DEPTH = 4  # calls nested in a call's first argument that are followed


def compact(node: Any, shadow: frozenset[str] = frozenset(), depth: int = 0) -> Expr:
    """The compact expression of ``node`` (see the module docstring)."""
    links: list[tuple[str, Any]] = []
    while node is not None and len(links) < _MAX_LINKS:
        kind = type(node)
        if kind is ast.Attribute:
            links.append(("a", node.attr))
            node = node.value
        elif kind is ast.Subscript:
            links.append(("i", ""))
            node = node.value
        elif kind is ast.Call:
            func = node.func
            if type(func) is ast.Name and func.id == "super" and "super" not in shadow:
                args = node.args
                base: Expr = ("super", compact(args[0], shadow)) if args else ("super",)
                return _relink(base, links)
            special = _special_call(node, func, shadow)
            if special is not None:
                return _relink(special, links)
            first = node.args[0] if node.args else None
            if first is not None and type(first) is not ast.Starred and depth < _MAX_ARGUMENT_DEPTH:
                passed = compact(first, shadow, depth + 1)
                links.append(("ca", passed) if passed is not OTHER else ("c", ""))
            else:
                links.append(("c", ""))
            node = func
        elif kind is ast.Name:
            name = node.id
            return OTHER if name in shadow else _relink(("n", name), links)
        elif kind is ast.Constant and node.value is None:
            return NONE if not links else OTHER
        elif kind is ast.Tuple and not node.elts:  # (): immutable, it has no element
            return _relink(("tlit",), links)
        elif kind in (ast.Tuple, ast.List, ast.Set) and 0 < len(node.elts) <= _MAX_UNION:
            elements = [compact(element, shadow) for element in node.elts]
            positional = kind is ast.Tuple and not any(type(element) is ast.Starred for element in node.elts)
            return _relink(("tlit" if positional else "lit", *elements), links)
        elif kind is ast.BoolOp and len(node.values) <= _MAX_UNION:  # the value is one of the operands
            return _relink(("or", *(compact(operand, shadow) for operand in node.values)), links)
        elif kind is ast.IfExp:
            return _relink(("or", compact(node.body, shadow), compact(node.orelse, shadow)), links)
        else:
            return OTHER
    return OTHER


_BUILTIN_CALLS = frozenset({"next", "iter", "enumerate"})
# Builtins whose result holds the elements of their one iterable argument.
_COPYING_CALLS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed"})


def _special_call(node: ast.Call, func: Any, shadow: frozenset[str]) -> Expr | None:
    """A call whose result its arguments decide: ``next(it[, default])``, ``iter(xs)``,
    ``enumerate(xs)``, ``list(xs)`` (and ``tuple``, ``set``, ``frozenset``, ``sorted``,
    ``reversed``) as ``("bi", name, argument, ...)`` (``pylink`` checks the name is the
    builtin's), ``deque(xs)`` as ``("deque", callee, argument)`` (checked to be collections'),
    and ``cast(T, value)`` as ``("cast", callee, type)`` (checked to be typing's)."""
    args = node.args
    if any(type(argument) is ast.Starred for argument in args):
        return None
    name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else ""
    if len(args) == 1 and (not node.keywords or name == "sorted"):
        if type(func) is ast.Name and name in _COPYING_CALLS and name not in shadow:
            return ("bi", name, compact(args[0], shadow))
        if name == "deque":
            callee = compact(func, shadow)
            return ("deque", callee, compact(args[0], shadow)) if callee is not OTHER else None
    if node.keywords:
        return None
    if type(func) is ast.Name and func.id in _BUILTIN_CALLS and func.id not in shadow:
        wanted = (1, 2) if func.id == "next" else (1,)
        if len(args) in wanted:
            return ("bi", func.id, *(compact(argument, shadow) for argument in args))
        return None
    if name == "cast" and len(args) == 2:
        callee = compact(func, shadow)
        declared = compact_type(args[0])
        return ("cast", callee, declared) if callee is not OTHER and declared is not OTHER else None
    return None


def _relink(base: Expr, links: list[tuple[str, Any]]) -> Expr:
    expression = base
    for kind, attribute in reversed(links):  # an attribute's name, a call's first argument
        expression = (kind, expression, attribute) if kind in ("a", "ca") else (kind, expression)
    return expression


def compact_type(node: Any, depth: int = 0) -> Expr:
    """An annotation as a compact type: the instance it declares, or ``OTHER``."""
    if node is None or depth > 8:
        return OTHER
    kind = type(node)
    if kind is ast.Constant:
        value = node.value
        if value is None:
            return NONE
        if isinstance(value, str) and len(value) <= 200:
            try:
                parsed = ast.parse(value.strip(), mode="eval").body
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                return OTHER
            return compact_type(parsed, depth + 1)
        return OTHER
    if kind in (ast.Name, ast.Attribute):
        last = node.id if kind is ast.Name else node.attr
        if last == "Self":
            return SELF_TYPE
        expression = compact(node)
        return OTHER if expression is OTHER else ("t", expression)
    if kind is ast.BinOp and type(node.op) is ast.BitOr:
        return _union([node.left, node.right], depth)
    if kind is ast.Subscript:
        head = node.value
        name = head.id if type(head) is ast.Name else head.attr if type(head) is ast.Attribute else ""
        inner = node.slice
        elements = list(inner.elts) if type(inner) is ast.Tuple else [inner]
        if name in _TRANSPARENT_TYPES:
            return compact_type(elements[0], depth + 1)
        if name == "Union":
            return _union(elements, depth)
        if name in _CLASS_TYPES:  # type[X], type["X"]: the class itself
            named = compact_type(elements[0], depth + 1)
            return ("tc", named[1]) if named[0] == "t" else OTHER
        if name in _CONTAINERS:
            return ("e", compact_type(elements[0], depth + 1))
        if name in ("Tuple", "tuple") and len(elements) == 2 and type(elements[1]) is ast.Constant \
                and elements[1].value is Ellipsis:
            return ("e", compact_type(elements[0], depth + 1))
        if name in ("Tuple", "tuple") and 0 < len(elements) <= _MAX_UNION:  # members by position
            return ("tu", *(compact_type(element, depth + 1) for element in elements))
        if name in _MAPPINGS and len(elements) == 2:
            return ("m", compact_type(elements[0], depth + 1), compact_type(elements[1], depth + 1))
        if name in ("ContextManager", "AbstractContextManager", "AsyncContextManager"):
            return compact_type(elements[0], depth + 1)
        base = compact_type(head, depth + 1)  # a generic class: Base[T] is a Base, of T when one parameter
        if len(elements) == 1 and base is not OTHER and base[0] == "t":
            return ("g", base, compact_type(elements[0], depth + 1))
        return base
    return OTHER


def _union(elements: list[ast.expr], depth: int) -> Expr:
    kept = [t for t in (compact_type(e, depth + 1) for e in elements) if t is not NONE]
    return kept[0] if len(kept) == 1 else ("u", *kept) if kept and len(kept) <= _MAX_UNION else OTHER


def _flattened(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        item = stack.pop()
        if type(item) in (ast.Tuple, ast.List):
            stack.extend(reversed(item.elts))
        elif type(item) is ast.Starred:
            stack.append(item.value)
        else:
            yield item


_IN_LAMBDA = "<lambda>"  # in a walk's shadowed names: a lambda's body (no source name is spelled so)


def _rename(expression: Any, renames: dict[str, str]) -> Any:
    if type(expression) is not tuple:
        return expression
    if len(expression) == 2 and expression[0] == "n" and expression[1] in renames:
        return ("n", renames[expression[1]])
    return tuple(_rename(part, renames) for part in expression)


def _isinstance_test(test: Any) -> tuple[str, Expr] | None:
    """``isinstance(name, C)`` or ``isinstance(name, (C, D))`` as (name, the type it declares);
    ``pylink`` checks ``isinstance`` is the builtin."""
    if not (type(test) is ast.Call and type(test.func) is ast.Name and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and type(test.args[0]) is ast.Name):
        return None
    classes = test.args[1]
    if type(classes) is ast.Tuple:
        if not classes.elts or len(classes.elts) > _MAX_UNION:
            return None
        declared = _union(list(classes.elts), 0)
    else:
        declared = compact_type(classes)
    return (test.args[0].id, declared) if declared is not OTHER else None


def _rebinds(statements: list[ast.stmt], name: str) -> bool:
    """Whether ``statements`` (nested blocks included) may bind ``name`` again."""
    for statement in statements:
        node: Any
        for node in ast.walk(statement):
            kind = type(node)
            if kind is ast.Name and type(node.ctx) is not ast.Load and node.id == name:
                return True
            if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and node.name == name:
                return True
            if kind in (ast.Import, ast.ImportFrom) and any(
                    (alias.asname or alias.name.partition(".")[0]) == name for alias in node.names):
                return True
            if kind in (ast.Global, ast.Nonlocal) and name in node.names:
                return True
            if kind is ast.ExceptHandler and node.name == name:
                return True
    return False


def _unpacked(target: Any, value: Expr) -> list[tuple[ast.Name, Expr]] | None:
    """``a, b = value`` as each name and ``("ix", value, position, count)``: only for a flat
    target of plain names (a starred or nested one shifts positions: None)."""
    if type(target) not in (ast.Tuple, ast.List) or value is OTHER or value == ("el", OTHER):
        return None
    names = target.elts
    if not names or not all(type(name) is ast.Name for name in names):
        return None
    return [(name, ("ix", value, position, len(names))) for position, name in enumerate(names)]


def _decorator_name(node: Any) -> str:
    """The last name of a decorator (``pytest.fixture(scope=...)`` is ``fixture``)."""
    if type(node) is ast.Call:
        node = node.func
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        return node.attr
    return ""


def _fixture_name(node: Any) -> str:
    if type(node) is ast.Call:
        for keyword in node.keywords:
            if keyword.arg == "name" and type(keyword.value) is ast.Constant and isinstance(keyword.value.value, str):
                return keyword.value.value
    return ""


def _parametrized(decorators: list[Any]) -> set[str]:
    """Parameter names a ``parametrize`` decorator supplies (not fixtures)."""
    names: set[str] = set()
    for node in decorators:
        if type(node) is ast.Call and _decorator_name(node) == "parametrize" and node.args:
            first: Any = node.args[0]
            if type(first) is ast.Constant and isinstance(first.value, str):
                names.update(part.strip() for part in first.value.split(","))
            elif type(first) in (ast.List, ast.Tuple):
                names.update(e.value for e in first.elts if type(e) is ast.Constant and isinstance(e.value, str))
    return names


def _literal_names(node: Any) -> tuple[str, ...] | None:
    if type(node) in (ast.List, ast.Tuple):
        names = [e.value for e in node.elts if type(e) is ast.Constant and isinstance(e.value, str)]
        if len(names) == len(node.elts):
            return tuple(names)
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind", "conversion"})


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of an expression kind that may hold expressions (every field but its leaves)."""
    fields = tuple(name for name in getattr(kind, "_fields", ()) if name not in _LEAF_FIELDS)
    _CHILD_FIELDS[kind] = fields
    return fields


class _Walker:
    """The walk of one file's tree (see the module docstring)."""

    def __init__(self, facts: FileFacts, modules: ModuleMap) -> None:
        self.facts = facts
        self.modules = modules
        self.fallback = 0  # inside an except handler: bindings there are fallbacks
        self.names: list[Expr] = []  # pending name loads, filtered at the end
        self.all_unknown = False
        # Names narrowed in the block being walked (``if isinstance(x, C):``, ``except E as x:``):
        # a use there reads the block's own binding, under a name no source can spell.
        self.renames: dict[str, str] = {}

    def compact(self, node: Any, shadow: frozenset[str] = frozenset()) -> Expr:
        """``compact(node)``, its narrowed names read as the block's bindings (not in a lambda's
        body, which may run after the block)."""
        expression = compact(node, shadow)
        if self.renames and _IN_LAMBDA not in shadow:
            return _rename(expression, self.renames)
        return expression

    def narrowed(self, statements: list[ast.stmt], scope: Scope, name: str, binding: Expr, line: int) -> None:
        """Walk ``statements`` with ``name`` read as ``binding`` (unless they rebind it)."""
        if _rebinds(statements, name):
            self.body(statements, scope)
            return
        alias = f"{name}@{line}"
        self.bind(scope, alias, binding)
        saved = self.renames
        self.renames = {**saved, name: alias}
        try:
            self.body(statements, scope)
        finally:
            self.renames = saved

    # -- definitions -------------------------------------------------------------------------
    def define(self, kind: str, name: str, node: Any, decorators: list[ast.expr], parent: Definition) -> Definition:
        start = min([node.lineno, *(d.lineno for d in decorators)])
        qualname = f"{parent.qualname}.{name}"
        definition = Definition(self.facts.path, kind, name, qualname, start, node.lineno,
                                node.end_lineno or node.lineno, node.col_offset + 1, parent)
        self.facts.definitions.append(definition)
        return definition

    # -- statements --------------------------------------------------------------------------
    def body(self, statements: list[ast.stmt], scope: Scope) -> None:
        for statement in statements:
            self.statement(statement, scope)

    def statement(self, node: Any, scope: Scope) -> None:  # noqa: C901 - one dispatch over statement kinds
        kind = type(node)
        enclosing = scope.definition
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.function(node, scope)
        elif kind is ast.ClassDef:
            self.klass(node, scope)
        elif kind is ast.Import:
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                target = alias.name if alias.asname else alias.name.partition(".")[0]
                self.bind(scope, bound, (IMPORT, target, scope, node.lineno, self.fallback))
                self.facts.pending.append((alias.lineno, alias.col_offset + 1, IMPORTS, ("m", alias.name), scope,
                                           enclosing, alias.name.rpartition(".")[2]))
        elif kind is ast.ImportFrom:
            module = self.modules.absolute(self.facts.path, node.module, node.level)
            for alias in node.names:
                if alias.name == "*":
                    scope.stars.append(module)
                    continue
                bound = (FROM, (module, alias.name), scope, node.lineno, self.fallback)
                self.bind(scope, alias.asname or alias.name, bound)
                self.facts.pending.append((alias.lineno, alias.col_offset + 1, IMPORTS, ("f", module, alias.name),
                                           scope, enclosing, alias.name))
        elif kind is ast.Assign:
            self.expression(node.value, scope, enclosing)
            value = self.compact(node.value)
            for target in node.targets:
                self.assign(target, value, scope, node.lineno, node.value)
        elif kind is ast.AnnAssign:
            self.expression(node.annotation, scope, enclosing)
            if node.value is not None:
                self.expression(node.value, scope, enclosing)
            declared = compact_type(node.annotation)
            self.assign(node.target, declared, scope, node.lineno, None, typed=True)
        elif kind is ast.AugAssign:
            self.expression(node.value, scope, enclosing)
            target = node.target
            if type(target) is ast.Name:
                self.bind(scope, target.id, (UNKNOWN, None, scope, node.lineno, self.fallback))
                if target.id == "__all__" and scope.kind == "module":
                    self.extend_all(node.value)
            else:
                self.expression(target, scope, enclosing)
        elif kind in (ast.For, ast.AsyncFor):
            self.expression(node.iter, scope, enclosing)
            if type(node.target) is ast.Name:
                self.bind(scope, node.target.id, (ITER, self.compact(node.iter), scope, node.lineno, self.fallback))
            else:
                self.assign(node.target, ("el", self.compact(node.iter)), scope, node.lineno, None)
            self.body(node.body, scope)
            self.body(node.orelse, scope)
        elif kind in (ast.With, ast.AsyncWith):
            for item in node.items:
                self.expression(item.context_expr, scope, enclosing)
                if item.optional_vars is not None:
                    if type(item.optional_vars) is ast.Name:
                        self.bind(scope, item.optional_vars.id,
                                  (ENTER, self.compact(item.context_expr), scope, node.lineno, self.fallback))
                    else:
                        self.assign(item.optional_vars, OTHER, scope, node.lineno, None)
            self.body(node.body, scope)
        elif kind in (ast.Try, getattr(ast, "TryStar", ast.Try)):
            self.body(node.body, scope)
            for handler in node.handlers:
                if handler.type is not None:
                    self.expression(handler.type, scope, enclosing)
                caught = self.compact(handler.type) if handler.type is not None else OTHER
                if handler.name:
                    self.bind(scope, handler.name, (EXCEPT, caught, scope, handler.lineno, self.fallback))
                self.fallback += 1
                if handler.name:  # the name is the handler's own: Python unbinds it at the end
                    self.narrowed(handler.body, scope, handler.name,
                                  (EXCEPT, caught, scope, handler.lineno, self.fallback), handler.lineno)
                else:
                    self.body(handler.body, scope)
                self.fallback -= 1
            self.body(node.orelse, scope)
            self.body(node.finalbody, scope)
        elif kind in (ast.If, ast.While):
            self.expression(node.test, scope, enclosing)
            narrowing = _isinstance_test(node.test) if kind is ast.If else None
            if narrowing is not None:
                name, declared = narrowing
                self.narrowed(node.body, scope, name,
                              (VALUE, ("narrow", self.compact(node.test.args[0]), declared), scope, node.lineno,
                               self.fallback), node.lineno)
            else:
                self.body(node.body, scope)
            self.body(node.orelse, scope)
        elif kind is ast.Return:
            value = node.value
            if value is not None:
                self.expression(value, scope, enclosing)
            scope.returns.append(self.compact(value) if value is not None else NONE)
        elif kind is ast.Global:
            scope.globals.update(node.names)
        elif kind is ast.Nonlocal:
            scope.nonlocals.update(node.names)
        elif kind is ast.Match:
            self.expression(node.subject, scope, enclosing)
            for case in node.cases:
                for inner in ast.walk(case.pattern):
                    captured = getattr(inner, "name", None)
                    if isinstance(captured, str):
                        self.bind(scope, captured, (UNKNOWN, None, scope, node.lineno, self.fallback))
                    for part in (getattr(inner, "value", None), getattr(inner, "cls", None)):
                        if isinstance(part, ast.expr):
                            self.expression(part, scope, enclosing)
                if case.guard is not None:
                    self.expression(case.guard, scope, enclosing)
                self.body(case.body, scope)
        else:  # Expr, Raise, Assert, Delete, Pass, Break, Continue
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expression(child, scope, enclosing)

    def bind(self, scope: Scope, name: str, binding: Expr) -> None:
        target = scope
        if scope.kind == "function" and name in scope.globals:
            while target.parent is not None:
                target = target.parent
        elif name in scope.nonlocals:  # bound in the nearest enclosing function that has it
            outer = scope.parent
            while outer is not None and not (outer.kind == "function" and name in outer.bindings):
                outer = outer.parent
            if outer is None:
                return
            target = outer
        target.bind(name, binding)

    def assign(self, target: Any, value: Expr, scope: Scope, line: int,
               source: ast.expr | None, typed: bool = False) -> None:
        kind = type(target)
        binding_kind = TYPE if typed else VALUE
        if kind is ast.Name:
            name = target.id
            self.bind(scope, name, (binding_kind, value, scope, line, self.fallback))
            if name == "__all__" and scope.kind == "module" and source is not None:
                self.set_all(source)
        elif kind is ast.Attribute:
            self.expression(target.value, scope, scope.definition)
            base = target.value
            owner = scope.owner
            if owner is not None and type(base) is ast.Name and self.is_self(scope, base.id):
                owner.instance_attrs.setdefault(target.attr, []).append(
                    (binding_kind, value, scope, line, self.fallback))
        elif kind in (ast.Tuple, ast.List, ast.Starred):
            members = _unpacked(target, value)
            if members is not None:  # a, b = ...: each name one position of the value
                for element, member in members:
                    self.bind(scope, element.id, (VALUE, member, scope, line, self.fallback))
                return
            for element in _flattened(target):
                self.assign(element, OTHER, scope, line, None)
        else:  # a subscript target: its parts are uses
            self.expression(target, scope, scope.definition)

    @staticmethod
    def is_self(scope: Scope, name: str) -> bool:
        return any(binding[0] == SELF for binding in scope.bindings.get(name, ()))

    def set_all(self, value: ast.expr) -> None:
        names = _literal_names(value)
        if names is None:
            self.all_unknown = True
        else:
            self.facts.all_names = names

    def extend_all(self, value: ast.expr) -> None:
        names = _literal_names(value)
        if names is None or self.facts.all_names is None:
            self.all_unknown = True
        else:
            self.facts.all_names = self.facts.all_names + names

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        in_class = scope.kind == "class"
        parent = scope.definition
        definition = self.define("method" if in_class else "function", node.name, node, node.decorator_list, parent)
        flags = 0
        fixture = None
        for decorator in node.decorator_list:
            self.expression(decorator, scope, definition, DECORATE)
            last = _decorator_name(decorator)
            if last in _PROPERTIES:
                flags |= PROPERTY
            elif last in ("setter", "deleter", "getter") and type(decorator) is ast.Attribute:
                flags |= ACCESSOR
            elif last == "staticmethod":
                flags |= STATIC
            elif last == "classmethod":
                flags |= CLASSMETHOD
            elif last == "overload":
                flags |= OVERLOAD
            elif last == "fixture" or last == "yield_fixture":
                flags |= IS_FIXTURE
                fixture = decorator
        if node.name.startswith("test") and (not in_class or parent.name.startswith("Test")):
            flags |= IS_TEST
        definition.flags = flags
        if fixture is not None:
            definition.fixture_name = _fixture_name(fixture) or node.name
        arguments = node.args
        for default in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]:
            self.expression(default, scope, definition)
        positional = [*arguments.posonlyargs, *arguments.args]
        every = [*positional, *arguments.kwonlyargs,
                 *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]
        for argument in every:
            if argument.annotation is not None:
                self.expression(argument.annotation, scope, definition)
        if node.returns is not None:
            self.expression(node.returns, scope, definition)
            definition.returns = compact_type(node.returns)
        self.bind(scope, node.name, (DEF, definition, scope, node.lineno, self.fallback))
        inner = Scope("function", scope, definition, self.facts)
        definition.scope = inner
        if in_class:
            inner.owner = scope
        self.parameters(inner, definition, positional, arguments, in_class, _parametrized(node.decorator_list))
        saved, self.renames = self.renames, {}  # a nested body may run after the block: not narrowed
        self.body(node.body, inner)
        self.renames = saved
        if inner.yields:
            definition.flags |= GENERATOR

    def parameters(self, inner: Scope, definition: Definition, positional: list[ast.arg],
                   arguments: ast.arguments, in_class: bool, supplied: set[str]) -> None:
        """Bind the parameters: the receiver of a method, annotated ones by their type, and a test's
        or fixture's other parameters to the fixtures named like them."""
        flags = definition.flags
        fixtures = bool(flags & (IS_FIXTURE | IS_TEST))
        first_is_receiver = in_class and not flags & STATIC and bool(positional)
        with_default = len(positional) - len(arguments.defaults)
        line = definition.line
        if positional and not first_is_receiver:
            definition.first_parameter = positional[0].arg
        for position, argument in enumerate(positional):
            name = argument.arg
            if position == 0 and first_is_receiver:
                receiver = CLS if flags & CLASSMETHOD or definition.name in _IMPLICIT_CLASSMETHODS else SELF
                inner.bind(name, (receiver, inner.owner, inner, line, 0))
            elif argument.annotation is not None:
                inner.bind(name, (TYPE, compact_type(argument.annotation), inner.parent, line, 0))
            elif fixtures and position < with_default and name not in supplied:
                inner.bind(name, (FIXTURE, definition, inner, line, 0))
                self.facts.pending.append((argument.lineno, argument.col_offset + 1, FIXTURE_USE, ("fx", name),
                                           inner, definition, name))
            else:
                inner.bind(name, (UNKNOWN, None, inner, line, 0))
        for argument in [*arguments.kwonlyargs, *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]:
            if argument.annotation is not None and argument not in (arguments.vararg, arguments.kwarg):
                inner.bind(argument.arg, (TYPE, compact_type(argument.annotation), inner.parent, line, 0))
            else:
                inner.bind(argument.arg, (UNKNOWN, None, inner, line, 0))

    def klass(self, node: ast.ClassDef, scope: Scope) -> None:
        definition = self.define("class", node.name, node, node.decorator_list, scope.definition)
        for decorator in node.decorator_list:
            self.expression(decorator, scope, definition, DECORATE)
        inner = Scope("class", scope, definition, self.facts)
        definition.scope = inner
        for base in node.bases:
            self.expression(base, scope, definition, INHERIT)
            inner.bases.append(compact(base.value if type(base) is ast.Subscript else base))
        for keyword in node.keywords:
            self.expression(keyword.value, scope, definition)
        self.bind(scope, node.name, (DEF, definition, scope, node.lineno, self.fallback))
        saved, self.renames = self.renames, {}
        self.body(node.body, inner)
        self.renames = saved

    # -- expressions -------------------------------------------------------------------------
    def expression(self, root: ast.expr, scope: Scope, enclosing: Definition, role: str = LOAD) -> None:
        """Record the uses in one expression (an explicit stack: no recursion on deep trees). A
        comprehension is a scope of its own, its targets bound to the elements of what they
        iterate; a lambda's parameters only shadow (they are unknown)."""
        pending = self.facts.pending
        # Children are pushed as lists (a generator per push costs more: this loop meets every node
        # of every expression of the commit).
        stack: list[tuple[Any, str, frozenset[str], Scope]] = [(root, role, frozenset(), scope)]
        while stack:
            node, role, shadow, here = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is ast.Load and node.id not in shadow:
                    read = self.renames.get(node.id, node.id) if _IN_LAMBDA not in shadow else node.id
                    self.names.append((node.lineno, node.col_offset + 1, role, ("n", read), here,
                                       enclosing, node.id))
            elif kind is ast.Attribute:
                attribute = node.attr
                if type(node.ctx) is ast.Load:
                    line = node.end_lineno or node.lineno
                    column = (node.end_col_offset or 0) - len(attribute.encode("utf-8")) + 1
                    pending.append((line, column, role, self.compact(node, shadow), here, enclosing, attribute))
                stack.append((node.value, LOAD, shadow, here))
            elif kind is ast.Call:
                stack += [(argument, LOAD, shadow, here) for argument in node.args]
                stack += [(keyword.value, LOAD, shadow, here) for keyword in node.keywords]
                func = node.func
                if not (type(func) is ast.Name and func.id == "super"):
                    stack.append((func, CALL, shadow, here))
            elif kind is ast.Lambda:
                arguments = node.args
                names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                         *(x for x in (arguments.vararg, arguments.kwarg) if x is not None)]}
                stack.extend((d, LOAD, shadow, here) for d in [*arguments.defaults, *arguments.kw_defaults]
                             if d is not None)
                stack.append((node.body, LOAD, shadow | names | {_IN_LAMBDA}, here))
            elif kind in _COMPREHENSIONS:
                inner = Scope("comprehension", here, here.definition, self.facts)
                inner.owner = here.owner
                for index, generator in enumerate(node.generators):
                    source = here if index == 0 else inner  # the first iterable is evaluated outside
                    stack.append((generator.iter, LOAD, shadow, source))
                    target = generator.target
                    members = _unpacked(target, ("el", self.compact(generator.iter, shadow)))
                    if type(target) is ast.Name:
                        inner.bind(target.id, (ITER, self.compact(generator.iter, shadow), source, node.lineno, 0))
                    elif members is not None:
                        for unpacked, member in members:
                            inner.bind(unpacked.id, (VALUE, member, source, node.lineno, 0))
                    else:
                        for element in ast.walk(target):
                            if type(element) is ast.Name:
                                inner.bind(element.id, (UNKNOWN, None, inner, node.lineno, 0))
                    stack.extend((condition, LOAD, shadow, inner) for condition in generator.ifs)
                if kind is ast.DictComp:
                    stack.append((node.key, LOAD, shadow, inner))
                    stack.append((node.value, LOAD, shadow, inner))
                else:
                    stack.append((node.elt, LOAD, shadow, inner))
            elif kind in (ast.Yield, ast.YieldFrom):
                value = node.value
                if kind is ast.Yield:
                    here.yields.append(self.compact(value, shadow) if value is not None else NONE)
                else:
                    here.yields.append(OTHER)
                if value is not None:
                    stack.append((value, LOAD, shadow, here))
            elif kind is ast.NamedExpr:
                target = node.target
                if target.id not in shadow:
                    outer = here
                    while outer.kind == "comprehension" and outer.parent is not None:
                        outer = outer.parent
                    self.bind(outer, target.id,
                              (VALUE, self.compact(node.value, shadow), here, node.lineno, self.fallback))
                stack.append((node.value, LOAD, shadow, here))
            elif kind is not ast.Constant:
                for field in _CHILD_FIELDS.get(kind) or _child_fields(kind):
                    child = getattr(node, field)
                    if type(child) is list:
                        stack += [(item, LOAD, shadow, here) for item in child if item is not None]
                    elif child is not None:
                        stack.append((child, LOAD, shadow, here))

    # -- the end of the file: which name loads are worth resolving ----------------------------
    def keep_names(self) -> None:
        """Keep a name load that a definition or import binds, a called one, and one that may come
        from a star import; a plain local or builtin is no reference to any definition."""
        stars = bool(self.facts.scope is not None and self.facts.scope.stars)
        for entry in self.names:
            scope, name, role = entry[4], entry[6], entry[2]
            found = _lexical(scope, name)
            if found is None:
                if stars:
                    self.facts.pending.append(entry)
                continue
            kinds = {binding[0] for binding in found.bindings[name]}
            if kinds & {DEF, IMPORT, FROM} or role == CALL:
                self.facts.pending.append(entry)
        self.names = []


def _lexical(scope: Scope, name: str) -> Scope | None:
    """The scope whose binding of ``name`` a use in ``scope`` sees (class bodies are skipped from
    inside a function, as Python does), or None (a builtin, or a star import's)."""
    if name in scope.bindings and name not in scope.globals:
        return scope
    if name in scope.globals:
        while scope.parent is not None:
            scope = scope.parent
        return scope if name in scope.bindings else None
    current = scope.parent
    while current is not None:
        if current.kind != "class" and name in current.bindings:
            return current
        current = current.parent
    return None


MAX_RESOLVED_BYTES = 2 * 1024 * 1024  # the text index's bound: a larger blob is counted, not parsed


def scan_file(path: str, data: bytes | int, modules: ModuleMap) -> FileFacts:
    """The first pass over one file (``data``: its blob's bytes, or only its line count when the
    blob is over ``MAX_RESOLVED_BYTES``, which is then not parsed)."""
    module = modules.modules[path]
    facts = FileFacts(path, module)
    facts.lines = data if isinstance(data, int) else count_lines((data,))
    root = Definition(path, "module", module.name.rpartition(".")[2], module.qualified, 1, 1, max(facts.lines, 1), 1,
                      None)
    facts.definitions.append(root)
    scope = Scope("module", None, root, facts)
    root.scope = scope
    facts.scope = scope
    if isinstance(data, int) or len(data) > MAX_RESOLVED_BYTES:
        facts.status = "too_large"
        return facts
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=path, feature_version=(3, 11))
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        facts.status = "unparsable"
        return facts
    walker = _Walker(facts, modules)
    walker.body(tree.body, scope)
    del tree
    walker.keep_names()
    if walker.all_unknown:
        facts.all_names = None
    return facts
