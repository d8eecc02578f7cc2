"""JavaScript and TypeScript's resolver: the bound commit's JS/TS blobs in, the resolved layer's
rows out, in the columns and roles Python's resolver (``pyresolve``) writes.

Two passes: ``jsscope`` per file (tree-sitter's trees: definitions, function scopes, imports,
exports, pending references), then here across files: a name is bound through its scopes, an ES
import or a ``require`` of a relative path to the file it names (``./x`` → ``x.ts``, ``x.js``,
``x/index.ts``...), an export to what it exports (re-exports and ``export *`` followed, bounded),
``this.m()`` in a class to the method of that class or its bases, ``new C()`` to the class (and
its ``constructor``), a method of what a call returns (``make().m()``, ``const x = make(); x.m()``)
to the class the function declares it returns (``make(): C``). What is not certain is never
guessed: a call on a value of unknown type is kept unbound by its name when some definition has
that name, like Python's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .jsmanifest import is_manifest, package_specs
from .jsscope import MODULE_EXPORTS, BareResolver, FileFacts, JsDefinition, Scope, language_of, scan_file
from .resolved import ResolvedLayer, numbered_rows

MAX_HOPS = 20  # re-exports and bases followed at most this far (a cycle is "no information")


class _Linker:
    def __init__(self, scanned: list[FileFacts]) -> None:
        self.files = {facts.path: facts for facts in scanned}
        self.named: set[str] = {d.name for facts in scanned for d in facts.definitions if d.kind != "module"}
        self.evaluating: set[int] = set()  # the bindings whose value is being evaluated (cycles)

    def lookup(self, name: str, scope: Scope | None) -> tuple[Any, ...] | None:
        while scope is not None:
            bindings = scope.names.get(name)
            if bindings is not None:
                return bindings[0] if len(bindings) == 1 else None
            scope = scope.parent
        return None

    def value(self, binding: tuple[Any, ...] | None, hops: int = 0) -> tuple[Any, ...] | None:
        """A binding followed through imports and exports to a definition, a module or an object."""
        while binding is not None and hops < MAX_HOPS:
            hops += 1
            kind = binding[0]
            if kind == "export":
                binding = self.export(binding[1], binding[2], hops)
            elif kind == "n":  # an export's ("n", name, scope)
                binding = self.lookup(binding[1], binding[2])
            elif kind == "local":
                return None
            elif kind in ("new", "typed", "called"):
                return self.instance(binding)
            elif kind == "alias":  # a const holding what a name or `ns.name` names
                return self.aliased(binding)
            elif kind == "require":  # what module.exports holds, else the module's exports
                facts = self.files.get(binding[1])
                if facts is None:
                    return None
                if MODULE_EXPORTS not in facts.exports:
                    return ("module", binding[1])
                binding = facts.exports[MODULE_EXPORTS]
            else:
                return binding
        return None

    def instance(self, binding: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """What a ``new``/``typed`` binding holds (an instance of the class it names) or a
        ``called`` one (of the class its function declares it returns). A binding met again while
        it is being evaluated is a cycle (``const Foo: Foo = ...``, a value and a type of one
        name): no information, as for the other cycles."""
        key = id(binding)
        if key in self.evaluating:
            return None
        self.evaluating.add(key)
        try:
            if binding[0] == "called":
                return self.returned(self.bound(binding[1], binding[2]))
            cls = self.bound(binding[1], binding[2])
            return ("instance", cls) if cls is not None and cls.kind == "class" else None
        finally:
            self.evaluating.discard(key)

    def aliased(self, binding: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The definition an ``("alias", expression, scope)`` binding's expression names, as a
        ``def`` value; met again while being evaluated (``const a = b; const b = a``), none."""
        key = id(binding)
        if key in self.evaluating:
            return None
        self.evaluating.add(key)
        try:
            found = self.bound(binding[1], binding[2])
            return ("def", found) if found is not None and found.kind != "module" else None
        finally:
            self.evaluating.discard(key)

    def export(self, path: str, name: str, hops: int) -> tuple[Any, ...] | None:
        facts = self.files.get(path)
        if facts is None or hops >= MAX_HOPS:
            return None
        found = facts.exports.get(name)
        if found is None and name == "default":
            found = facts.exports.get(MODULE_EXPORTS)
        if found is not None:
            return found
        if name != "default":
            for star in facts.star_exports:
                through = self.value(("export", star, name), hops + 1)
                if through is not None:
                    return through
            default = self.value(facts.exports.get("default", facts.exports.get(MODULE_EXPORTS)), hops + 1)
            if default is not None and default[0] == "object" and name in default[1]:
                return ("n", default[1][name], default[2])
        return None

    def member(self, owner: tuple[Any, ...] | None, name: str) -> JsDefinition | None:
        if owner is None:
            return None
        if owner[0] in ("def", "instance") and owner[1].kind == "class":
            return self.class_member(owner[1], name)
        if owner[0] == "module":
            return self.target(self.value(("export", owner[1], name)))
        if owner[0] == "object" and name in owner[1]:
            return self.target(self.value(("n", owner[1][name], owner[2])))
        return None

    def class_member(self, cls: JsDefinition | None, name: str) -> JsDefinition | None:
        hops = 0
        while cls is not None and hops < MAX_HOPS:
            hops += 1
            found = cls.members.get(name)
            if found:
                return found[0]
            cls = self.base(cls)
        return None

    def field(self, cls: JsDefinition | None, name: str) -> tuple[Any, ...] | None:
        """A class's (or its bases') field's value when every binding of it names one class."""
        hops = 0
        while cls is not None and hops < MAX_HOPS:
            hops += 1
            bindings = cls.fields.get(name)
            if bindings:
                values = [self.value(binding) for binding in bindings]
                classes = {id(value[1]) for value in values if value is not None}
                return values[0] if len(classes) == 1 and None not in values else None
            cls = self.base(cls)
        return None

    def returned(self, function: JsDefinition | None) -> tuple[Any, ...] | None:
        """An instance of the class ``function`` declares it returns (``(): Cart``), or None."""
        if function is None or function.kind not in ("function", "method") or function.returns is None:
            return None
        cls = self.bound(function.returns, function.scope)
        return ("instance", cls) if cls is not None and cls.kind == "class" else None

    def base(self, cls: JsDefinition) -> JsDefinition | None:
        if cls.base is None:
            return None
        target = self.bound(cls.base, cls.scope)
        return target if target is not None and target.kind == "class" else None

    def target(self, value: tuple[Any, ...] | None) -> JsDefinition | None:
        if value is None:
            return None
        if value[0] == "def":
            return value[1]  # type: ignore[no-any-return]
        if value[0] == "module":
            facts = self.files.get(value[1])
            return facts.module_def if facts is not None else None
        return None

    def bound(self, expression: tuple[Any, ...], scope: Scope | None) -> JsDefinition | None:
        kind = expression[0]
        if kind == "n":
            return self.target(self.value(self.lookup(expression[1], scope)))
        if kind == "attr":
            return self.member(self.value(self.lookup(expression[1], scope)), expression[2])
        if kind == "this":
            return self.class_member(expression[2], expression[1])
        if kind == "super":
            return self.class_member(self.base(expression[2]), expression[1])
        if kind == "thisattr":
            return self.member(self.field(expression[3], expression[1]), expression[2])
        if kind == "ret":
            return self.member(self.returned(self.bound(expression[1], scope)), expression[2])
        if kind in ("module", "export", "require"):  # an import's own binding
            value = self.value(expression)
            if value is None or value[0] == "object":  # of an object, or nothing certain: the file
                return self.target(("module", expression[1]))
            return self.target(value)
        return None

    def references(self) -> Iterable[tuple[str, int, int, str, JsDefinition | None, str, JsDefinition]]:
        for path in sorted(self.files):
            for line, column, role, expression, scope, enclosing, name in self.files[path].pending:
                target = self.bound(expression, scope)
                if target is None:
                    # kept by name only where a definition has it, and only for what runs it
                    if role in ("call", "instantiate") and name in self.named and expression[0] != "n":
                        yield path, line, column, role, None, name, enclosing
                    continue
                if role == "call" and target.kind == "class":
                    role = "instantiate"
                if role in ("call", "instantiate", "reference") and target.kind == "module":
                    continue  # a module called or passed: not a use this layer names
                yield path, line, column, role, target, name, enclosing
                if role == "instantiate" and target.kind == "class":
                    constructor = self.class_member(target, "constructor")
                    if constructor is not None:
                        yield path, line, column, "call", constructor, name, enclosing


def resolve_javascript(blobs: Iterable[tuple[str, bytes | int]], bare: BareResolver | None = None,
                       reads: bool = False) -> ResolvedLayer:
    """The resolved layer of these ``(path, content)`` JS/TS files, in any order (a content too
    large to parse is given as its line count); ``package.json`` files among them are manifests
    (``jsmanifest``), read for the specifiers they bind, not resolved files. ``bare`` resolves a
    package specifier to one of these files (the fleet's members' packages); without it a package
    no manifest here binds is external. ``reads`` (the fleet's) also records a name read as an
    object (``statuses[code]``) as a reference."""
    contents = dict(blobs)
    manifests = {path: contents.pop(path) for path in sorted(contents) if is_manifest(path)}
    paths = sorted(contents)
    known = frozenset(paths)
    packages = package_specs(manifests, known)
    scanned = [scan_file(path, contents.pop(path), known, bare, reads, packages) for path in paths]
    linker = _Linker(scanned)
    every = [definition for facts in scanned for definition in facts.definitions]
    definitions, ordered = numbered_rows(paths, every, linker.references, lambda _: 0)
    files = [(facts.path, language_of(facts.path), facts.module_def.qualname if facts.module_def else "",
              facts.status) for facts in scanned]
    return ResolvedLayer(files, definitions, ordered)
