"""One JavaScript/TypeScript file's facts for the resolver: its definitions, scopes, imports,
exports and the references still to bind (``jsresolve`` binds them across files).

Parsed by tree-sitter (pinned grammars from PyPI: a parser in-process, offline, no Node): the
bytes are parsed, never run, and nothing outside the blobs is read. Scopes are function scopes
(every function, arrow and method; a block's ``let`` counts for its function) seen in their final
state, as JavaScript hoists declarations; a name declared twice in one scope, or declared by a
parameter, a destructuring or a non-function value, is not guessed at. The tree is walked with an
explicit stack (no recursion limit), and a tree of more than ``MAX_SYNTAX_NODES`` nodes is not walked
(``too_large``), so the work per file is bounded by its bytes and its node count.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Mapping
from typing import Any

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from .jsmanifest import DIRECTORY
from .pyscope import MAX_RESOLVED_BYTES
from .tsrepair import repaired

JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts")
# Declaration files carry types, no bodies: nothing runs there.
DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")
# How an import's path without a suffix is looked for, in this order (TypeScript's first: a
# `./x.js` written in TypeScript names `x.ts`).
RESOLVE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
MAX_SYNTAX_NODES = 1_000_000
# What ``require()`` of a CommonJS file returns (``module.exports = X``), apart from an ES
# module's ``default``: ``import x from './cjs'`` falls back to it, ``require('./esm')`` does not.
MODULE_EXPORTS = "module.exports"
FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                       "function", "generator_function", "arrow_function", "method_definition"})
FUNCTION_VALUES = frozenset({"function_expression", "function", "generator_function", "arrow_function"})
CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
FIELDS = frozenset({"field_definition", "public_field_definition"})
# Where a bare name is a use of what it names (a callback, a value returned or stored).
REFERENCE_PARENTS = frozenset({"arguments", "return_statement", "array", "pair", "assignment_expression",
                               "variable_declarator", "export_statement",
                               # operands: `opts.isFile || defaultIsFile`, `c ? f : g`, `x instanceof C`
                               "binary_expression", "ternary_expression", "spread_element",
                               "parenthesized_expression"})
# Where else a name is read when every read is asked for (the fleet's cross-repository uses:
# ``statuses[code]``, ``statuses.codes``, a property read of another package's function).
READ_PARENTS = frozenset({"member_expression", "subscript_expression"})


def is_js_path(path: str) -> bool:
    return path.endswith(JS_SUFFIXES) and not path.endswith(DECLARATION_SUFFIXES)


def language_of(path: str) -> str:
    return "typescript" if path.endswith((".ts", ".tsx", ".mts", ".cts")) else "javascript"


@functools.cache
def _parser(grammar: str) -> tree_sitter.Parser:
    if grammar == "tsx":
        language = tree_sitter.Language(tree_sitter_typescript.language_tsx())
    elif grammar == "typescript":
        language = tree_sitter.Language(tree_sitter_typescript.language_typescript())
    else:
        language = tree_sitter.Language(tree_sitter_javascript.language())
    return tree_sitter.Parser(language)


def _grammar(path: str) -> str:
    if path.endswith(".tsx"):
        return "tsx"
    return "typescript" if path.endswith((".ts", ".mts", ".cts")) else "javascript"


def module_name(path: str) -> str:
    stem = path
    for suffix in JS_SUFFIXES:
        if path.endswith(suffix):
            stem = path[: -len(suffix)]
            break
    return stem.replace("/", ".")


class JsDefinition:
    """A module, class, function or method with its range, its parent and (a class) its members
    and base."""

    __slots__ = ("path", "kind", "name", "qualname", "start", "line", "end", "column", "parent", "number",
                 "members", "base", "scope", "fields", "returns")

    def __init__(self, path: str, kind: str, name: str, qualname: str, start: int, line: int, end: int,
                 column: int, parent: JsDefinition | None) -> None:
        self.path, self.kind, self.name, self.qualname = path, kind, name, qualname
        self.start, self.line, self.end, self.column, self.parent = start, line, end, column, parent
        self.number = 0
        self.members: dict[str, list[JsDefinition]] = {}
        self.base: tuple[Any, ...] | None = None  # the `extends` expression, read in ``scope``
        self.scope: Scope | None = None
        # A class's instance fields whose type is written or constructed (``store: Store``,
        # ``constructor(private store: Store)``, ``this.store = new Store()``): their bindings.
        self.fields: dict[str, list[tuple[Any, ...]]] = {}
        # A function's or method's declared return type (``(): Cart``), read in ``scope``.
        self.returns: tuple[Any, ...] | None = None


class Scope:
    """A function scope's names (each a list of bindings: more than one is not guessed at)."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: Scope | None) -> None:
        self.names: dict[str, list[tuple[Any, ...]]] = {}
        self.parent = parent

    def bind(self, name: str, binding: tuple[Any, ...]) -> None:
        self.names.setdefault(name, []).append(binding)


# A binding: ("def", JsDefinition) | ("module", path) | ("require", path) | ("export", path, name) | ("object", {name:
# expression}, scope) | ("new", class expression, scope) / ("typed", type expression, scope) (an
# instance of that class) | ("local",) (a value of unknown type). An expression: ("n", name) |
# ("attr", object name, name) | ("this", name, class) | ("super", name, class) | ("thisattr",
# field, name, class) (``this.field.name``) | ("ret", callee expression, name) (``make().name``) |
# ("u", name) (on anything else: bound by name only).
Pending = tuple[int, int, str, tuple[Any, ...], Scope, JsDefinition, str]
# How a bare specifier (``koa-compose``, ``@scope/pkg/sub``) is resolved, when something outside
# one commit can (the fleet: another member's package): (importing path, specifier, condition
# ``import`` or ``require``) -> the resolved path, or None (external). A member alone has none.
BareResolver = Callable[[str, str, str], str | None]


class FileFacts:
    """What one file defines, imports, exports and references."""

    def __init__(self, path: str, status: str) -> None:
        self.path = path
        self.status = status
        self.module_def: JsDefinition | None = None
        self.definitions: list[JsDefinition] = []
        self.exports: dict[str, tuple[Any, ...]] = {}
        self.star_exports: list[str] = []
        self.pending: list[Pending] = []
        self.scope = Scope(None)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _string_value(node: Any) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    fragments = [c for c in node.named_children if c.type == "string_fragment"]
    if len(fragments) != 1 or len(node.named_children) != 1:
        return "" if not node.named_children and node.type == "string" else None
    return _text(fragments[0])


def resolve_spec(importer: str, spec: str, paths: frozenset[str], bare: BareResolver | None = None,
                 condition: str = "import") -> str | None:
    """The resolved file a relative import names (``./x``, ``../y/index``), or None (a package,
    or nothing of the commit's resolved files); a bare specifier is ``bare``'s to resolve (a
    ``condition`` of ``import`` or ``require``), else None."""
    if not spec.startswith(("./", "../")) and spec not in (".", ".."):
        return bare(importer, spec, condition) if bare is not None and spec and not spec.startswith("/") else None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    if joined.startswith("../") or bare is not None and joined.split("/")[0] != importer.split("/")[0]:
        return None  # outside the commit (with ``bare``, the fleet's: outside the importer's repository)
    candidates = [joined]
    for suffix in (".js", ".jsx", ".mjs", ".cjs"):
        if joined.endswith(suffix):
            stem = joined[: -len(suffix)]
            candidates += [stem + s for s in RESOLVE_SUFFIXES]
    candidates += [joined + s for s in RESOLVE_SUFFIXES]
    # the top directory (`require('../')` from `test/`) is `.`, whose index is `index.js`, not `./index.js`
    candidates += [f"{joined}/index{s}" if joined != "." else f"index{s}" for s in RESOLVE_SUFFIXES]
    return next((c for c in candidates if c in paths), None)


def _require_spec(node: Any) -> str | None:
    """``require('x')``'s string, else None."""
    if node is None or node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or function.type != "identifier" or _text(function) != "require" or arguments is None:
        return None
    named = arguments.named_children
    return _string_value(named[0]) if len(named) == 1 else None


def _pattern_names(node: Any) -> list[Any]:
    """The identifiers a parameter or destructuring pattern declares (not its defaults or types)."""
    found, stack = [], [node]
    while stack:
        here = stack.pop()
        kind = here.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            found.append(here)
        elif kind in ("required_parameter", "optional_parameter"):
            pattern = here.child_by_field_name("pattern")
            if pattern is not None:
                stack.append(pattern)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            left = here.child_by_field_name("left")
            if left is not None:
                stack.append(left)
        elif kind == "pair_pattern":
            value = here.child_by_field_name("value")
            if value is not None:
                stack.append(value)
        elif kind in ("formal_parameters", "object_pattern", "array_pattern", "rest_pattern"):
            stack.extend(reversed(here.named_children))
    return found


class _Scanner:
    """One walk of a file's tree: definitions and scopes first seen, references pending."""

    def __init__(self, facts: FileFacts, paths: frozenset[str], bare: BareResolver | None, reads: bool,
                 packages: Mapping[str, str]) -> None:
        self.facts = facts
        self.paths = paths
        self.bare = bare
        self.reads = reads
        self.packages = packages  # a bare specifier the commit's own manifests bind (``jsmanifest``)

    def define(self, node: Any, kind: str, name: str, parent: JsDefinition, line_node: Any | None = None,
               start_node: Any | None = None) -> JsDefinition:
        line = (line_node or node).start_point.row + 1
        start = start_node.start_point.row + 1 if start_node is not None else line
        definition = JsDefinition(self.facts.path, kind, name, f"{parent.qualname}.{name}", start, line,
                                  node.end_point.row + 1, (line_node or node).start_point.column + 1, parent)
        self.facts.definitions.append(definition)
        return definition

    def spec(self, node: Any, condition: str = "import") -> str | None:
        value = _string_value(node)
        if value is None:
            return None
        found = resolve_spec(self.facts.path, value, self.paths, self.bare, condition)
        if value.startswith(".") and (found is None or found.rpartition("/")[2].startswith("index.")):
            # a directory: its package.json's main before its index (Node's order)
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.facts.path), value))
            found = self.packages.get(DIRECTORY + joined) or found
        return found or self.packages.get(value)

    def refer(self, node: Any, role: str, expression: tuple[Any, ...], scope: Scope, enclosing: JsDefinition,
              name: str) -> None:
        self.facts.pending.append((node.start_point.row + 1, node.start_point.column + 1, role, expression, scope,
                                   enclosing, name))

    def walk(self, root: Any, module: JsDefinition) -> None:
        facts = self.facts
        # (node, scope, enclosing definition, class whose `this` it is)
        stack: list[tuple[Any, Scope, JsDefinition, JsDefinition | None]] = [(root, facts.scope, module, None)]
        while stack:
            node, scope, enclosing, this_class = stack.pop()
            kind = node.type
            children_scope, children_enclosing, children_class = scope, enclosing, this_class
            if kind in FUNCTIONS:
                children_scope = Scope(scope)
                named: JsDefinition | None = None
                if kind in ("function_declaration", "generator_function_declaration"):
                    name_node = node.child_by_field_name("name")
                    if name_node is not None:
                        statement = _statement(node)
                        named = self.define(node, "function", _text(name_node), enclosing, statement,
                                            _first_signature(statement, _text(name_node)))
                        scope.bind(named.name, ("def", named))
                elif kind == "method_definition":
                    name_node = node.child_by_field_name("name")
                    if this_class is not None and enclosing is this_class and name_node is not None:
                        named = self.define(node, "method", _text(name_node), enclosing,
                                            _first_signature(node, _text(name_node)))
                        enclosing.members.setdefault(named.name, []).append(named)
                    elif node.parent is not None and node.parent.type == "object" and name_node is not None \
                            and name_node.type in ("property_identifier", "string"):
                        named = self.define(node, "function", _key(name_node), enclosing)  # { m() {...} }
                elif kind in FUNCTION_VALUES:
                    named = self._value_definition(node, scope, enclosing, this_class)
                if named is not None:
                    named.scope = children_scope
                    named.returns = _type_expression(node.child_by_field_name("return_type"))
                    children_enclosing = named
                parameters = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
                if parameters is not None:
                    constructor_of = this_class if named is not None and named.kind == "method" and \
                        named.name == "constructor" else None
                    self._parameters(parameters, children_scope, scope, constructor_of)
                if kind != "arrow_function":  # an arrow keeps its `this`; a method its class's
                    children_class = this_class if named is not None and named.kind == "method" else None
            elif kind in CLASSES:
                name_node = node.child_by_field_name("name")
                name = _text(name_node) if name_node is not None else None
                if name is None and node.parent is not None and node.parent.type == "variable_declarator":
                    name = _text(node.parent.child_by_field_name("name"))
                if name:
                    line_node = node.parent if kind == "class" else _statement(node)
                    cls = self.define(node, "class", name, enclosing, line_node)
                    cls.scope = scope
                    scope.bind(name, ("def", cls))
                    for child in node.named_children:
                        if child.type == "class_heritage":
                            self._heritage(child, cls, scope)
                    children_enclosing = children_class = cls
                else:
                    children_class = None
            elif kind in FIELDS:
                value = node.child_by_field_name("value")
                name_node = node.child_by_field_name("property") or node.child_by_field_name("name")
                if (value is not None and value.type in FUNCTION_VALUES and this_class is enclosing
                        and this_class is not None and name_node is not None):
                    field = self.define(node, "method", _text(name_node), enclosing)
                    this_class.members.setdefault(field.name, []).append(field)
                    field.scope = scope
                    # `static create = (...): ZodString => ...` declares what it returns, as a method does
                    field.returns = _type_expression(value.child_by_field_name("return_type"))
                    children_enclosing = field
                elif this_class is enclosing and this_class is not None and name_node is not None:
                    typed = _instance_binding(value, node.child_by_field_name("type"), scope)
                    if typed is not None:
                        this_class.fields.setdefault(_text(name_node), []).append(typed)
            elif kind == "variable_declarator":
                self._declarator(node, scope, enclosing)
            elif kind == "import_statement":
                self._import(node, scope, enclosing)
                continue
            elif kind == "export_statement":
                self._export(node, scope, enclosing)
            elif kind == "internal_module":
                self._namespace(node, scope)
            elif kind == "catch_clause":
                parameter = node.child_by_field_name("parameter")
                if parameter is not None:
                    for identifier in _pattern_names(parameter):
                        scope.bind(_text(identifier), ("local",))
            elif kind == "assignment_expression":
                self._commonjs_export(node, scope)
                self._this_field(node, scope, this_class)
            elif kind == "call_expression":
                self._call(node, scope, enclosing, this_class)
            elif kind == "new_expression":
                constructor = node.child_by_field_name("constructor")
                expression = _expression(constructor, this_class)
                if expression is not None:
                    self.refer(_name_node(constructor), "instantiate", expression, scope, enclosing,
                               expression[-2] if expression[0] in ("this", "super") else expression[-1])
            elif kind == "decorator":
                target = node.named_children[0] if node.named_children else None
                if target is not None and target.type == "call_expression":
                    target = target.child_by_field_name("function")
                if target is not None and target.type == "identifier":
                    self.refer(target, "decorate", ("n", _text(target)), scope, enclosing, _text(target))
            elif kind in ("identifier", "shorthand_property_identifier") and node.parent is not None:
                parent = node.parent
                if kind == "shorthand_property_identifier" or (
                        parent.type in REFERENCE_PARENTS and _is_value_child(parent, node)) or (
                        self.reads and parent.type in READ_PARENTS and parent.child_by_field_name("object") == node):
                    self.refer(node, "reference", ("n", _text(node)), scope, enclosing, _text(node))
            for child in reversed(node.children):
                if child.is_named:
                    stack.append((child, children_scope, children_enclosing, children_class))

    def _value_definition(self, node: Any, scope: Scope, enclosing: JsDefinition, this_class: JsDefinition | None
                          ) -> JsDefinition | None:
        """A function value held by a name: ``const f = () => ...`` (or a named function
        expression); a class field's is the field's (``FIELDS``)."""
        parent = node.parent
        if parent is not None and parent.type == "variable_declarator" and parent.child_by_field_name("value") == node:
            name_node = parent.child_by_field_name("name")
            if name_node is not None and name_node.type == "identifier":
                named = self.define(node, "function", _text(name_node), enclosing, parent)
                scope.bind(named.name, ("def", named))
                return named
        own = node.child_by_field_name("name")  # a named function expression: its own name first
        if own is not None and node.type not in ("function_expression", "function", "generator_function"):
            own = None
        if scope is self.facts.scope and parent is not None and parent.type == "assignment_expression" and \
                parent.child_by_field_name("right") == node and \
                _text(parent.child_by_field_name("left")) == "module.exports":
            # a module's whole export (qs's `module.exports = function (str, opts)`): a definition,
            # anonymous ones named by the property they are assigned to, and what `require` gives
            named = self.define(node, "function", _text(own), enclosing) if own is not None else \
                self.define(node, "function", "exports", enclosing, parent)
            self.facts.exports[MODULE_EXPORTS] = ("def", named)
            return named
        if own is not None:
            return self.define(node, "function", _text(own), enclosing)
        if parent is not None and parent.type == "pair" and parent.child_by_field_name("value") == node:
            key = parent.child_by_field_name("key")  # { name: () => ... }: a property, no scope name
            if key is not None and key.type in ("property_identifier", "string"):
                return self.define(node, "function", _key(key), enclosing, parent)
        if parent is not None and parent.type == "assignment_expression" and \
                parent.child_by_field_name("right") == node:
            # x.f = function ... / f = () => ...: named by what it is assigned to (no scope name)
            left = parent.child_by_field_name("left")
            name_node = left.child_by_field_name("property") if left is not None and \
                left.type == "member_expression" and _text(left) != "module.exports" else left
            if name_node is not None and name_node.type in ("property_identifier", "identifier"):
                return self.define(node, "function", _text(name_node), enclosing, parent)
        return None

    def _heritage(self, heritage: Any, cls: JsDefinition, scope: Scope) -> None:
        for child in heritage.named_children:
            value = child.named_children[0] if child.type == "extends_clause" and child.named_children else child
            if child.type in ("implements_clause",):
                continue
            expression = _expression(value, None)
            if expression is not None and expression[0] in ("n", "attr"):
                cls.base = expression
                self.refer(_name_node(value), "inherit", expression, scope, cls, expression[-1])
            return

    def _declarator(self, node: Any, scope: Scope, enclosing: JsDefinition) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None:
            return
        spec = _require_spec(value)
        argument = value.child_by_field_name("arguments").named_children[0] if spec is not None else None
        target = self.spec(argument, "require") if argument is not None else None
        if name.type == "identifier":
            if value is not None and (value.type in FUNCTION_VALUES or value.type == "class"):
                return  # bound where the value is walked
            typed = _instance_binding(value, node.child_by_field_name("type"), scope)
            if typed is not None:
                scope.bind(_text(name), typed)
                return
            if spec is not None:
                if target is None:
                    scope.bind(_text(name), ("local",))
                else:
                    scope.bind(_text(name), ("require", target))
                    self.refer(name, "import", ("require", target), scope, enclosing, _text(name))
                return
            held = _expression(value, None) if _is_const(node) else None
            if held is not None and held[0] in ("n", "attr"):
                # `const isObject = util.isObject`: a const holds what the name it is given names
                scope.bind(_text(name), ("alias", held, scope))
                return
            scope.bind(_text(name), ("local",))
            return
        if name.type == "object_pattern" and spec is not None and target is not None:
            for part in name.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    key = local = part
                elif part.type == "pair_pattern" and (part.child_by_field_name("value") or part).type == "identifier":
                    key, local = part.child_by_field_name("key"), part.child_by_field_name("value")
                else:
                    for identifier in _pattern_names(part):
                        scope.bind(_text(identifier), ("local",))
                    continue
                scope.bind(_text(local), ("export", target, _text(key)))
                self.refer(local, "import", ("export", target, _text(key)), scope, enclosing, _text(local))
            return
        for identifier in _pattern_names(name):
            scope.bind(_text(identifier), ("local",))

    def _parameters(self, parameters: Any, scope: Scope, outer: Scope, constructor_of: JsDefinition | None
                    ) -> None:
        """A function's parameters shadow outer names; one annotated with a type (``s: Store``)
        is an instance of it, and a constructor's parameter property (``private s: Store``) is
        also its class's field."""
        for parameter in parameters.named_children if parameters.type == "formal_parameters" else [parameters]:
            pattern = parameter.child_by_field_name("pattern")
            if parameter.type in ("required_parameter", "optional_parameter") and pattern is not None \
                    and pattern.type == "identifier":
                typed = _instance_binding(None, parameter.child_by_field_name("type"), outer)
                scope.bind(_text(pattern), typed or ("local",))
                if typed is not None and constructor_of is not None and any(
                        c.type in ("accessibility_modifier", "readonly") for c in parameter.children):
                    constructor_of.fields.setdefault(_text(pattern), []).append(typed)
                continue
            for identifier in _pattern_names(parameter):
                scope.bind(_text(identifier), ("local",))

    def _this_field(self, node: Any, scope: Scope, this_class: JsDefinition | None) -> None:
        """``this.field = new C(...)`` in a class's code types the field (any other assignment
        to it makes it unknown)."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if this_class is None or left is None or left.type != "member_expression":
            return
        obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
        if obj is None or obj.type != "this" or prop is None:
            return
        typed = _instance_binding(right, None, scope)
        this_class.fields.setdefault(_text(prop), []).append(typed or ("local",))

    def _import(self, node: Any, scope: Scope, enclosing: JsDefinition) -> None:
        target = self.spec(node.child_by_field_name("source"))
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":  # the default export
                    self._imported(part, ("export", target, "default") if target else None, scope, enclosing)
                elif part.type == "namespace_import":
                    local = next((c for c in part.named_children if c.type == "identifier"), None)
                    if local is not None:
                        self._imported(local, ("module", target) if target else None, scope, enclosing)
                elif part.type == "named_imports":
                    for specifier in part.named_children:
                        if specifier.type != "import_specifier":
                            continue
                        imported = specifier.child_by_field_name("name")
                        local = specifier.child_by_field_name("alias") or imported
                        if imported is not None and local is not None:
                            self._imported(local, ("export", target, _text(imported)) if target else None,
                                           scope, enclosing)

    def _imported(self, local: Any, binding: tuple[Any, ...] | None, scope: Scope, enclosing: JsDefinition) -> None:
        if binding is None:  # a package's: not the repository's
            scope.bind(_text(local), ("local",))
            return
        scope.bind(_text(local), binding)
        self.refer(local, "import", binding, scope, enclosing, _text(local))

    def _namespace(self, node: Any, scope: Scope) -> None:
        """``namespace util { export function f() {} }``: ``util`` is an object whose attributes
        are the declarations its body exports (bound, as the body's are, in the enclosing scope)."""
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or name.type != "identifier" or body is None or _merged(node, _text(name)):
            return
        members: dict[str, str] = {}
        for statement in body.named_children:
            declaration = statement.child_by_field_name("declaration") if statement.type == "export_statement" else None
            if declaration is None:
                continue
            if declaration.type in ("lexical_declaration", "variable_declaration"):
                named = [d.child_by_field_name("name") for d in declaration.named_children
                         if d.type == "variable_declarator"]
            else:
                named = [declaration.child_by_field_name("name")]
            for member in named:
                if member is not None and member.type in ("identifier", "type_identifier"):
                    members[_text(member)] = _text(member)
        scope.bind(_text(name), ("object", members, scope))

    def _export(self, node: Any, scope: Scope, enclosing: JsDefinition) -> None:
        facts = self.facts
        source = node.child_by_field_name("source")
        target = self.spec(source) if source is not None else None
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(c.type == "default" for c in node.children)
        if declaration is not None:
            if declaration.type in ("lexical_declaration", "variable_declaration"):
                for declarator in declaration.named_children:
                    name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
                    if name is not None and name.type == "identifier":
                        facts.exports[_text(name)] = ("n", _text(name), scope)
            else:
                name = declaration.child_by_field_name("name")
                if name is not None:
                    facts.exports["default" if is_default else _text(name)] = ("n", _text(name), scope)
            return
        if value is not None and is_default:
            if value.type == "identifier":
                facts.exports["default"] = ("n", _text(value), scope)
            elif value.type == "object":
                facts.exports["default"] = _object(value, scope)
            elif value.type in ("class", "function_expression", "arrow_function", "function"):
                name = value.child_by_field_name("name")
                if name is not None:
                    facts.exports["default"] = ("n", _text(name), scope)
            return
        for child in node.named_children:
            if child.type == "export_clause":
                for specifier in child.named_children:
                    if specifier.type != "export_specifier":
                        continue
                    name = specifier.child_by_field_name("name")
                    alias = specifier.child_by_field_name("alias") or name
                    if name is None or alias is None:
                        continue
                    if source is not None:
                        if target is not None:
                            facts.exports[_text(alias)] = ("export", target, _text(name))
                    else:
                        facts.exports[_text(alias)] = ("n", _text(name), scope)
            elif child.type == "namespace_export" and target is not None:
                local = next((c for c in child.named_children), None)
                if local is not None:
                    facts.exports[_text(local)] = ("module", target)
        if source is not None and target is not None and not any(
                c.type in ("export_clause", "namespace_export") for c in node.named_children):
            facts.star_exports.append(target)

    def _commonjs_export(self, node: Any, scope: Scope) -> None:
        """``module.exports = X`` / ``module.exports.f = g`` / ``exports.f = g`` at a module's top."""
        if scope is not self.facts.scope:
            return
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        written = _text(left)
        if written == "module.exports":
            if right.type == "object":
                self.facts.exports[MODULE_EXPORTS] = _object(right, scope)
                for key, expression in right_members(right):
                    self.facts.exports.setdefault(key, (*expression, scope))
            elif right.type == "identifier":
                self.facts.exports[MODULE_EXPORTS] = ("n", _text(right), scope)
        elif written.startswith(("module.exports.", "exports.")) and right.type == "identifier":
            self.facts.exports[written.rpartition(".")[2]] = ("n", _text(right), scope)

    def _call(self, node: Any, scope: Scope, enclosing: JsDefinition, this_class: JsDefinition | None) -> None:
        function = node.child_by_field_name("function")
        if function is None:
            return
        if function.type == "member_expression":
            property_node = function.child_by_field_name("property")
            inner = function.child_by_field_name("object")
            if property_node is not None and _text(property_node) in ("call", "apply", "bind") and inner is not None:
                inner_expression = _expression(inner, this_class)
                if inner_expression is not None:
                    self.refer(_name_node(inner), "call", inner_expression, scope, enclosing,
                               _expression_name(inner_expression))
                    return
        expression = _expression(function, this_class)
        if expression is not None:
            self.refer(_name_node(function), "call", expression, scope, enclosing, _expression_name(expression))


def right_members(node: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """An object literal's ``{a, b: c}`` members that name a value: (key, ("n", name))."""
    members = []
    for child in node.named_children:
        if child.type == "shorthand_property_identifier":
            members.append((_text(child), ("n", _text(child))))
        elif child.type == "pair":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier" and key.type in (
                    "property_identifier", "string"):
                members.append((_text(key).strip("'\""), ("n", _text(value))))
    return members


def _type_expression(annotation: Any) -> tuple[Any, ...] | None:
    """The class a type annotation names (``: Store``, ``: Store<T>``, ``: ns.Store``), or None."""
    if annotation is None or annotation.type != "type_annotation" or not annotation.named_children:
        return None
    written = annotation.named_children[0]
    if written.type == "generic_type":
        written = written.child_by_field_name("name")
    if written is None:
        return None
    if written.type == "type_identifier":
        return ("n", _text(written))
    if written.type == "nested_type_identifier":
        module, name = written.child_by_field_name("module"), written.child_by_field_name("name")
        if module is not None and name is not None and module.type == "identifier":
            return ("attr", _text(module), _text(name))
    return None


def _instance_binding(value: Any, annotation: Any, scope: Scope) -> tuple[Any, ...] | None:
    """What a name holds when its type is certain: a written type, else ``new C(...)``, else
    the call of a function (``("called", ...)``: an instance when the function declares its
    return type a class)."""
    typed = _type_expression(annotation)
    if typed is not None:
        return ("typed", typed, scope)
    if value is not None and value.type == "new_expression":
        constructed = _expression(value.child_by_field_name("constructor"), None)
        if constructed is not None and constructed[0] in ("n", "attr"):
            return ("new", constructed, scope)
    if value is not None and value.type == "call_expression" and _require_spec(value) is None:
        called = _expression(value.child_by_field_name("function"), None)
        if called is not None and called[0] in ("n", "attr"):
            return ("called", called, scope)
    return None


def _key(node: Any) -> str:
    return _text(node).strip("'\"") if node.type == "string" else _text(node)


def _merged(namespace: Any, name: str) -> bool:
    """Whether a class, function or enum of the namespace's name is declared beside it (TypeScript
    merges the two: the namespace's members are the other's statics, left to the other's binding)."""
    statement = namespace.parent if namespace.parent is not None and namespace.parent.type in (
        "export_statement", "expression_statement") else namespace
    container = statement.parent
    for sibling in container.named_children if container is not None else ():
        declared = sibling.child_by_field_name("declaration") if sibling.type == "export_statement" else sibling
        if declared is None or declared.type not in ("class_declaration", "abstract_class_declaration",
                                                     "function_declaration", "enum_declaration"):
            continue
        found = declared.child_by_field_name("name")
        if found is not None and _text(found) == name:
            return True
    return False


def _object(node: Any, scope: Scope) -> tuple[Any, ...]:
    return ("object", {key: expression[1] for key, expression in right_members(node)}, scope)


def _is_const(declarator: Any) -> bool:
    """Whether a variable declarator is a ``const``'s (never rebound)."""
    parent = declarator.parent
    return parent is not None and parent.type == "lexical_declaration" and bool(parent.children) and \
        _text(parent.children[0]) == "const"


def _expression_name(expression: tuple[Any, ...]) -> str:
    if expression[0] in ("this", "super"):
        return str(expression[1])
    return str(expression[2] if expression[0] == "thisattr" else expression[-1])


def _expression(node: Any, this_class: JsDefinition | None) -> tuple[Any, ...] | None:
    """What a callee or constructor names: a bare name, ``obj.name``, ``this.name`` inside a
    class, ``super.name``; ``("u", name)`` for ``anything.name`` (bound by name only)."""
    if node is None:
        return None
    if node.type == "identifier":
        return ("n", _text(node))
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if prop is None or prop.type not in ("property_identifier", "private_property_identifier"):
            return None
        name = _text(prop)
        if obj is not None and obj.type == "this":
            return ("this", name, this_class) if this_class is not None else ("u", name)
        if obj is not None and obj.type == "super":
            return ("super", name, this_class) if this_class is not None else ("u", name)
        if obj is not None and obj.type == "identifier":
            return ("attr", _text(obj), name)
        if obj is not None and obj.type == "call_expression":
            called = _expression(obj.child_by_field_name("function"), this_class)
            if called is not None and called[0] in ("n", "attr", "this"):
                return ("ret", called, name)  # ``make().name``: a method of what the call returns
        if obj is not None and obj.type == "member_expression" and this_class is not None:
            inner, field = obj.child_by_field_name("object"), obj.child_by_field_name("property")
            if inner is not None and inner.type == "this" and field is not None:
                return ("thisattr", _text(field), name, this_class)
        return ("u", name)
    return None


def _name_node(node: Any) -> Any:
    """The node whose position a reference is cited at: the name itself (``obj.name``'s name)."""
    if node is not None and node.type == "member_expression":
        return node.child_by_field_name("property") or node
    return node


def _first_signature(node: Any, name: str) -> Any | None:
    """The first of the TypeScript overload signatures right before an implementation
    (``f(a: string): void; f(a: number): void; f(a) {...}``): the group's first line, where its
    range starts (and, for a method, where the provider puts its node: a function's node is at
    its implementation); the signatures are no definitions of their own (calls run the
    implementation)."""
    first, sibling = None, node.prev_named_sibling
    while sibling is not None:
        if sibling.type != "comment":
            inner = sibling.child_by_field_name("declaration") if sibling.type == "export_statement" else sibling
            if inner is None or inner.type not in ("method_signature", "function_signature") or \
                    _text(inner.child_by_field_name("name")) != name:
                break
            first = sibling
        sibling = sibling.prev_named_sibling
    return first


def _statement(node: Any) -> Any:
    """A declaration's line is its statement's (``export function f``: the ``export``'s)."""
    parent = node.parent
    return parent if parent is not None and parent.type == "export_statement" else node


def _is_value_child(parent: Any, node: Any) -> bool:
    kind = parent.type
    if kind == "pair":
        return parent.child_by_field_name("value") == node
    if kind == "assignment_expression":
        return parent.child_by_field_name("right") == node
    if kind == "variable_declarator":
        return parent.child_by_field_name("value") == node
    if kind == "export_statement":
        return parent.child_by_field_name("value") == node
    return True


def _parsed(grammar: str, content: bytes) -> Any:
    """The tree's root; for TypeScript with errors, the repaired text's (``tsrepair``) when that
    has fewer erroneous bytes."""
    root = _parser(grammar).parse(content).root_node
    if not root.has_error or grammar == "javascript":
        return root
    text = repaired(content)
    if text == content:
        return root
    again = _parser(grammar).parse(text).root_node
    return again if _error_bytes(again) < _error_bytes(root) else root


def _error_bytes(root: Any) -> int:
    return sum(child.end_byte - child.start_byte for child in root.children if child.has_error)


def scan_file(path: str, content: bytes | int, paths: frozenset[str], bare: BareResolver | None = None,
              reads: bool = False, packages: Mapping[str, str] | None = None) -> FileFacts:
    """One file's facts (``content`` an int: the line count of a blob too large to parse;
    ``bare``: how a package specifier resolves, None for a commit alone; ``reads``: a name read
    as an object, ``x.y``/``x[k]``, is a reference too; ``packages``: the bare specifiers the
    commit's own manifests bind to its files)."""
    module = module_name(path)
    base = path.rpartition("/")[2]
    name = module.rpartition(".")[2] if "." in base else base
    if isinstance(content, int) or len(content) > MAX_RESOLVED_BYTES:
        lines = content if isinstance(content, int) else content.count(b"\n") + 1
        facts = FileFacts(path, "too_large")
        facts.module_def = JsDefinition(path, "module", name, module, 1, 1, max(1, lines), 1, None)
        facts.definitions.append(facts.module_def)
        return facts
    root = _parsed(_grammar(path), content)
    end = max(1, root.end_point.row + (1 if root.end_point.column else 0))
    facts = FileFacts(path, "resolved")
    facts.module_def = JsDefinition(path, "module", name, module, 1, 1, end, 1, None)
    if root.descendant_count > MAX_SYNTAX_NODES:
        facts.status = "too_large"
        facts.definitions.append(facts.module_def)
        return facts
    _Scanner(facts, paths, bare, reads, packages or {}).walk(root, facts.module_def)
    facts.definitions.insert(0, facts.module_def)
    return facts
