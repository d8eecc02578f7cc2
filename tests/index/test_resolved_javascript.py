"""The resolved layer of JavaScript and TypeScript files (issue 28 items 1-3, issue 27's "how"): a
small TypeScript/CommonJS project as one real commit, extracted by the pinned provider and built
by the installed ``cm-graph``. The provider's graph has no edge for ``this.sum()`` inside a class
method nor for a function called through an import alias (``format as fmt``); the resolver binds
both, ``usage`` lists each as a resolved caller, and the cited line is the one whose text holds
the call. The rows are written by hand from the sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cm_graph.generation.layout import Workspace

from ..support.contextkit import ask_context
from ..support.helpers import make_repo, provider_extract, run_installed
from ..support.resolvedkit import definitions, references

pytestmark = [pytest.mark.provider]

UTIL = (
    "export function format(value: number): string {\n"        # 1
    "  return value.toFixed(2);\n"                              # 2
    "}\n"                                                       # 3
    "\n"
    "export const double = (n: number): number => n * 2;\n"     # 5 an arrow function held by a const
)
CART = (
    "import { format as fmt, double } from './util';\n"        # 1 an aliased import
    "\n"
    "export class Cart {\n"                                     # 3
    "  private items: number[] = [];\n"                         # 4 a field, not a definition
    "\n"
    "  total(): number {\n"                                     # 6
    "    return this.sum();\n"                                  # 7 this.m() inside the class
    "  }\n"
    "\n"
    "  private sum(): number {\n"                               # 10
    "    return this.items.reduce((a, b) => a + b, 0);\n"       # 11
    "  }\n"
    "\n"
    "  label = (): string => fmt(this.total());\n"              # 14 a field holding an arrow function
    "}\n"
    "\n"
    "export function makeCart(): Cart {\n"                      # 17
    "  const cart = new Cart();\n"                              # 18 an instantiation
    "  double(2);\n"                                            # 19
    "  return cart;\n"
    "}\n"
)
LEGACY = (
    "const { format } = require('./util');\n"                  # 1 CommonJS, a relative path
    "\n"
    "function show(v) {\n"                                      # 3
    "  return format(v);\n"                                     # 4
    "}\n"
    "\n"
    "module.exports = { show };\n"
)
FILES: dict[str, str | bytes] = {"src/util.ts": UTIL, "src/cart.ts": CART, "src/legacy.js": LEGACY}


def _built(tmp_path: Path) -> tuple[Path, Workspace]:
    """The project built by the installed cm-graph from the provider's graph; (index, workspace)."""
    repo = make_repo(tmp_path / "repo", FILES)
    out = tmp_path / "graphify-out"
    provider_extract(repo, out)
    state = tmp_path / "state"
    built = run_installed("build", "--from-graph", out, "--state-dir", state, cwd=repo)
    assert built.returncode == 0, built.stderr
    return next((state / "graph").glob("*/indexes/*.sqlite"), state), Workspace.locate(repo, state)


def _line_text(path: str, line: int) -> str:
    text = FILES[path]
    assert isinstance(text, str)
    return text.splitlines()[line - 1]


def test_a_typescript_projects_definitions_and_references_are_resolved(tmp_path: Path) -> None:
    index, _ = _built(tmp_path)
    found = definitions(index)
    # (path, kind, qualname, start, line, end, overload, parent, node?)
    assert [(d[0], d[1], d[2], d[3], d[4], d[5], d[7], d[8] is not None) for d in found] == [
        ("src/cart.ts", "module", "src.cart", 1, 1, 21, None, True),
        ("src/cart.ts", "class", "src.cart.Cart", 3, 3, 15, "src.cart", True),
        ("src/cart.ts", "method", "src.cart.Cart.total", 6, 6, 8, "src.cart.Cart", True),
        ("src/cart.ts", "method", "src.cart.Cart.sum", 10, 10, 12, "src.cart.Cart", True),
        ("src/cart.ts", "method", "src.cart.Cart.label", 14, 14, 14, "src.cart.Cart", True),
        ("src/cart.ts", "function", "src.cart.makeCart", 17, 17, 21, "src.cart", True),
        ("src/legacy.js", "module", "src.legacy", 1, 1, 7, None, True),
        ("src/legacy.js", "function", "src.legacy.show", 3, 3, 5, "src.legacy", True),
        ("src/util.ts", "module", "src.util", 1, 1, 5, None, True),
        ("src/util.ts", "function", "src.util.format", 1, 1, 3, "src.util", True),
        ("src/util.ts", "function", "src.util.double", 5, 5, 5, "src.util", True),
    ]
    bound = [row for row in references(index) if row[3] is not None]
    assert bound == [
        ("src/cart.ts", 1, "import", "src.util.format", "fmt", "src.cart"),
        ("src/cart.ts", 1, "import", "src.util.double", "double", "src.cart"),
        ("src/cart.ts", 7, "call", "src.cart.Cart.sum", "sum", "src.cart.Cart.total"),
        ("src/cart.ts", 14, "call", "src.util.format", "fmt", "src.cart.Cart.label"),
        ("src/cart.ts", 14, "call", "src.cart.Cart.total", "total", "src.cart.Cart.label"),
        ("src/cart.ts", 18, "instantiate", "src.cart.Cart", "Cart", "src.cart.makeCart"),
        ("src/cart.ts", 19, "call", "src.util.double", "double", "src.cart.makeCart"),
        ("src/legacy.js", 1, "import", "src.util.format", "format", "src.legacy"),
        ("src/legacy.js", 4, "call", "src.util.format", "format", "src.legacy.show"),
        ("src/legacy.js", 7, "reference", "src.legacy.show", "show", "src.legacy"),
    ]
    for path, line, _, _, name, _ in bound:  # each site's line holds the name written there
        assert name in _line_text(path, line), (path, line, name)


def test_usage_lists_the_callers_the_providers_graph_misses_with_their_lines(tmp_path: Path) -> None:
    _, workspace = _built(tmp_path)
    usage = ask_context(workspace, "usage", "sum")
    assert usage["sections"]["callers"]["status"] == "empty"  # the provider has no edge for this.sum()
    section = usage["sections"]["resolved_callers"]
    assert [(i["label"], i["path"], i["site"]["line"], i["relation"], i["evidence"]) for i in section["items"]] == [
        (".total()", "src/cart.ts", 7, "call", "resolved")]
    assert "this.sum()" in _line_text("src/cart.ts", 7)
    aliased = ask_context(workspace, "usage", "format")
    graph = {(i["label"], i["path"]) for i in aliased["sections"]["callers"]["items"]}
    resolved = [(i["label"], i["path"], i["site"]["line"]) for i in aliased["sections"]["resolved_callers"]["items"]]
    assert (".label()", "src/cart.ts") not in graph  # fmt(...) is a call of format() the graph lacks
    assert (".label()", "src/cart.ts", 14) in resolved
    assert "fmt(" in _line_text("src/cart.ts", 14)


STORE = (
    "export class Store {\n"                                    # 1
    "  get(key: string): number {\n"                            # 2
    "    return key.length;\n"                                  # 3
    "  }\n"                                                     # 4
    "}\n"                                                       # 5
    "\n"                                                        # 6
    "export class View {\n"                                     # 7
    "  constructor(private store: Store) {}\n"                  # 8 a parameter property: a typed field
    "\n"                                                        # 9
    "  render(): number {\n"                                    # 10
    "    return this.store.get('a');\n"                         # 11
    "  }\n"                                                     # 12
    "}\n"                                                       # 13
    "\n"                                                        # 14
    "export function read(s: Store): number {\n"                # 15 an annotated parameter
    "  return s.get('b');\n"                                    # 16
    "}\n"                                                       # 17
    "\n"                                                        # 18
    "export function fresh(other): number {\n"                  # 19
    "  const local = new Store();\n"                            # 20 a local holding an instance
    "  return local.get('c') + other.get('d');\n"              # 21 other's type is unknown
    "}\n"                                                       # 22
)


def test_calls_on_receivers_of_a_known_class_are_bound_and_unknown_ones_are_not(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/store.ts": STORE})
    out = tmp_path / "graphify-out"
    provider_extract(repo, out)
    state = tmp_path / "state"
    assert run_installed("build", "--from-graph", out, "--state-dir", state, cwd=repo).returncode == 0
    index = next((state / "graph").glob("*/indexes/*.sqlite"))
    calls = [(line, target, name, caller) for _, line, role, target, name, caller in references(index)
             if role == "call"]
    assert calls == [
        (11, "src.store.Store.get", "get", "src.store.View.render"),
        (16, "src.store.Store.get", "get", "src.store.read"),
        (21, "src.store.Store.get", "get", "src.store.fresh"),
        (21, None, "get", "src.store.fresh"),  # other.get(...): kept by name, not guessed
    ]
    usage = ask_context(Workspace.locate(repo, state), "usage", "Store.get")
    # the provider links these by the method's name (one `get` in the commit); the answer lists
    # each site once, from the graph or the resolver, every cited line holding the call
    sites = [i["site"]["line"] for name in ("callers", "resolved_callers")
             for i in usage["sections"][name]["items"] if i.get("site")]
    assert sorted(sites) == [11, 16, 21]
    for line in sites:
        assert ".get(" in STORE.splitlines()[line - 1], line


def test_the_layer_is_one_function_of_the_blobs_and_a_large_file_is_named_not_read() -> None:
    """Whatever order the blobs come in, with a Python file among them (the two resolvers' layers
    merged by rank), the rows are the same bytes; a blob over the cap is ``too_large``, counted by
    its lines, with only its module's range."""
    from cm_graph.index.pyscope import MAX_RESOLVED_BYTES
    from cm_graph.index.resolvers import resolve_blobs

    blobs: list[tuple[str, bytes | int]] = [(path, str(text).encode()) for path, text in FILES.items()]
    blobs += [("src/store.ts", STORE.encode()), ("src/a.py", b"def f():\n    return 1\n"),
              ("src/z.py", b"from src.a import f\n\n\ndef g():\n    return f()\n"),
              ("src/big.js", b"x();\n" * (MAX_RESOLVED_BYTES // 5 + 1))]
    first = resolve_blobs(blobs)
    assert resolve_blobs(list(reversed(blobs))).to_json() == first.to_json()
    assert [row[0] for row in first.files] == sorted(path for path, _ in blobs)
    statuses = {path: (language, status) for path, language, _, status in first.files}
    assert statuses["src/big.js"] == ("javascript", "too_large")
    assert statuses["src/a.py"] == ("python", "resolved") and statuses["src/cart.ts"] == ("typescript", "resolved")
    numbers = {row[0]: row for row in first.definitions}
    by_file = {number: path for number, (path, *_rest) in enumerate(first.files, start=1)}
    big = [row for row in first.definitions if by_file[row[1]] == "src/big.js"]
    assert [(row[3], row[6], row[8]) for row in big] == [("module", 1, MAX_RESOLVED_BYTES // 5 + 2)]
    # each reference's definitions are of its language's files: z.py's call is a.py's f
    calls = {(by_file[r[0]], r[1], numbers[r[4]][5]) for r in first.references if r[3] == "call" and r[4]}
    assert ("src/z.py", 5, "a.f") in calls and ("src/cart.ts", 7, "src.cart.Cart.sum") in calls


VIEWS = (
    "import { format } from './util';\n"                       # 1
    "export default {\n"                                        # 2
    "  show: (v) => format(v),\n"                               # 3 an object's arrow property
    "  print(v) {\n"                                            # 4 an object's method
    "    return format(v);\n"                                   # 5
    "  },\n"
    "};\n"
    "function Legacy() {}\n"                                    # 8
    "Legacy.prototype.render = function (v) {\n"                # 9 a function assigned to a property
    "  return format(v);\n"                                     # 10
    "};\n"
    "export const run = new Promise(function executor(done) {\n"  # 12 a named function expression
    "  done(format(1));\n"                                      # 13
    "});\n"
)


def test_a_call_is_credited_to_the_object_method_property_function_or_named_expression_it_is_in() -> None:
    """The nearest named definition is the caller, as the truth (benchmarks/js_truth.py) names it:
    object-literal functions and methods, ``x.f = function``, named function expressions."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/util.ts", UTIL.encode()), ("src/views.js", VIEWS.encode())])
    qualnames = {row[0]: row[5] for row in layer.definitions}
    calls = [(row[1], qualnames[row[6]]) for row in layer.references
             if row[3] == "call" and row[4] is not None and qualnames[row[4]] == "src.util.format"]
    assert calls == [(3, "src.views.show"), (5, "src.views.print"), (10, "src.views.render"),
                     (13, "src.views.executor")]
    for line, _ in calls:
        assert "format(" in VIEWS.splitlines()[line - 1]


OVERLOADED = (
    "export class Obs {\n"                                      # 1
    "  /** the first signature: where the provider puts a method's node */\n"
    "  subscribe(next: string): void;\n"                        # 3
    "  subscribe(next: number): void;\n"                        # 4
    "  subscribe(next: unknown): void {\n"                      # 5 the implementation
    "    return;\n"
    "  }\n"                                                     # 7
    "}\n"
    "export function from(a: string): Obs;\n"                   # 9
    "export function from(a: unknown): Obs {\n"                 # 10 a function's node: the implementation's
    "  return new Obs();\n"
    "}\n"                                                       # 12
    "function use(o: Obs) {\n"                                  # 13
    "  o.subscribe(1);\n"                                       # 14
    "  return from('a');\n"                                     # 15
    "}\n"
)


def test_an_overloaded_function_is_one_definition_from_its_first_signature_and_its_calls_bind_to_it() -> None:
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/obs.ts", OVERLOADED.encode())])
    ranges = {row[5]: (row[6], row[7], row[8], row[9]) for row in layer.definitions}
    assert ranges["src.obs.Obs.subscribe"] == (3, 3, 7, 0) and ranges["src.obs.from"] == (9, 10, 12, 0)
    assert len(layer.definitions) == 5  # module, Obs, subscribe, from, use: a signature is no definition
    qualnames = {row[0]: row[5] for row in layer.definitions}
    assert [(row[1], qualnames[row[4]]) for row in layer.references if row[3] == "call"] == [
        (14, "src.obs.Obs.subscribe"), (15, "src.obs.from")]


def test_an_index_from_before_the_javascript_resolver_is_derived_again(tmp_path: Path) -> None:
    """An index written by a version 10 reader holds no JavaScript/TypeScript rows; accepted as it
    is, its answers would say no resolver reads those files. Its schema version is older, so the
    first question derives it again, with the rows."""
    import apsw

    from cm_graph.index.ensure import current_generation
    from cm_graph.index.seal import write_seal

    index, workspace = _built(tmp_path)
    connection = apsw.Connection(str(index))
    try:  # the index as the previous reader wrote it for this commit: no JS/TS resolved rows
        with connection:
            connection.execute("PRAGMA foreign_keys = OFF")
            for table in ("resolved_references", "definitions", "resolved_files"):
                connection.execute(f"DELETE FROM {table}")
            connection.execute("PRAGMA user_version = 10")
    finally:
        connection.close()
    write_seal(current_generation(workspace), index)  # sealed, as that reader sealed what it wrote
    document = ask_context(workspace, "usage", "format", wire=False)
    assert document["status"] == "answered"
    callers = document["sections"]["resolved_callers"]
    assert callers["status"] == "ok" and callers["items"], callers
    assert any(d[2] == "src.util.format" for d in definitions(index))


FACTORY = (
    "export interface Factory extends Base, Other {\n"          # 1
    "    // nameless\n"
    "    <T extends Function | undefined | null>(fn: T): T\n"   # 3 generic call signatures, no `;`:
    "    // named\n"
    "    <T extends Function | undefined | null>(name: string, fn: T): T\n"  # 5 read as `T < T ...`
    "\n"
    "    // a decorator\n"
    "    (customName: string): Base &\n"                         # 8
    "        Other\n"
    "    bound: Base & Other\n"                                  # 10
    "}\n"                                                        # 11
    "\n"
    "function createFactory(auto: boolean): Factory {\n"        # 13
    "    const res: Factory = function action(arg1, arg2?): any {\n"
    "        if (check(arg1)) {\n"
    "            return make(arg1, auto)\n"
    "        }\n"
    "    } as Factory\n"
    "    return res\n"
    "}\n"                                                        # 20
    "\n"
    "export const action: Factory = createFactory(false)\n"     # 22
    "\n"
    "export function isAction(thing: any) {\n"                  # 24
    "    return thing === action\n"
    "}\n"                                                        # 26
)
BARREL = "export * from './action'\n"
AUTORUN = (
    "import { isAction } from './internal'\n"                  # 1 through a barrel's `export *`
    "\n"
    "export function autorun(view: any) {\n"                    # 3
    "    if (isAction(view)) {\n"                               # 4
    "        return 1\n"
    "    }\n"
    "}\n"
)


def test_generic_call_signatures_on_lines_of_their_own_do_not_hide_the_rest_of_the_file() -> None:
    """tree-sitter's TypeScript grammar reads a generic call signature that follows another on
    its own line (``<T>(...)``, no ``;``) as a comparison, and its error recovery loses the
    declarations after it (mobx's ``action.ts``: ``isAction`` was no export, so every
    ``isAction(...)`` through mobx's barrel bound to nothing). The file is read again with those
    signatures separated, so what follows is defined, exported and bound, at its own lines."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/action.ts", FACTORY.encode()), ("src/internal.ts", BARREL.encode()),
                           ("src/autorun.ts", AUTORUN.encode())])
    qualnames = {row[0]: row[5] for row in layer.definitions}
    ranges = {row[5]: (row[6], row[8]) for row in layer.definitions}
    assert ranges["src.action.createFactory"] == (13, 20) and ranges["src.action.isAction"] == (24, 26)
    calls = {(row[1], qualnames[row[4]]) for row in layer.references if row[3] == "call" and row[4] is not None}
    assert (4, "src.action.isAction") in calls and (22, "src.action.createFactory") in calls
    assert "isAction(" in AUTORUN.splitlines()[3] and "createFactory(" in FACTORY.splitlines()[21]


@given(st.lists(st.sampled_from(["export interface A extends B {", "interface C<T> {", "  <T>(fn: T): T",
                                 "  (name: string): X", "  // a comment", "  bound: Y", "}", "", "  x: Map<K,",
                                 "    V>", "f(a)", "(b)", "  <U>(x: U) =>", "  y: { z: 1 }", "/* c */",
                                 "export const map: {", "type F = {", "class V<out A, in B> {", "g<in T>(x)",
                                 "for (const k in o) {}", "f(a, in_b)", "  <in out C>", "x < y, out"]),
                min_size=1, max_size=30))
def test_the_typescript_repairs_keep_every_line_and_column(lines: list[str]) -> None:
    """Line numbers and every column of the original text are unchanged: the repairs only append
    ``;`` to a line's code (inside a body of type members) and write spaces over variance words."""
    from cm_graph.index.tsrepair import repaired

    text = "\n".join(lines).encode()
    after = repaired(text).split(b"\n")
    assert len(after) == len(lines)
    bodies = any(line.startswith(("export interface", "interface", "export const map: {", "type F"))
                 for line in lines)
    for before, line in zip(lines, after, strict=True):
        original = before.encode()
        if len(line) == len(original) + 1 and bodies and line.endswith(b";"):
            line = line[:-1]  # a line without trailing space: the ';' is the last byte
        elif len(line) == len(original) + 1 and bodies:
            code = len(original.rstrip())
            assert line[code:code + 1] == b";", (before, line)
            line = line[:code] + line[code + 1:]
        assert len(line) == len(original), (before, line)
        for old, new in zip(original, line, strict=True):
            assert old == new or (chr(old) in "inout" and new == ord(" ")), (before, line)
    assert b"for (const k in o)" in repaired(b"for (const k in o) {}") and b"in_b" in repaired(b"f(a, in_b)")


VARIANT = (
    "export interface Stack<out A> {\n"                        # 1 a variance annotation
    "  readonly value: A\n"
    "  readonly previous: Stack<A> | undefined\n"
    "}\n"
    "\n"
    "export const make = <A>(value: A, previous?: Stack<A>): Stack<A> => ({\n"  # 6: lost after it
    "  value,\n"
    "  previous\n"
    "})\n"
)
OVERLOADED_CONST = (
    "import { make } from './stack'\n"                          # 1
    "export const mapBox: {\n"                                  # 2 overloads in a type literal
    "  /** data-last */\n"
    "  <A, B, E2>(f: (a: A) => Box<B, E2>): <E>(fa: Box<A, E>) => Box<B, E | E2>\n"  # 4
    "  /** data-first */\n"
    "  <A, E, B, E2>(self: Box<A, E>, f: (a: A) => Box<B, E2>): Box<B, E | E2>\n"  # 6
    "} = dual(2, <A, E, B, E2>(\n"                               # 7
    "  self: Box<A, E>,\n"
    "  f: (a: A) => Box<B, E2>\n"
    "): Box<B, E | E2> => make(f(self.value)))\n"               # 10
    "\n"
    "export const unwrap = <A, E, E1>(\n"                       # 12: lost after them
    "  box: Box<Box<A, E>, E1>\n"
    "): Box<A, E | E1> =>\n"
    "  make(\n"                                                 # 15
    "    box.value\n"
    "  )\n"                                                     # 17
)


def test_variance_annotations_and_overloads_in_a_type_literal_do_not_hide_what_follows() -> None:
    """``<out A>`` (TypeScript 4.7) is not in the pinned grammar, nor are call signatures on lines
    of their own in an annotation's type literal (effect writes both throughout: 185 of its 360
    source files had errors). Repaired, what follows them is defined at its own lines (effect's
    ``internal/stack.ts``: ``make`` was lost; ``Readable.ts``: ``unwrap``) and a call inside it is
    credited to it, not to the module."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/stack.ts", VARIANT.encode()), ("src/box.ts", OVERLOADED_CONST.encode())])
    qualnames = {row[0]: row[5] for row in layer.definitions}
    ranges = {row[5]: (row[6], row[8]) for row in layer.definitions}
    assert ranges["src.stack.make"] == (6, 9) and ranges["src.box.unwrap"] == (12, 17)
    calls = sorted((row[1], qualnames.get(row[4]), qualnames[row[6]]) for row in layer.references
                   if row[3] == "call" and row[5] == "make")
    assert calls == [(10, "src.stack.make", "src.box"), (15, "src.stack.make", "src.box.unwrap")], calls


RETURNS = (
    "export class Cart {\n"                                     # 1
    "  total(): number { return 1; }\n"                         # 2
    "}\n"
    "export function makeCart(): Cart {\n"                      # 4 a declared return type
    "  return new Cart();\n"
    "}\n"
    "function untyped() {\n"                                    # 7 none declared
    "  return new Cart();\n"
    "}\n"
    "export function use() {\n"                                 # 10
    "  const cart = makeCart();\n"                              # 11
    "  cart.total();\n"                                         # 12 a local holding a declared return
    "  makeCart().total();\n"                                   # 13 a call's result's method
    "  const other = untyped();\n"                              # 14
    "  other.total();\n"                                        # 15 unknown: by name only
    "  const { x } = require('./missing');\n"                   # 16
    "}\n"
)


def test_a_functions_declared_return_type_types_what_its_call_gives() -> None:
    """``const cart = makeCart()`` and ``makeCart().total()`` bind ``total`` to ``Cart.total``
    when ``makeCart`` declares ``: Cart``; a function that declares nothing gives a value of
    unknown type, whose calls are kept by name only."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/cart.ts", RETURNS.encode())])
    qualnames = {row[0]: row[5] for row in layer.definitions}
    totals = [(row[1], qualnames.get(row[4])) for row in layer.references if row[3] == "call" and row[5] == "total"]
    assert totals == [(12, "src.cart.Cart.total"), (13, "src.cart.Cart.total"), (15, None)]


CYCLE = (
    "export interface Clock { now(): number }\n"                # 1
    "export const Clock: Clock = makeClock()\n"                 # 2 a value and a type of one name
    "function makeClock(): Clock {\n"                           # 3
    "  return { now: () => 1 }\n"
    "}\n"
    "export const a: b = 1\n"                                    # 6 a cycle through two names
    "export const b: a = 2\n"
    "export function tick() {\n"                                # 8
    "  return Clock.now() + a.x() + b.y()\n"                    # 9
    "}\n"
)


def test_a_value_typed_by_its_own_name_is_no_information_not_a_crash() -> None:
    """``const Clock: Clock = ...`` (effect writes a value and its type under one name) made the
    resolver follow the binding into itself until Python's recursion limit, and the whole JS/TS
    layer of effect was ``failed``. A cycle is no information: the calls on it are kept by name."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/clock.ts", CYCLE.encode())])
    statuses = [row[3] for row in layer.files]
    assert statuses == ["resolved"]
    calls = sorted((row[1], row[5], row[4]) for row in layer.references if row[3] == "call")
    assert (9, "now", None) in calls


CJS_PACKAGE: dict[str, bytes] = {  # qs's and resolve's shape: a module whose whole export is a function
    "lib/parse.js": (b"var utils = require('./utils');\n"              # 1
                     b"\n"
                     b"module.exports = function (str, opts) {\n"       # 3 anonymous: named by what holds it
                     b"    return utils.merge(str, opts);\n"            # 4
                     b"};\n"),
    "lib/utils.js": b"function merge(a, b) { return a; }\nmodule.exports = { merge: merge };\n",
    "lib/async.js": (b"module.exports = function resolve(x, callback) {\n"  # 1 named: its own name
                     b"    return callback(x);\n"
                     b"};\n"),
    "index.js": (b"var parse = require('./lib/parse');\n"
                 b"var async = require('./lib/async');\n"
                 b"module.exports = { parse: parse, resolve: async };\n"),
    "test/parse.js": (b"var qs = require('../');\n"                         # 1
                      b"var parse = require('../lib/parse');\n"
                      b"var resolve = require('../lib/async');\n"
                      b"qs.parse('a=b');\n"                                 # 4 through the package's object
                      b"parse('a=b');\n"                                    # 5 the module itself, called
                      b"resolve('x', function (r) { return r; });\n"),     # 6
}


def test_a_function_that_is_a_modules_whole_export_is_a_definition_its_require_calls_bind_to() -> None:
    """``module.exports = function (...) {...}`` was no definition, so ``require('./parse')(...)``
    and ``qs.parse(...)`` through a package's object bound nothing: 531 of qs's 4,703 uses the
    TypeScript checker binds (benchmarks/resolver_js.py). The function is a definition (an
    anonymous one named ``exports``, by what it is assigned to, as ``x.f = function`` is ``f``; a
    named one by its own name) and is what a ``require`` of its module holds."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs(sorted(CJS_PACKAGE.items()))
    qualnames = {row[0]: row[5] for row in layer.definitions}
    by_file = {number: path for number, (path, *_rest) in enumerate(layer.files, start=1)}
    calls = sorted((by_file[row[0]], row[1], qualnames.get(row[4]), qualnames[row[6]]) for row in layer.references
                   if row[3] == "call")
    assert ("test/parse.js", 4, "lib.parse.exports", "test.parse") in calls
    assert ("test/parse.js", 5, "lib.parse.exports", "test.parse") in calls
    assert ("test/parse.js", 6, "lib.async.resolve", "test.parse") in calls
    assert ("lib/parse.js", 4, "lib.utils.merge", "lib.parse.exports") in calls


ALIASES: dict[str, bytes] = {  # zod's shape: a const holding a function another module defines
    "src/util.ts": (b"export function isObject(data: unknown): boolean {\n"
                    b"  return typeof data === 'object';\n"
                    b"}\n"
                    b"export class Schema {\n"                              # 4
                    b"  static create(): Schema { return new Schema(); }\n"  # 5
                    b"}\n"),
    "src/schemas.ts": (b"import * as util from './util.js';\n"             # 1
                       b"import { Schema } from './util.js';\n"
                       b"export const create = Schema.create;\n"            # 3 a class's static, held
                       b"export function parse(input: unknown) {\n"         # 4
                       b"  const isObject = util.isObject;\n"               # 5 a namespace member, held
                       b"  const again = isObject;\n"                       # 6 held again
                       b"  let changing = util.isObject;\n"                 # 7 a `let`: not certain
                       b"  changing = () => true;\n"
                       b"  return isObject(input) && again(input) && changing(input) && create();\n"),  # 9
}


def test_a_const_that_holds_a_named_function_binds_its_calls_to_that_function() -> None:
    """``const isObject = util.isObject; isObject(x)`` (zod's schemas.ts, twice) had no row: a
    local holding something other than a function literal was "no information". A ``const``
    whose value is a name or ``ns.name``/``C.name`` holds what that names, so its calls bind to it;
    a ``let`` may be rebound and stays unknown."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs(sorted(ALIASES.items()))
    qualnames = {row[0]: row[5] for row in layer.definitions}
    calls = sorted((row[1], row[5], qualnames.get(row[4])) for row in layer.references
                   if row[3] == "call" and qualnames[row[6]] == "src.schemas.parse")
    assert calls == [(9, "again", "src.util.isObject"), (9, "create", "src.util.Schema.create"),
                     (9, "isObject", "src.util.isObject")]


OPERANDS = (
    b"function defaultIsFile(file, cb) { cb(null, true); }\n"      # 1
    b"function defaultIsDir(dir, cb) { cb(null, true); }\n"        # 2
    b"class Registry {}\n"                                          # 3
    b"module.exports = function resolve(x, opts) {\n"              # 4
    b"  var isFile = opts.isFile || defaultIsFile;\n"              # 5 resolve's lib/async.js
    b"  var isDir = opts.dir ? opts.isDirectory : defaultIsDir;\n"  # 6
    b"  return x instanceof Registry && [...[defaultIsFile]];\n"    # 7
    b"};\n"
)


def test_a_function_or_class_read_as_an_operand_is_a_reference() -> None:
    """``opts.isFile || defaultIsFile`` (resolve's lib/async.js), a ternary's branch and
    ``x instanceof Registry`` (zod's to-json-schema.ts) read a definition as a value, which the
    TypeScript checker binds; the layer recorded no row for them (a reference was only an
    argument, a return value, an array or object member, an assignment's or declaration's value)."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("lib/async.js", OPERANDS)])
    qualnames = {row[0]: row[5] for row in layer.definitions}
    uses = sorted((row[1], qualnames.get(row[4])) for row in layer.references if row[3] == "reference")
    assert uses == [(5, "lib.async.defaultIsFile"), (6, "lib.async.defaultIsDir"), (7, "lib.async.Registry"),
                    (7, "lib.async.defaultIsFile")]


SELF_IMPORTS: dict[str, str | bytes] = {  # zod's shape: tests import the package by its own name
    "package.json": ('{"name": "pkg", "exports": {\n'
                     '  ".": {"@pkg/source": "./src/index.ts", "import": "./index.js"},\n'
                     '  "./v4": {"@pkg/source": "./src/v4/index.ts", "types": "./v4/index.d.ts"},\n'
                     '  "./package.json": "./package.json"}}\n'),
    "src/v4/index.ts": "export function string(): number {\n  return 1;\n}\n",
    "src/index.ts": "export * from './v4/index.js';\n",
    "src/tests/a.test.ts": ("import * as z from 'pkg/v4';\n"          # 1
                            "import { string } from 'pkg';\n"
                            "import { other } from 'elsewhere';\n"
                            "z.string();\n"                          # 4 the namespace of a subpath
                            "string();\n"                            # 5 the package's own name
                            "other();\n"),
    "lib/package.json": '{"name": "lib", "main": "./main.js"}\n',    # a package with no exports: main
    "lib/main.js": "module.exports = function main() { return 1; };\n",
    "lib/test/main.js": "var main = require('lib');\nmain();\n",
    "cjs/package.json": '{"main": "lib/index.js"}\n',               # qs's: `require('../')` loads main
    "cjs/lib/index.js": "module.exports = function parse() { return 1; };\n",
    "cjs/index.js": "module.exports = function other() { return 2; };\n",  # main comes before index
    "cjs/test/a.js": "var qs = require('../');\nqs();\n",
}


def test_a_package_imported_by_its_own_name_binds_to_the_sources_its_manifest_names(tmp_path: Path) -> None:
    """zod's tests import ``zod/v4`` (the package itself, by the name and ``exports`` of its
    package.json, whose source condition names ``src/``): 1,489 of zod's 1,682 true test pairs
    were bound to nothing. The manifests beside and above the resolved files are read (parsed as
    JSON, never run): an ``exports`` entry (or, without one, ``main``) whose targets include
    exactly one resolved file binds that specifier to it."""
    from ..support.g0 import node
    from ..support.resolvedkit import resolved_repo

    js = [node(path.replace("/", "_").replace(".", "_"), path.rpartition("/")[2], path, "L1")
          for path in sorted(SELF_IMPORTS) if not path.endswith(".json")]
    index = resolved_repo(tmp_path, SELF_IMPORTS, js)
    calls = [(path, line, bound) for path, line, role, bound, _name, _enclosing in references(index, roles=("call",))]
    assert ("src/tests/a.test.ts", 4, "src.v4.index.string") in calls
    assert ("src/tests/a.test.ts", 5, "src.v4.index.string") in calls
    assert ("lib/test/main.js", 2, "lib.main.main") in calls
    assert ("cjs/test/a.js", 2, "cjs.lib.index.parse") in calls
    assert not any(path == "src/tests/a.test.ts" and line == 6 for path, line, _ in calls)
    assert {row[0] for row in definitions(index)} == {p for p in SELF_IMPORTS if not p.endswith(".json")}


NAMESPACES: dict[str, bytes] = {  # zod v3's helpers: `export namespace util { export function ... }`
    "src/helpers/util.ts": (b"export namespace util {\n"                          # 1
                            b"  export function assertNever(x: never): never {\n"  # 2
                            b"    throw new Error();\n"
                            b"  }\n"
                            b"  export const arrayToEnum = (items: string[]) => items;\n"  # 5
                            b"  function hidden() {}\n"                            # 6 not exported: no member
                            b"}\n"
                            b"export const values = util.arrayToEnum(['a']);\n"),  # 8
    "src/locales/en.ts": (b"import { util } from '../helpers/util.js';\n"
                          b"namespace local { export function helper() {} }\n"    # 2 not exported itself
                          b"export function errorMap(issue: never) {\n"           # 3
                          b"  local.helper();\n"                                  # 4
                          b"  util.hidden();\n"                                   # 5
                          b"  return util.assertNever(issue);\n"                  # 6
                          b"}\n"
                          b"export class Merged { static make() { return new Merged(); } }\n"  # 8
                          b"export namespace Merged { export const tag = 1; }\n"  # 9 merged: the class stays
                          b"export const made = new Merged();\n"),                # 10
}


def test_a_namespaces_exported_members_are_its_attributes() -> None:
    """``util.assertNever(...)`` on zod v3's ``export namespace util`` had no binding: 70 of
    zod's 141 missed non-test pairs. A TypeScript namespace is an object whose attributes are
    the declarations it exports; one it does not export is no attribute."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs(sorted(NAMESPACES.items()))
    qualnames = {row[0]: row[5] for row in layer.definitions}
    calls = sorted((row[1], row[5], qualnames.get(row[4]), qualnames[row[6]]) for row in layer.references
                   if row[3] == "call")
    assert calls == [(4, "helper", "src.locales.en.helper", "src.locales.en.errorMap"),
                     (5, "hidden", None, "src.locales.en.errorMap"),
                     (6, "assertNever", "src.helpers.util.assertNever", "src.locales.en.errorMap"),
                     (8, "arrayToEnum", "src.helpers.util.arrayToEnum", "src.helpers.util")]
    made = [(row[1], row[3], qualnames.get(row[4])) for row in layer.references if row[1] == 10 and row[5] == "Merged"]
    assert made == [(10, "instantiate", "src.locales.en.Merged")]


FIELD_RETURNS = (
    b"export abstract class ZodType<O> {\n"                            # 1
    b"  optional(): number { return 1; }\n"                            # 2
    b"}\n"
    b"export class ZodString extends ZodType<string> {\n"              # 4
    b"  min(n: number): ZodString { return this; }\n"                  # 5
    b"  static create = (params?: { coerce?: true }): ZodString => {\n"  # 6 zod v3's constructors
    b"    return new ZodString();\n"
    b"  };\n"
    b"}\n"
    b"const stringType = ZodString.create;\n"                          # 10
    b"export function use() {\n"                                       # 11
    b"  const s = stringType();\n"                                     # 12
    b"  s.min(1);\n"                                                   # 13
    b"  return stringType().optional();\n"                             # 14
    b"}\n"
)


def test_a_class_fields_arrow_declares_its_return_type_as_a_method_does() -> None:
    """``static create = (...): ZodString => ...`` is a method whose declared return type is
    ``ZodString``, as ``static create(): ZodString`` is: ``z.string().optional()`` (zod v3's tests,
    ``string`` being ``ZodString.create``) binds to ``ZodType.optional``; it was left unbound."""
    from cm_graph.index.resolvers import resolve_blobs

    layer = resolve_blobs([("src/types.ts", FIELD_RETURNS)])
    qualnames = {row[0]: row[5] for row in layer.definitions}
    calls = sorted((row[1], row[5], qualnames.get(row[4])) for row in layer.references
                   if row[3] == "call" and row[1] in (13, 14))
    assert calls == [(13, "min", "src.types.ZodString.min"), (14, "optional", "src.types.ZodType.optional"),
                     (14, "stringType", "src.types.ZodString.create")]


def test_a_manifest_that_names_two_sources_or_does_not_parse_binds_nothing() -> None:
    """Two resolved files under one ``exports`` key would be a guess between conditions, a
    ``*`` pattern is not expanded, and a manifest that is not JSON (or is nested past what json
    reads) is no manifest: the imports stay external, and the layer is still written."""
    from cm_graph.index.resolvers import resolve_blobs

    blobs: list[tuple[str, bytes | int]] = [
        ("package.json", b'{"name": "pkg", "exports": {".": {"a": "./src/a.ts", "b": "./src/b.ts"},'
                         b' "./*": "./src/*.ts"}}'),
        ("bad/package.json", b'{"name": "bad", "main": "./x.js"'),
        ("deep/package.json", b'{"name": "deep", "exports": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        ("src/a.ts", b"export function f() {}\n"),
        ("src/b.ts", b"export function f() {}\n"),
        ("bad/x.js", b"module.exports = function g() {};\n"),
        ("src/use.ts", b"import { f } from 'pkg';\nimport { a } from 'pkg/a';\nimport g from 'bad';\nf(); g();\n"),
    ]
    layer = resolve_blobs(blobs)
    assert [row[0] for row in layer.files] == ["bad/x.js", "src/a.ts", "src/b.ts", "src/use.ts"]
    qualnames = {row[0]: row[5] for row in layer.definitions}
    assert [(row[1], qualnames.get(row[4])) for row in layer.references if row[3] in ("call", "import")
            and row[4]] == []
