"""The resolver's second pass: every pending reference of every file bound to a definition, or not.

A value is what an expression evaluates to, as far as the tree shows without running anything:

- ``("mod", name, path)`` a module of this tree (``path`` None for a directory of modules),
- ``("def", d)`` a class or function definition (a method looked up on a class or an instance),
- ``("inst", c)`` an instance of class ``c``; ``("inst", c, argument)`` one of a generic class
  of one type argument (``Registry[Processor]``: iterating it gives ``argument`` where its
  ``__iter__`` yields its type variable),
- ``("prop", d)`` what reading the property ``d`` gives (its getter runs),
- ``("super", c)`` ``super()`` inside class ``c``,
- ``("cont", element)`` a container or iterator of ``element`` values, ``("map", key, value)`` a
  mapping (from annotations: ``list[X]``, ``Iterator[X]``, ``dict[K, V]``), and ``("bm", result)``
  one of their methods whose call gives ``result`` (``d.get(k)``, ``d.values()``, ``xs.pop()``,
  ``queue.popleft()``),
- ``("tup", member, ...)`` a tuple whose members are known by position (a ``Tuple[A, B]``
  annotation, a literal ``(a, b)``; ``()`` has no member, so iterating it gives nothing that
  could disagree),
- ``EXTERNAL`` something from outside the tree (an installed module, a builtin's result),
- ``None``: unknown. A call on an unknown receiver is never guessed: it is kept unbound, with its
  name, when some definition of the tree has that name.

How a name's bindings become one value: in a module or class body the use sees the last binding
before its line (a function body sees the scope's final state); bindings inside an ``except``
handler are fallbacks, used only when there is no other (but the handler's own ``as`` name is,
inside that handler, an instance of what it catches, and inside ``if isinstance(x, C):`` ``x``
is a ``C``: ``pyscope`` reads those uses as the block's own binding); an ``@overload`` stub or a property's
setter gives way to the definition beside it; ``None`` never disagrees; and the rest must agree on
one value, else the value is unknown. Attribute lookups follow the class's MRO (C3 over the bases
this tree defines); a class with a base from outside the tree answers ``EXTERNAL`` for what its own
classes lack. Instance attributes are what ``self.x = ...`` (or ``self.x: T``) assigns in any method,
and a class body's annotations. A call returns an instance of the class called, or the function's
declared return type, or what all its ``return`` statements agree on; a function whose every
``return`` is its first parameter (never bound again) returns the first argument it is called
with (attrs' ``Factory = _add_hash(_add_repr(Factory))``). A ``for`` target or a
comprehension's is an element of what it iterates; a subscript is an item; ``a, b = value`` (a
flat target of names, in an assignment, a ``for`` or a comprehension) gives each name the
member at its position of a tuple whose length matches, or an element of a container (a starred
or nested target is unknown). ``x or y``, ``x and y`` and ``x if c else y`` are what their
operands agree on. The builtins (a name no scope binds): ``next(it[, default])`` is ``it``'s
``__next__`` result for an instance, else an element (or the default), ``iter(xs)`` an iterator
of ``xs``' elements (an instance's ``__iter__`` result), ``enumerate(xs)`` pairs of a number and
an element, ``list(xs)``, ``tuple(xs)``, ``set(xs)``, ``frozenset(xs)``, ``sorted(xs)``,
``reversed(xs)`` and collections' ``deque(xs)`` a container of ``xs``' elements. ``cast(T, v)``
is an instance of ``T`` when ``cast`` is typing's (imported from ``typing``, or an attribute of a
name only ``import typing`` binds); ``type["X"]`` is the class ``X`` as ``type[X]`` is. A pytest
fixture parameter is the fixture of that name nearest to the test (its class, its module, then each ``conftest.py``
up to the top), and its value is the fixture's declared return (``Iterator[X]`` for one that
yields) or what it returns or yields.

Evaluation is memoised and bounded (``_MAX_DEPTH`` nested evaluations, cycles answer unknown), and
the files are visited in path order, so the result is one function of the blobs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Any

from .pymodules import ModuleMap
from .pyscope import (
    _MAX_UNION,
    ACCESSOR,
    CALL,
    CLASSMETHOD,
    CLS,
    DECORATE,
    DEF,
    ENTER,
    EXCEPT,
    FIXTURE,
    FIXTURE_USE,
    FROM,
    GENERATOR,
    IMPORT,
    IMPORTS,
    INHERIT,
    IS_FIXTURE,
    ITER,
    NONE,
    OVERLOAD,
    PROPERTY,
    SELF,
    SELF_TYPE,
    TYPE,
    VALUE,
    Definition,
    Expr,
    FileFacts,
    Scope,
)

Value = tuple[Any, ...] | None
EXTERNAL: Expr = ("ext",)
NONE_VALUE: Expr = ("none",)
NOT_FOUND: Expr = ("missing",)  # a lookup in this tree's module or class found nothing
BUILTIN: Expr = ("builtin",)  # a name no scope binds
CYCLE: Expr = ("cycle",)  # a name whose own evaluation is under way (see Linker)
_MAX_DEPTH = 80
_FLOWING = ("module", "class")  # bodies run once, top to bottom: a use sees the binding before it
_IN_PROGRESS = object()

# A resolved reference: (path, line, column, role, bound definition or None, name, enclosing).
Reference = tuple[str, int, int, str, Definition | None, str, Definition]


def _agree(values: Iterable[Value]) -> Value:
    """One value from several (a name's bindings, a function's returns): ``None`` never
    disagrees, an unknown one makes the whole unknown, and distinct known ones are a union
    ``("any", member, ...)`` (in a fixed order), whose attributes are what its members agree on."""
    kept: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for value in values:
        if value is NONE_VALUE or value is CYCLE:
            continue
        if value is None or value is NOT_FOUND or value is BUILTIN:
            return None
        for member in value[1:] if value[0] == "any" else (value,):
            kept.setdefault(_key(member), member)
        if len(kept) > _MAX_UNION:
            return None
    if not kept:
        return NONE_VALUE
    if len(kept) == 1:
        return next(iter(kept.values()))
    return ("any", *(kept[key] for key in sorted(kept)))


def _key(value: Any) -> tuple[Any, ...]:
    """A sort key for a value that does not depend on memory addresses."""
    if isinstance(value, Definition):
        return ("d", value.path, value.start, value.column, value.qualname)
    if isinstance(value, tuple):
        return ("t", *(_key(part) for part in value))
    return ("s", str(value))


class Linker:
    """Resolve the pending references of ``files`` (every file's first pass)."""

    def __init__(self, files: list[FileFacts], modules: ModuleMap) -> None:
        self.modules = modules
        self.files = {facts.path: facts for facts in sorted(files, key=lambda facts: facts.path)}
        self.callable_names: set[str] = set()
        self.property_names: set[str] = set()
        self._fixtures: dict[int, dict[str, Definition]] = {}
        for facts in self.files.values():
            for definition in facts.definitions:
                if definition.kind != "module":
                    self.callable_names.add(definition.name)
                    if definition.flags & PROPERTY:
                        self.property_names.add(definition.name)
        # Memos; _IN_PROGRESS marks an evaluation under way. A name met again while its own value is
        # evaluated (``frame = frame.inner()``) is CYCLE: no information, which agreement skips, so
        # the rebinding takes the value the name's other bindings give; other cycles are unknown.
        self._names: dict[tuple[int, str, float | None], Any] = {}
        self._returns: dict[int, Any] = {}
        self._mro: dict[int, Any] = {}
        self._class_attrs: dict[tuple[int, str, bool, bool], Any] = {}
        self._depth = 0

    # -- values --------------------------------------------------------------------------------
    def value(self, expression: Expr, scope: Scope, line: float | None = None) -> Value:
        if self._depth > _MAX_DEPTH:
            return None
        self._depth += 1
        try:
            tag = expression[0]
            if tag == "n":
                return self.name_value(scope, expression[1], line)
            if tag == "a":
                attribute = expression[2]
                return self.each(self.value(expression[1], scope, line), lambda base: self.attribute(base, attribute))
            if tag == "c" or tag == "ca":
                callee = expression[1]
                if tag == "ca":  # attrs' Factory = _add_hash(_add_repr(Factory)): the argument
                    function = self.value(callee, scope, line)
                    if function is not None and function[0] == "def" and _returns_first(function[1]):
                        return self.value(expression[2], scope, line)
                if callee[0] == "a":  # a method call: a method returning its receiver returns this one
                    receiver = self.value(callee[1], scope, line)
                    method = self.each(receiver, lambda base: self.attribute(base, callee[2]))
                    if (receiver is not None and receiver[0] in ("def", "inst") and method is not None
                            and method[0] == "def" and self.returns_receiver(method[1])):
                        return ("inst", receiver[1])
                    return self.each(method, self.call_result)
                return self.each(self.value(callee, scope, line), self.call_result)
            if tag == "i":
                return self.each(self.value(expression[1], scope, line), _item)
            if tag == "lit":
                return ("cont", _agree(self.value(element, scope, line) for element in expression[1:]))
            if tag == "tlit":
                return ("tup", *(self.value(element, scope, line) for element in expression[1:]))
            if tag == "or":
                return _agree(self.value(operand, scope, line) for operand in expression[1:])
            if tag == "ix":
                position, count = expression[2], expression[3]
                return self.each(self.value(expression[1], scope, line), lambda base: _member(base, position, count))
            if tag == "el":
                return self.each(self.value(expression[1], scope, line), self.element)
            if tag == "bi":
                return self.builtin_call(expression, scope, line)
            if tag == "narrow":
                return self.narrow(expression, scope, line)
            if tag == "deque":
                if self.is_imported(expression[1], scope, "collections", "deque"):
                    return ("cont", self.each(self.value(expression[2], scope, line), self.element))
                return self.each(self.value(expression[1], scope, line), self.call_result)
            if tag == "cast":
                if self.is_imported(expression[1], scope, "typing", "cast"):
                    return self.type_value(expression[2], scope)
                return self.each(self.value(expression[1], scope, line), self.call_result)
            if tag == "super":
                return self.super_value(scope, expression, line)
            if tag == "none":
                return NONE_VALUE
            return None
        finally:
            self._depth -= 1

    def builtin_call(self, expression: Expr, scope: Scope, line: float | None) -> Value:
        """``next(it[, default])``: an element of ``it`` (or the default); ``iter(xs)``: an iterator
        of ``xs``' elements; ``enumerate(xs)``: pairs of a number and an element. Only when the
        name is the builtin (no scope binds it); else an ordinary call of what it is bound to."""
        name = expression[1]
        callee = self.name_value(scope, name, line)
        if callee is not BUILTIN:  # the name is bound: an ordinary call
            return self.each(callee, self.call_result)
        given = self.value(expression[2], scope, line)
        if name == "next":
            default = self.value(expression[3], scope, line) if len(expression) > 3 else NONE_VALUE
            return _agree((self.each(given, lambda value: self.special_result(value, "__next__")), default))
        if name == "iter":
            return self.each(given, lambda value: self.special_result(value, "__iter__"))
        if name == "enumerate":
            return ("cont", ("tup", EXTERNAL, self.each(given, self.element)))
        return ("cont", self.each(given, self.element))  # list(xs), sorted(xs), ...

    def narrow(self, expression: Expr, scope: Scope, line: float | None) -> Value:
        """A name inside ``if isinstance(name, C):``: an instance of ``C`` (of one of them for a
        tuple), or what it was when that is already an instance of a subclass of ``C``; only when
        ``isinstance`` is the builtin."""
        before = self.value(expression[1], scope, line)
        if self.name_value(scope, "isinstance", line) is not BUILTIN:
            return before
        declared = self.type_value(expression[2], scope)
        if (before is not None and before[0] == "inst" and declared is not None and declared[0] == "inst"
                and declared[1] in self.mro(before[1])[0]):
            return before
        return declared

    def special_result(self, value: Value, method: str) -> Value:
        """``next(value)`` (``method`` ``__next__``) or ``iter(value)`` (``__iter__``): an instance's
        own method's result, else an element of the container (an iterator of them for ``iter``)."""
        if value is not None and value[0] == "inst":
            found = self.class_attribute(value[1], method, True)
            if found is not None and found[0] == "def":
                return self.returns(found[1])
            if method == "__next__":
                return None
        elements = self.element(value)
        return ("cont", elements) if method == "__iter__" else elements

    @staticmethod
    def is_imported(callee: Expr, scope: Scope, module: str, attribute: str) -> bool:
        """Whether ``callee`` names ``module.attribute`` (``typing.cast``, ``collections.deque``):
        the attribute imported from the module, or the attribute of a name every binding of which
        imports the module."""
        wanted: Any
        if callee[0] == "n":
            name, wanted = callee[1], (module, attribute)
            kinds = (FROM,)
        elif callee[0] == "a" and callee[1][0] == "n" and callee[2] == attribute:
            name, wanted = callee[1][1], module
            kinds = (IMPORT,)
        else:
            return False
        target = _binding_scope(scope, name)
        bindings = target.bindings.get(name, ()) if target is not None else ()
        return bool(bindings) and all(binding[0] in kinds and binding[1] == wanted for binding in bindings)

    @staticmethod
    def each(value: Value, operation: Any) -> Value:
        """``operation`` of ``value``, or of each member of a union (what they agree on); a
        cycle stays one."""
        if value is CYCLE:
            return CYCLE
        if value is not None and value[0] == "any":
            return _agree(operation(member) for member in value[1:])
        return operation(value)  # type: ignore[no-any-return]

    def name_value(self, scope: Scope, name: str, line: float | None) -> Value:
        target = _binding_scope(scope, name)
        if target is None:
            root = scope
            while root.parent is not None:
                root = root.parent
            for star in reversed(root.stars):
                found = self.module_attribute(star, name, root.facts.path, stars_only=True)
                if found is not NOT_FOUND:
                    return found
            return BUILTIN
        flow = line if target is scope and scope.kind in _FLOWING else None
        return self.scope_name(target, name, flow)

    def scope_name(self, scope: Scope, name: str, flow: float | None) -> Value:
        """The value of ``name`` bound in ``scope`` (seen from ``flow``, a line of that body, or from
        anywhere after it when None)."""
        key = (id(scope), name, flow)
        cached = self._names.get(key)
        if cached is _IN_PROGRESS:
            return CYCLE
        if cached is not None or key in self._names:
            return cached
        self._names[key] = _IN_PROGRESS
        bindings = scope.bindings[name]
        if flow is not None:
            before = [binding for binding in bindings if binding[3] <= flow]
            bindings = before[-1:] if before else bindings
        if len(bindings) > 1:
            firm = [binding for binding in bindings if not binding[4]]
            bindings = firm or bindings
            defs = [binding for binding in bindings if binding[0] == DEF]
            primary = [b for b in defs if not b[1].flags & (OVERLOAD | ACCESSOR)]
            if len(primary) == 1 and len(defs) == len(bindings):  # stubs and accessors beside one definition
                bindings = primary
        values = [self.binding_value(binding, name) for binding in bindings]
        result = None if all(value is CYCLE for value in values) else _agree(values)
        self._names[key] = result
        return result

    def binding_value(self, binding: Expr, name: str) -> Value:
        kind, payload, scope = binding[0], binding[1], binding[2]
        if kind == DEF:
            return ("def", payload)
        if kind == IMPORT:
            return self.module_value(payload, scope.facts.path)
        if kind == FROM:
            module, attribute = payload
            return self.module_attribute(module, attribute, scope.facts.path)
        if kind == VALUE:
            line = binding[3]
            flow = line - 0.5 if scope.kind in _FLOWING else None
            return self.value(payload, scope, flow)
        if kind == TYPE:
            return self.type_value(payload, scope)
        if kind == SELF:
            return ("inst", payload.definition) if payload is not None else None
        if kind == CLS:
            return ("def", payload.definition) if payload is not None else None
        if kind == FIXTURE:
            fixture = self.find_fixture(payload, name)
            return self.fixture_value(fixture) if fixture is not None else None
        if kind == ENTER:
            return self.enter_value(self.value(payload, scope, binding[3] if scope.kind in _FLOWING else None))
        if kind == ITER:
            iterated = self.value(payload, scope, binding[3] if scope.kind in _FLOWING else None)
            return self.each(iterated, self.element)
        if kind == EXCEPT:
            return self.each(self.value(payload, scope), _caught)
        return None

    def type_value(self, declared: Expr, scope: Scope) -> Value:
        tag = declared[0]
        if tag == "t":
            named = self.value(declared[1], scope)
            if named is not None and named[0] == "def" and named[1].kind == "class":
                return ("inst", named[1])
            if named is EXTERNAL and _assigned_name(declared[1], scope):
                return None  # a TypeVar or an alias the tree assigns: what it stands for is unknown, not outside
            return EXTERNAL if named is EXTERNAL or named is BUILTIN else None
        if tag == "g":  # Registry[Processor]: an instance that remembers its one type argument
            base = self.type_value(declared[1], scope)
            argument = self.type_value(declared[2], scope)
            return ("inst", base[1], argument) if base is not None and base[0] == "inst" and argument else base
        if tag == "tc":
            named = self.value(declared[1], scope)
            return named if named is not None and named[0] == "def" else None
        if tag == "self":
            owner = _class_of(scope)
            return ("inst", owner) if owner is not None else None
        if tag == "u":
            return _agree(self.type_value(member, scope) for member in declared[1:])
        if tag == "e":
            return ("cont", self.type_value(declared[1], scope))
        if tag == "tu":
            return ("tup", *(self.type_value(member, scope) for member in declared[1:]))
        if tag == "m":
            return ("map", self.type_value(declared[1], scope), self.type_value(declared[2], scope))
        if tag == "none":
            return NONE_VALUE
        return None

    def element(self, iterated: Value) -> Value:
        """What iterating ``iterated`` gives: a container's element, a mapping's key, what an
        instance's ``__iter__`` declares."""
        if iterated is None:
            return None
        if iterated[0] == "cont":
            return iterated[1]  # type: ignore[no-any-return]
        if iterated[0] == "map":
            return iterated[1]  # type: ignore[no-any-return]
        if iterated[0] == "tup":
            return _agree(iterated[1:])
        if iterated[0] == "inst":
            method = self.class_attribute(iterated[1], "__iter__", True)
            if method is not None and method[0] == "def":
                made = self.returns(method[1])
                if made is not None and made[0] == "cont" and made[1] is None and len(iterated) == 3:
                    return iterated[2]  # type: ignore[no-any-return]  # Iterator[T] of a Registry[X]: an X
                return made[1] if made is not None and made[0] == "cont" else None  # type: ignore[no-any-return]
        return EXTERNAL if iterated is EXTERNAL else None

    def module_value(self, name: str, importer: str | None) -> Value:
        path = self.modules.find(name, importer) if importer is not None else _first(self.modules.files_named(name))
        if path is not None and path in self.files:
            return ("mod", name, path)
        if self.modules.is_namespace(name):
            return ("mod", name, None)
        return EXTERNAL

    def module_attribute(self, module: str, attribute: str, importer: str | None, *, stars_only: bool = False,
                         seen: frozenset[str] = frozenset()) -> Value:
        """``attribute`` of the module named ``module``: what its body binds, else its submodule,
        else what its star imports bring; NOT_FOUND when this tree's module has none of them."""
        found = self.module_value(module, importer)
        if found is EXTERNAL:
            return EXTERNAL if not stars_only else NOT_FOUND
        path = found[2] if found is not None else None
        if path is None:
            sub = f"{module}.{attribute}"
            known = self.modules.is_namespace(sub) or self.modules.files_named(sub)
            return self.module_value(sub, importer) if known else NOT_FOUND
        if path in seen:
            return NOT_FOUND
        facts = self.files[path]
        scope = facts.scope
        assert scope is not None
        if stars_only and not _exported(facts, attribute):
            return NOT_FOUND
        sub = f"{module}.{attribute}"
        submodule = bool(self.modules.files_named(sub))
        bindings = scope.bindings.get(attribute)
        # A package's submodule is its attribute once imported (``from . import util`` binds the
        # very submodule), unless the package's own body defines that name.
        if bindings and not (submodule and all(binding[0] != DEF for binding in bindings)):
            return self.scope_name(scope, attribute, None)
        if submodule:
            return self.module_value(sub, path)
        for star in reversed(scope.stars):
            value = self.module_attribute(star, attribute, path, stars_only=True, seen=seen | {path})
            if value is not NOT_FOUND:
                return value
        return NOT_FOUND if facts.status == "resolved" else None

    def attribute(self, base: Value, name: str) -> Value:
        if base is None or base is NOT_FOUND:
            return None
        tag = base[0]
        if tag == "mod":
            return self.module_attribute(base[1], name, base[2])
        if tag == "def":
            definition: Definition = base[1]
            return self.class_attribute(definition, name, False) if definition.kind == "class" else None
        if tag == "inst":
            return self.class_attribute(base[1], name, True)
        if tag == "prop":
            return self.attribute(self.returns(base[1]), name)
        if tag == "super":
            return self.class_attribute(base[1], name, True, skip_first=True)
        if tag in ("cont", "map"):
            return _container_method(base, name)
        if base is EXTERNAL or tag == "tup" or base is BUILTIN:
            return EXTERNAL
        return None

    def class_attribute(self, klass: Definition, name: str, instance: bool, *, skip_first: bool = False) -> Value:
        key = (id(klass), name, instance, skip_first)
        cached = self._class_attrs.get(key)
        if cached is _IN_PROGRESS:
            return None
        if cached is not None or key in self._class_attrs:
            return cached
        self._class_attrs[key] = _IN_PROGRESS
        result = self._class_attribute(klass, name, instance, skip_first)
        self._class_attrs[key] = result
        return result

    def _class_attribute(self, klass: Definition, name: str, instance: bool, skip_first: bool) -> Value:
        order, external = self.mro(klass)
        for owner in order[1:] if skip_first else order:
            scope = owner.scope
            assert scope is not None
            if name in scope.bindings:
                value = self.scope_name(scope, name, None)
                if value is not None and value[0] == "def" and value[1].flags & PROPERTY:
                    return ("prop", value[1])
                return value
            if instance and name in scope.instance_attrs:
                return _agree(self.binding_value(binding, name) for binding in scope.instance_attrs[name])
        return EXTERNAL if external else NOT_FOUND

    def mro(self, klass: Definition) -> tuple[list[Definition], bool]:
        """The class and its ancestors this tree defines (C3), and whether one base is from outside."""
        cached = self._mro.get(id(klass))
        if cached is _IN_PROGRESS:
            return [klass], True
        if cached is not None:
            return cached
        self._mro[id(klass)] = _IN_PROGRESS
        scope = klass.scope
        assert scope is not None and scope.parent is not None
        parents: list[list[Definition]] = []
        external = False
        for base in scope.bases:
            value = self.value(base, scope.parent, klass.line - 0.5 if scope.parent.kind in _FLOWING else None)
            if value is not None and value[0] == "def" and value[1].kind == "class":
                ancestors, outside = self.mro(value[1])
                parents.append(ancestors)
                external = external or outside
            elif not (value is BUILTIN and base == ("n", "object")):
                external = True
        result = ([klass, *_c3(parents)], external)
        self._mro[id(klass)] = result
        return result

    def call_result(self, callee: Value) -> Value:
        if callee is None or callee is NOT_FOUND:
            return None
        tag = callee[0]
        if tag == "def":
            definition: Definition = callee[1]
            return ("inst", definition) if definition.kind == "class" else self.returns(definition)
        if tag == "inst":
            method = self.class_attribute(callee[1], "__call__", True)
            return self.returns(method[1]) if method is not None and method[0] == "def" else None
        if tag == "prop":
            return self.call_result(self.returns(callee[1]))
        if tag == "bm":
            return callee[1]  # type: ignore[no-any-return]
        if callee is EXTERNAL or callee is BUILTIN:
            return EXTERNAL
        return None

    def returns(self, function: Definition) -> Value:
        """What calling ``function`` gives: its declared type, else what its returns agree on."""
        cached = self._returns.get(id(function))
        if cached is _IN_PROGRESS:
            return None
        if cached is not None or id(function) in self._returns:
            return cached
        self._returns[id(function)] = _IN_PROGRESS
        result: Value = None
        scope = function.scope
        if scope is not None and function.kind != "class":
            declared = function.returns
            if declared is not None:
                result = self.type_value(declared, scope.parent or scope)
            elif function.flags & GENERATOR:
                result = ("cont", _agree(self.value(value, scope) for value in scope.yields))
            else:
                result = _agree(self.value(value, scope) for value in scope.returns) if scope.returns else NONE_VALUE
        self._returns[id(function)] = result
        return result

    def returns_receiver(self, method: Definition) -> bool:
        """Whether ``method`` returns an instance of whatever class it is called on: declared
        ``Self``, or every return is its receiver (``self``) or a call of it (``cls(...)``)."""
        if method.kind != "method" or method.scope is None:
            return False
        if method.returns is not None:
            return method.returns == SELF_TYPE
        receivers = {name for name, bindings in method.scope.bindings.items()
                     if any(binding[0] in (SELF, CLS) for binding in bindings)}
        returned = [value for value in method.scope.returns if value != NONE]

        def is_receiver(value: Expr) -> bool:
            if _is_cls(method):  # cls(...)
                return value[0] in ("c", "ca") and value[1][0] == "n" and value[1][1] in receivers
            return value[0] == "n" and value[1] in receivers  # self

        return bool(returned) and all(is_receiver(value) for value in returned)

    def super_value(self, scope: Scope, expression: Expr, line: float | None) -> Value:
        if len(expression) > 1:
            named = self.value(expression[1], scope, line)
            if named is not None and named[0] == "def" and named[1].kind == "class":
                return ("super", named[1])
            return None
        owner = _class_of(scope)
        return ("super", owner) if owner is not None else None

    def enter_value(self, manager: Value) -> Value:
        """What ``with manager as x`` binds: ``__enter__``'s result when it says, else the manager."""
        if manager is None or manager[0] != "inst":
            return manager if manager is EXTERNAL else None
        method = self.class_attribute(manager[1], "__enter__", True)
        if method is not None and method[0] == "def":
            entered = self.returns(method[1])
            if entered is not None and entered is not NONE_VALUE:
                return entered
        return manager

    # -- pytest fixtures -----------------------------------------------------------------------
    def find_fixture(self, requester: Definition, name: str) -> Definition | None:
        """The fixture ``name`` that pytest gives ``requester``: its class's, its module's, then the
        nearest ``conftest.py``'s (a fixture requesting its own name gets the next one out)."""
        owners: list[Scope] = []
        parent = requester.parent
        if parent is not None and parent.kind == "class" and parent.scope is not None:
            owners.append(parent.scope)
        facts = self.files.get(requester.path)
        if facts is not None and facts.scope is not None:
            owners.append(facts.scope)
        directory = posixpath.dirname(requester.path)
        while True:
            conftest = posixpath.join(directory, "conftest.py") if directory else "conftest.py"
            found = self.files.get(conftest)
            if found is not None and found.scope is not None and conftest != requester.path:
                owners.append(found.scope)
            if not directory:
                break
            directory = posixpath.dirname(directory)
        for scope in owners:
            fixture = self._fixture_in(scope, name, requester)
            if fixture is not None:
                return fixture
        return None

    def _fixture_in(self, scope: Scope, name: str, requester: Definition) -> Definition | None:
        table = self._fixtures.get(id(scope))
        if table is None:
            table = {}
            for bound, bindings in scope.bindings.items():
                for binding in bindings:
                    if binding[0] == DEF and binding[1].flags & IS_FIXTURE:
                        table.setdefault(binding[1].fixture_name, binding[1])
                    elif binding[0] == FROM and scope.kind == "module":
                        value = self.binding_value(binding, bound)
                        if value is not None and value[0] == "def" and value[1].flags & IS_FIXTURE:
                            table.setdefault(bound, value[1])
            self._fixtures[id(scope)] = table
        fixture = table.get(name)
        return fixture if fixture is not requester else None

    def fixture_value(self, fixture: Definition) -> Value:
        scope = fixture.scope
        if scope is None:
            return None
        declared = fixture.returns
        if declared is not None:
            inner = declared[1] if declared[0] == "e" and fixture.flags & GENERATOR else declared
            return self.type_value(inner, scope.parent or scope)
        produced = scope.yields if fixture.flags & GENERATOR else scope.returns
        return _agree(self.value(value, scope) for value in produced) if produced else None

    # -- references ------------------------------------------------------------------------------
    def references(self) -> list[Reference]:
        """Every resolved reference of every file, in path order (unsorted within a file)."""
        found: list[Reference] = []
        for facts in self.files.values():
            for pending in facts.pending:
                found.extend(self._resolve(facts, pending))
            for definition in facts.definitions:
                if definition.kind == "method" and definition.parent is not None:
                    base = self.class_attribute(definition.parent, definition.name, False, skip_first=True)
                    if base is not None and base[0] in ("def", "prop") and base[1] is not definition:
                        found.append((facts.path, definition.line, definition.column, "override", base[1],
                                      definition.name, definition))
        return found

    def _resolve(self, facts: FileFacts, pending: Expr) -> list[Reference]:
        line, column, role, expression, scope, enclosing, name = pending
        path = facts.path
        site = (path, line, column)
        if role == IMPORTS:
            if expression[0] == "m":
                value = self.module_value(expression[1], path)
            else:
                value = self.module_attribute(expression[1], expression[2], path)
            imported = self._definition_of(value)
            return [(*site, "import", imported, name, enclosing)] if imported is not None else []
        if role == FIXTURE_USE:
            fixture = self.find_fixture(enclosing, name)
            return [(*site, "fixture", fixture, name, enclosing)] if fixture is not None else []
        flow = line if scope.kind in _FLOWING else None
        value = self.value(expression, scope, flow)
        if value is CYCLE:
            value = None
        attribute = expression[0] == "a"
        if value is not None and value is not NOT_FOUND:
            tag = value[0]
            if tag == "prop":
                return [(*site, "call", value[1], name, enclosing)]
            if tag == "def":
                target: Definition = value[1]
                if role != CALL:
                    word = {DECORATE: "decorate", INHERIT: "inherit"}.get(role, "reference")
                    return [(*site, word, target, name, enclosing)]
                if target.kind != "class":
                    return [(*site, "call", target, name, enclosing)]
                made: list[Reference] = [(*site, "instantiate", target, name, enclosing)]
                for special in ("__new__", "__init__"):
                    method = self.class_attribute(target, special, True)
                    if method is not None and method[0] == "def":
                        made.append((*site, "call", method[1], name, enclosing))
                return made
            if tag == "inst" and role == CALL:
                method = self.class_attribute(value[1], "__call__", True)
                if method is not None and method[0] == "def":
                    return [(*site, "call", method[1], name, enclosing)]
                return []
            if value is EXTERNAL or value is BUILTIN or tag in ("mod", "inst", "super", "none", "cont", "map", "bm",
                                                                   "tup"):
                return []
            if tag == "any":  # the union's members bind it differently: "may be one of N"
                return [(*site, "call", None, name, enclosing)] if role == CALL and name in self.callable_names else []
        if not attribute:  # a name call no binding settles (defined twice, or a parameter)
            return [(*site, "call", None, name, enclosing)] if role == CALL and name in self.callable_names else []
        if (role in (CALL, DECORATE) and name in self.callable_names) or name in self.property_names:
            return [(*site, "call", None, name, enclosing)]
        return []

    def _definition_of(self, value: Value) -> Definition | None:
        if value is None or value is NOT_FOUND:
            return None
        if value[0] == "def":
            return value[1]
        if value[0] == "mod" and value[2] is not None:
            return self.files[value[2]].definitions[0]
        return None


_ITEM_METHODS = frozenset({"get", "pop", "popleft", "setdefault", "__getitem__"})


def _container_method(container: tuple[Any, ...], name: str) -> Value:
    """A method of a container or mapping value, as ``("bm", what calling it gives)``."""
    if container[0] == "map":
        key, value = container[1], container[2]
        found = {"values": ("cont", value), "keys": ("cont", key), "items": ("cont", ("tup", key, value)),
                 "copy": container}.get(name)
        if found is None and name in _ITEM_METHODS:
            found = value
    else:
        found = container[1] if name in ("pop", "popleft", "__getitem__") else container if name == "copy" else None
    return ("bm", found) if found is not None or name in _ITEM_METHODS else EXTERNAL


def _item(container: Value) -> Value:
    """``container[...]``: a container's element, a mapping's value (an instance's: unknown)."""
    if container is None:
        return None
    if container[0] == "cont":
        return container[1]  # type: ignore[no-any-return]
    if container[0] == "map":
        return container[2]  # type: ignore[no-any-return]
    if container[0] == "tup":  # which position is not followed: what the members agree on
        return _agree(container[1:])
    return EXTERNAL if container is EXTERNAL else None


def _returns_first(function: Definition) -> bool:
    """Whether every ``return`` of an unannotated function (not a generator) is its first
    positional parameter, which its body never binds again."""
    scope = function.scope
    name = function.first_parameter
    if (function.kind != "function" or scope is None or not name or function.returns is not None
            or function.flags & GENERATOR or not scope.returns):
        return False
    if len(scope.bindings.get(name, ())) != 1 or name in scope.nonlocals or name in scope.globals:
        return False
    return all(value == ("n", name) for value in scope.returns)


def _caught(raised: Value) -> Value:
    """What ``except raised as e`` binds: an instance of the class (of each, for a tuple of them);
    a builtin exception is from outside."""
    if raised is None:
        return None
    if raised[0] == "def" and raised[1].kind == "class":
        return ("inst", raised[1])
    if raised[0] == "cont":  # except (A, B): the literal's members
        return Linker.each(raised[1], _caught)
    return EXTERNAL if raised is EXTERNAL or raised is BUILTIN else None


def _member(value: Value, position: int, count: int) -> Value:
    """Position ``position`` of ``value`` unpacked into ``count`` names: a tuple's member when the
    counts match, a container's element (a mapping's ``items()`` are (key, value) tuples), else
    unknown."""
    if value is None:
        return None
    if value[0] == "tup":
        return value[1 + position] if len(value) - 1 == count else None  # type: ignore[no-any-return]
    if value[0] == "cont":
        return value[1]  # type: ignore[no-any-return]
    return None  # an outside value's members may be this tree's (``zip(xs, ys)``): unknown


def _is_cls(method: Definition) -> bool:
    """Whether the method's receiver is its class (``cls(...)`` makes an instance of it)."""
    return bool(method.flags & CLASSMETHOD) or method.name == "__new__"


def _binding_scope(scope: Scope, name: str) -> Scope | None:
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


def _class_of(scope: Scope) -> Definition | None:
    """The class whose method ``scope`` is (or lies in)."""
    current: Scope | None = scope
    while current is not None:
        if current.kind == "class":
            return current.definition
        if current.owner is not None:
            return current.owner.definition
        current = current.parent
    return None


def _exported(facts: FileFacts, name: str) -> bool:
    """Whether ``from module import *`` brings ``name``: its ``__all__``, else its public names."""
    if facts.all_names is not None:
        return name in facts.all_names
    return not name.startswith("_")


def _first(paths: list[str]) -> str | None:
    return paths[0] if paths else None


def _c3(parents: list[list[Definition]]) -> list[Definition]:
    """C3 linearisation of the parents' MROs (left to right, each once, when C3 has no answer)."""
    sequences = [list(sequence) for sequence in parents if sequence] + [[p[0] for p in parents if p]]
    merged: list[Definition] = []
    while True:
        sequences = [sequence for sequence in sequences if sequence]
        if not sequences:
            return merged
        for sequence in sequences:
            head = sequence[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:  # inconsistent: keep the depth-first order
            for sequence in sequences:
                for item in sequence:
                    if item not in merged:
                        merged.append(item)
            return merged
        merged.append(head)
        for sequence in sequences:
            if sequence and sequence[0] is head:
                del sequence[0]


def _assigned_name(expression: Expr, scope: Scope) -> bool:
    """Whether an annotation's name is a variable the tree assigns (``_T = TypeVar("_T")``, an alias
    of an outside type) rather than a class or an import: its value comes from outside, but the
    type it stands for in an annotation is not known to be outside (a TypeVar stands for any)."""
    if expression[0] != "n":
        return False
    target = _binding_scope(scope, expression[1])
    return target is not None and all(binding[0] == VALUE for binding in target.bindings[expression[1]])
