"""How good the JavaScript/TypeScript resolved layer is (issue 28): callers against the TypeScript
compiler's own checker, test and non-test callers apart, with both accuracies.

    nice -n 10 python benchmarks/resolver_js.py                      # zod, qs, resolve
    nice -n 10 python benchmarks/resolver_js.py --subjects qs --misses 30 --out /tmp/qs.json

Subjects are pinned npm releases whose tarballs ship their sources and their tests (zod's
``src/`` holds both; qs and resolve ship ``lib/`` and ``test/``): each is one commit of a git
repository with fixed dates, built with the real ``cm-graph build`` (the pinned provider,
contained), so its index holds the graph and the resolved layer of that commit. None of them is
used anywhere else in this repository's benchmarks, docs or tests.

**The truth** is the TypeScript compiler's checker (npm ``typescript``, pinned, installed once
with ``npm install --prefix <cache>/js-resolver-truth``) over the same tracked files, run by a
node script written here: ``allowJs``/``checkJs`` so plain JavaScript and ``require`` are
bound too, ``moduleResolution: bundler`` with the package's own source conditions (an
``exports`` condition whose target is a tracked ``.ts`` file, as zod's ``@zod/source``, so a test's
``import * as z from "zod/v4"`` binds to ``src/``). It reads the files, never runs them. For
every call ``f()``/``o.f()``, ``new C()``, tagged template, decorator, ``f.call/apply/bind`` and
every identifier read as a value (not a type, not an import/export specifier, not a declaration's
name), ``checker.getSymbolAtLocation`` (aliases followed to their target) gives the declaration,
kept when it is a function, method or class written in a tracked file (an interface's method
signature, a parameter or a plain variable binds no definition). The site's caller is its nearest
enclosing *named* definition (function or class declaration, a function or class held by a
``const``/property/class field/``x.f =`` assignment, a method, a named function expression;
anonymous callbacks belong to the function they are written in; else the module).

Both sides are mapped to the index's definitions by path, name and a line their range holds; a
true pair whose callee the index has no definition for (``absent_pairs``) is a miss of every
engine, counted in ``recall``'s denominator. A receiver read only for its member (``resolve`` in
``resolve.isCore()``, ``z`` in ``z.object()``) and an assignment's target are not uses.
Figures (``benchmarks/resolver.py``'s scoring, reused; ``instantiate`` rows count as calls):
recall of true (caller, callee) pairs, test callers (``test/``, ``tests/``, ``__tests__/``,
``*.test.*``, ``*.spec.*``) and non-test apart; precision of bound call rows at sites the checker
bound a same-named definition; bound accuracy and caller accuracy; for the graph alone, the
resolved layer alone and the two united.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import resolver  # noqa: E402  (the scoring, reused)
import resolver_truth  # noqa: E402  (the fixed-date git runner and the cm-graph command)
from resolver_index import Index, Ref  # noqa: E402

TYPESCRIPT = "typescript@5.7.3"
CACHE = Path("/tmp/cm-graph-bench")
SUFFIXES = ("*.js", "*.cjs", "*.mjs", "*.jsx", "*.ts", "*.tsx", "*.mts", "*.cts")
git = resolver_truth.git
log = resolver.log


@dataclass(frozen=True)
class Subject:
    name: str
    version: str
    keep: tuple[str, ...]  # the tarball's top-level entries committed (sources, tests, package.json)

    @property
    def key(self) -> str:
        return f"js-{self.name}-{self.version}"


SUBJECTS: tuple[Subject, ...] = (
    Subject("zod", "4.1.12", ("src", "package.json", "README.md", "LICENSE")),
    Subject("qs", "6.13.0", ("lib", "test", "package.json", "README.md", "LICENSE.md")),
    Subject("resolve", "1.22.8", ("lib", "test", "index.js", "async.js", "sync.js", "package.json",
                                  "readme.markdown", "LICENSE")),
)


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    base = parts[-1]
    return (bool({"test", "tests", "__tests__"}.intersection(parts[:-1])) or ".test." in base
            or ".spec." in base)


def _tarball(subject: Subject, downloads: Path) -> Path:
    downloads.mkdir(parents=True, exist_ok=True)
    expected = downloads / f"{subject.name}-{subject.version}.tgz"
    if not expected.is_file():
        log(f"[{subject.name}] npm pack {subject.name}@{subject.version}")
        subprocess.run(["npm", "pack", f"{subject.name}@{subject.version}", "--silent", "--pack-destination",
                        str(downloads)], check=True, stdout=subprocess.DEVNULL)
    return expected


def _unpack(tarball: Path, repo: Path, keep: tuple[str, ...]) -> None:
    """The tarball's ``package/`` entries named in ``keep`` (regular files only, no source maps)."""
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if (not member.isfile() or len(parts) < 2 or parts[0] != "package" or ".." in parts
                    or parts[1] not in keep or parts[-1].endswith(".map")):
                continue
            target = repo.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())


def prepare(subject: Subject, cache: Path) -> dict[str, Any]:
    """The subject's one-commit repository and a current generation of it, cached."""
    home = cache / "resolver" / subject.key
    repo = home / "repo"
    if not (repo / ".git").is_dir():
        shutil.rmtree(home, ignore_errors=True)
        (home / "home").mkdir(parents=True)
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        _unpack(_tarball(subject, cache / "downloads"), repo, subject.keep)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{subject.name} {subject.version} from its npm tarball")
    commit = git(repo, "rev-parse", "HEAD")
    recorded = home / "build.json"
    if recorded.is_file():
        meta: dict[str, Any] = json.loads(recorded.read_text())
        if meta.get("commit") == commit and (home / "state").is_dir():
            return meta
    shutil.rmtree(home / "state", ignore_errors=True)
    log(f"[{subject.name}] cm-graph build (the pinned provider, contained)")
    started = time.perf_counter()
    done = subprocess.run([*resolver_truth.cm_graph_command(), "build", "--repo-path", str(repo), "--state-dir",
                           str(home / "state"), "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"[{subject.name}] cm-graph build failed: {done.stderr[-800:]}")
    meta = {"name": subject.name, "version": subject.version, "commit": commit, "repo": str(repo),
            "state": str(home / "state"), "build_seconds": round(time.perf_counter() - started, 2),
            "build": json.loads(done.stdout)}
    recorded.write_text(json.dumps(meta, indent=1))
    return meta


CHECKER = r"""
const fs = require('fs');
const path = require('path');
const ts = require(process.argv[2]);
const repo = process.argv[3];
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const tracked = new Set(input.files.map((f) => path.join(repo, f)));
const options = {
  allowJs: true, checkJs: true, noEmit: true, skipLibCheck: true, strict: false, types: [],
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
  customConditions: input.conditions, resolveJsonModule: true, esModuleInterop: true, allowImportingTsExtensions: true,
  jsx: ts.JsxEmit.Preserve, maxNodeModuleJsDepth: 0,
};
const program = ts.createProgram([...tracked], options);
const checker = program.getTypeChecker();
const rel = (sf) => path.relative(repo, sf.fileName);
const lineOf = (node) => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
const sites = [];
const tally = {sites: 0, unresolved: 0, outside: 0, not_definition: 0};
const skip = (n) => { while (n && (ts.isParenthesizedExpression(n) || ts.isAsExpression(n)
  || ts.isNonNullExpression(n) || ts.isSatisfiesExpression(n) || ts.isTypeAssertionExpression(n))) n = n.expression;
  return n; };
const isCode = (n) => n && (ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isClassExpression(n));
const nameText = (n) => n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n)
  || ts.isNumericLiteral(n)) ? n.text : null;

// The name a function or class expression is held under (const f = ..., {f: ...}, f = ..., x.f = ...).
function holder(node) {
  const parent = node.parent;
  if (!parent) return null;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
      && skip(parent.initializer) === node) return parent.name;
  if (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isSatisfiesExpression(parent)) {
    return holder(parent);
  }
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
      && skip(parent.right) === node) {
    if (ts.isIdentifier(parent.left)) return parent.left;
    if (ts.isPropertyAccessExpression(parent.left)) return parent.left.name;
  }
  return null;
}

// [line, name] of the definition a node is, or null: the nearest-named-definition rule.
function definedAt(node) {
  if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isMethodDeclaration(node)
      || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) {
    if (ts.isMethodDeclaration(node) && !node.body) return null;
    return node.name ? [lineOf(node.name), nameText(node.name)] : null;
  }
  if (ts.isConstructorDeclaration(node)) return node.body ? [lineOf(node), 'constructor'] : null;
  if (isCode(node)) {  // as the index names them: a const's name, then the expression's own, then the holder's
    const held = holder(node);
    if (held && ts.isVariableDeclaration(held.parent) && nameText(held)) return [lineOf(held), nameText(held)];
    if (node.name) return [lineOf(node.name), node.name.text];
    if (held && nameText(held)) return [lineOf(held), nameText(held)];
  }
  return null;
}

function inRepo(decl) { return tracked.has(decl.getSourceFile().fileName); }

function target(symbol, depth) {
  if (!symbol || depth > 10) return null;
  if (symbol.flags & ts.SymbolFlags.Alias) {
    try { symbol = checker.getAliasedSymbol(symbol); } catch (error) { return null; }
  }
  const declarations = symbol.declarations || [];
  if (!declarations.length) return null;
  let decl = declarations.find((d) => ts.isClassLike(d))
    || declarations.find((d) => ts.isFunctionLike(d) && d.body) || symbol.valueDeclaration || declarations[0];
  return definition(decl, depth);
}

function followExpression(expression, depth) {
  expression = skip(expression);
  if (!expression) return null;
  if (isCode(expression)) { const at = definedAt(expression); return at ? [expression, at] : 'anonymous'; }
  if (ts.isIdentifier(expression) || ts.isPropertyAccessExpression(expression)) {
    return target(checker.getSymbolAtLocation(ts.isPropertyAccessExpression(expression) ? expression.name
                                                                                            : expression), depth + 1);
  }
  if (ts.isCallExpression(expression) && ts.isIdentifier(expression.expression)
      && expression.expression.text === 'require' && expression.arguments.length === 1) {
    const module = checker.getSymbolAtLocation(expression.arguments[0]);
    if (!module) return null;
    const exported = checker.resolveExternalModuleSymbol(module);
    if (!exported || exported === module) return 'module';
    return target(exported, depth + 1);
  }
  return null;
}

// A declaration as (node, [line, name]) when it is a definition in a tracked file, or a reason.
function definition(decl, depth) {
  if (!inRepo(decl)) return 'outside';
  if (ts.isSourceFile(decl) || ts.isModuleDeclaration(decl)) return 'module';
  const at = definedAt(decl);
  if (at) return [decl, at];
  if (ts.isVariableDeclaration(decl) || ts.isPropertyAssignment(decl) || ts.isPropertyDeclaration(decl)) {
    return decl.initializer ? followExpression(decl.initializer, depth) : 'not_definition';
  }
  if (ts.isShorthandPropertyAssignment(decl)) return target(checker.getShorthandAssignmentValueSymbol(decl), depth + 1);
  if (ts.isExportAssignment(decl)) return followExpression(decl.expression, depth);
  if (ts.isExportSpecifier(decl)) return target(checker.getExportSpecifierLocalTargetSymbol(decl), depth + 1);
  let assignment = decl;
  while (assignment && !ts.isBinaryExpression(assignment) && assignment.parent
         && (ts.isPropertyAccessExpression(assignment) || ts.isIdentifier(assignment))) assignment = assignment.parent;
  if (assignment && ts.isBinaryExpression(assignment) && assignment.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    return followExpression(assignment.right, depth);
  }
  return 'not_definition';
}

function record(file, nameNode, symbol, role, owner) {
  tally.sites += 1;
  if (!symbol) { tally.unresolved += 1; return; }
  const found = target(symbol, 0);
  if (found === null) { tally.unresolved += 1; return; }
  if (typeof found === 'string') { tally[found] = (tally[found] || 0) + 1; return; }
  const [decl, [line, name]] = found;
  if (decl === null || name === null) { tally.not_definition += 1; return; }
  sites.push([file, lineOf(nameNode), role, rel(decl.getSourceFile()), line, name, owner ? owner[0] : 0,
              owner ? owner[1] : '']);
}

function calleeName(expression) {
  expression = skip(expression);
  if (ts.isIdentifier(expression)) return expression;
  if (ts.isPropertyAccessExpression(expression)) {
    const property = expression.name.text;
    if (['call', 'apply', 'bind'].includes(property)) {
      const inner = calleeName(expression.expression);
      if (inner) {
        const symbol = checker.getSymbolAtLocation(inner);
        const found = symbol ? target(symbol, 0) : null;
        if (Array.isArray(found)) return inner;
      }
    }
    return expression.name;
  }
  return null;
}

// Inside a type (``typeof f`` in an annotation): a type's use, not a value's.
function inType(node) {
  for (let up = node.parent; up && !ts.isSourceFile(up); up = up.parent) {
    if (ts.isTypeNode(up) || ts.isExpressionWithTypeArguments(up) && ts.isHeritageClause(up.parent)
        && up.parent.token === ts.SyntaxKind.ImplementsKeyword) return true;
    if (ts.isStatement(up) || ts.isFunctionLike(up)) return false;
  }
  return false;
}

// Written, not read: an assignment's target (`module.exports = ...`), or the receiver of a
// member read (`resolve.isCore(...)` reads `resolve` for its property: no use of it as a function).
function notARead(node) {
  let up = node;
  while (up.parent && ts.isPropertyAccessExpression(up.parent) && up.parent.expression === up) up = up.parent;
  if (up !== node) return true;
  const parent = up.parent;
  return parent && ts.isBinaryExpression(parent) && parent.left === up
    && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

function declaredName(node) {
  const parent = node.parent;
  return parent && parent.name === node && (ts.isDeclaration(parent) || ts.isPropertyAssignment(parent)
    || ts.isPropertyAccessExpression(parent) || ts.isBindingElement(parent));
}

function walk(file, sf) {
  const used = new Set();
  function visit(node, owner) {
    let inner = owner;
    const at = definedAt(node);
    if (at && at[1] !== null) inner = at;
    if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)
        || ts.isDecorator(node)) {
      const callee = ts.isTaggedTemplateExpression(node) ? node.tag : node.expression;
      const name = ts.isDecorator(node) && ts.isCallExpression(skip(callee)) ? null : calleeName(callee);
      if (name && !(ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword)) {
        used.add(name);
        record(file, name, checker.getSymbolAtLocation(name), ts.isNewExpression(node) ? 'new' : 'call', owner);
      }
    } else if (ts.isIdentifier(node) && !used.has(node) && node.parent) {
      const parent = node.parent;
      if (ts.isShorthandPropertyAssignment(parent) && parent.name === node) {
        record(file, node, checker.getShorthandAssignmentValueSymbol(parent), 'reference', owner);
      } else if (!declaredName(node) && !notARead(node) && !ts.isPartOfTypeNode(node) && !inType(node)
                 && ts.isExpressionNode(node)
                 && !ts.isImportSpecifier(parent) && !ts.isExportSpecifier(parent) && !ts.isImportClause(parent)
                 && !ts.isNamespaceImport(parent) && !ts.isLabeledStatement(parent)
                 && !ts.isBreakOrContinueStatement(parent) && !ts.isMetaProperty(parent)
                 && !(ts.isCallExpression(parent) && ts.isIdentifier(parent.expression)
                      && parent.expression.text === 'require')) {
        record(file, node, checker.getSymbolAtLocation(node), 'reference', owner);
      }
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  }
  ts.forEachChild(sf, (child) => visit(child, null));
}

for (const sf of program.getSourceFiles()) {
  if (!tracked.has(sf.fileName) || sf.isDeclarationFile) continue;
  walk(rel(sf), sf);
}
process.stdout.write(JSON.stringify({files: tracked.size, sites, tally}));
"""


def install_typescript(cache: Path) -> Path:
    """The pinned ``typescript`` package directory under ``cache`` (npm, once)."""
    prefix = cache / "js-resolver-truth"
    package = prefix / "node_modules" / "typescript"
    if not (package / "package.json").is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-save", "--silent", TYPESCRIPT], check=True,
                       stdout=subprocess.DEVNULL)
    return package


def source_conditions(repo: Path, tracked: set[str]) -> list[str]:
    """The package's own ``exports`` conditions that name a tracked TypeScript source (zod's
    ``@zod/source``): with them the checker binds a self-import to the sources, as the project's
    own tooling does."""
    manifest = repo / "package.json"
    try:
        exports = json.loads(manifest.read_text(encoding="utf-8")).get("exports")
    except (OSError, ValueError):
        return []
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if (not key.startswith(".") and isinstance(inner, str) and inner.startswith("./")
                        and inner[2:] in tracked and inner.endswith((".ts", ".tsx", ".mts", ".cts"))):
                    found.add(key)
                visit(inner)

    visit(exports)
    return sorted(found - {"types", "import", "require", "default", "node"})


def checker_truth(repo: Path, cache: Path) -> dict[str, Any]:
    """Every bound use the TypeScript checker sees in the tracked JS/TS files of ``repo``."""
    package = install_typescript(cache)
    listed = sorted(path for path in git(repo, "ls-files", *SUFFIXES).split() if ".d." not in path)
    script = cache / "js-resolver-truth" / "bind_uses.cjs"
    script.write_text(CHECKER, encoding="utf-8")
    started = time.perf_counter()
    done = subprocess.run(["node", "--max-old-space-size=4096", str(script), str(package), str(repo)],
                          input=json.dumps({"files": listed, "conditions": source_conditions(repo, set(listed))}),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the checker failed on {repo}: {done.stderr[-1200:]}")
    found: dict[str, Any] = json.loads(done.stdout)
    found["seconds"] = round(time.perf_counter() - started, 1)
    return found


def _definition_at(index: Index, path: str, line: int, name: str) -> int | None:
    """The innermost index definition of ``path`` named ``name`` whose range holds ``line``."""
    best = None
    for definition in index.by_path.get(path, ()):
        if definition.name == name and definition.start <= line <= definition.end and (
                best is None or definition.start >= best.start):
            best = definition
    return best.number if best is not None else None


def _module_of(index: Index, path: str) -> int | None:
    for definition in index.by_path.get(path, ()):
        if definition.kind == "module":
            return definition.number
    return None


def true_edges(index: Index, found: dict[str, Any]) -> tuple[list[resolver.Edge], dict[tuple[str, int], set[int]],
                                                             dict[str, Any]]:
    """The checker's bound uses as the scorer's edges (a site is one line), the callees of every
    call site by (path, line) for precision, and the tallies (what could not be mapped, by why)."""
    ran: dict[tuple[str, int], set[int]] = defaultdict(set)
    edges: list[resolver.Edge] = []
    tally: Counter[str] = Counter(found["tally"])
    seen: set[tuple[int, int, str, int]] = set()
    unmapped: Counter[str] = Counter()
    absent: dict[bool, set[tuple[str, int, str, str, int, str]]] = {False: set(), True: set()}
    for path, line, role, callee_path, callee_line, callee_name, owner_line, owner_name in found["sites"]:
        callee = _definition_at(index, callee_path, callee_line, callee_name)
        if callee is None:  # a definition the layer does not have: its true pairs are every engine's misses
            tally["callee_not_in_index"] += 1
            unmapped[f"callee {callee_path}:{callee_line} {callee_name}"] += 1
            absent[is_test_path(path)].add((path, owner_line, owner_name, callee_path, callee_line, callee_name))
            continue
        caller = _module_of(index, path) if not owner_name else _definition_at(index, path, owner_line, owner_name)
        if caller is None:
            tally["caller_not_in_index"] += 1
            unmapped[f"caller {path}:{owner_line} {owner_name}"] += 1
            continue
        if role in ("call", "new"):
            ran[(path, line)].add(callee)
        key = (caller, callee, path, line)
        if key not in seen:
            seen.add(key)
            edges.append(resolver.Edge(caller, callee, path, line, line, is_test_path(path)))
    tally["edges"] = len(edges)
    tally["absent_pairs_non_test"], tally["absent_pairs_test"] = len(absent[False]), len(absent[True])
    return edges, ran, {**tally, "unmapped_examples": [f"{n}x {k}" for k, n in unmapped.most_common(12)]}


def _calls(refs: list[Ref]) -> list[Ref]:
    """``instantiate`` rows (``new C()`` → C) scored as the calls they are."""
    return [(p, line, "call" if role == "instantiate" else role, d, name, e) for p, line, role, d, name, e in refs]


def wrong(index: Index, edges: list[resolver.Edge], refs: list[Ref], limit: int) -> list[str]:
    """Sites where a bound row of the true callee's name binds another definition, or credits
    another caller: the bound- and caller-accuracy failures, one line each."""
    by_site: dict[tuple[str, int], list[Ref]] = defaultdict(list)
    for ref in refs:
        if ref[3] is not None and ref[2] in resolver.PAIR_ROLES:
            by_site[(ref[0], ref[1])].append(ref)
    out: list[str] = []
    for edge in edges:
        callee = index.definitions[edge.callee]
        at = [r for r in by_site.get((edge.path, edge.start), ()) if index.definitions[r[3]].name == callee.name]  # type: ignore[index]
        if not at:
            continue
        if not any(r[3] == edge.callee for r in at):
            bound = index.definitions[at[0][3]]  # type: ignore[index]
            out.append(f"bound {edge.path}:{edge.start} {callee.qualname} ({callee.path}) as {bound.qualname} "
                       f"({bound.path})")
        elif not any(r[5] == edge.caller for r in at if r[3] == edge.callee):
            credited = index.definitions[next(r[5] for r in at if r[3] == edge.callee)]
            out.append(f"caller {edge.path}:{edge.start} {index.definitions[edge.caller].qualname} credited as "
                       f"{credited.qualname}")
        if len(out) >= limit:
            break
    return out


def causes(index: Index, edges: list[resolver.Edge], refs: list[Ref], repo: Path, split: bool
           ) -> dict[str, Any]:
    """The missed true pairs of one split by what the layer has at their site: no row of the
    callee's name (``no_row``; ``member`` when the name is written after a ``.``), a row left
    unbound (``unbound``), a row bound to another definition (``bound_elsewhere``), or the right
    binding credited to another caller (``other_caller``); each with a count and three examples."""
    pairs = {(r[5], r[3]) for r in refs if r[3] is not None and r[2] in resolver.PAIR_ROLES}
    by_site: dict[tuple[str, int], list[Ref]] = defaultdict(list)
    for ref in refs:
        by_site[(ref[0], ref[1])].append(ref)
    lines: dict[str, list[str]] = {}
    counted: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    done: set[tuple[int, int]] = set()
    for edge in edges:
        if edge.test != split or (edge.caller, edge.callee) in pairs or (edge.caller, edge.callee) in done:
            continue
        done.add((edge.caller, edge.callee))
        callee = index.definitions[edge.callee]
        if edge.path not in lines:
            lines[edge.path] = (repo / edge.path).read_text(errors="replace").splitlines()
        text = lines[edge.path][edge.start - 1]
        named = [r for r in by_site.get((edge.path, edge.start), ()) if r[4] == callee.name or (
            r[3] is not None and index.definitions[r[3]].name == callee.name)]
        if not named:
            cause = "no_row_member" if f".{callee.name}" in text else "no_row"
        elif all(r[3] is None for r in named):
            cause = "unbound_member" if f".{callee.name}" in text else "unbound"
        elif not any(r[3] == edge.callee for r in named):
            cause = "bound_elsewhere"
        else:
            cause = "other_caller"
        counted[cause] += 1
        if len(examples[cause]) < 3:
            examples[cause].append(f"{edge.path}:{edge.start} {callee.qualname} | {text.strip()[:90]}")
    return {cause: {"pairs": n, "examples": examples[cause]} for cause, n in counted.most_common()}


def measure(subject: Subject, cache: Path, show: int) -> dict[str, Any]:
    meta = prepare(subject, cache)
    repo = Path(meta["repo"])
    path, counts = resolver.derived_twice(meta)
    index = Index(path)
    found = checker_truth(repo, cache)
    edges, ran, tally = true_edges(index, found)
    refs = _calls(index.references)
    result: dict[str, Any] = {"subject": f"{subject.name} {subject.version}", "files": found["files"],
                              "checker_seconds": found["seconds"], "truth": tally, "resolved": counts}
    result["graph"] = resolver.score(index, edges, ran, index.graph)
    result["resolved_layer"] = resolver.score(index, edges, ran, refs)
    result["graph+resolved"] = resolver.score(index, edges, ran, refs, also=index.graph)
    for engine in ("graph", "resolved_layer", "graph+resolved"):
        for split in ("non_test", "test"):
            figures, missing = result[engine][split], tally[f"absent_pairs_{split}"]
            found_pairs = round((figures["recall"] or 0) * figures["pairs"])
            figures["absent_pairs"] = missing
            figures["recall"] = resolver._ratio(found_pairs, figures["pairs"] + missing)
    result["causes"] = {"non_test": causes(index, edges, refs, repo, False),
                        "test": causes(index, edges, refs, repo, True)}
    if show:
        result["misses"] = resolver.misses(index, [e for e in edges if not e.test], refs, repo, show)
        result["test_misses"] = resolver.misses(index, [e for e in edges if e.test], refs, repo, show)
        result["wrong"] = wrong(index, edges, refs, show)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subjects", default=",".join(s.name for s in SUBJECTS))
    parser.add_argument("--cache-dir", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--misses", type=int, default=0, help="list this many misses and wrong bindings")
    args = parser.parse_args()
    known = {s.name: s for s in SUBJECTS}
    results = [measure(known[name], args.cache_dir, args.misses) for name in args.subjects.split(",")]
    text = json.dumps({"targets": resolver.TARGETS, "typescript": TYPESCRIPT, "results": results}, indent=1)
    if args.out is not None:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
