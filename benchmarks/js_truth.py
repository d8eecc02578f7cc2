"""An independent caller ground truth for JavaScript and TypeScript: real parsers over a commit.

``benchmarks/context.py`` scores the composed ``usage`` callers and the seed's ``impact`` against a
truth that does not come from the provider. For Python that is an ``ast`` walk; for JavaScript it
is this: ``acorn`` parses every tracked ``.js``/``.cjs``/``.mjs`` file of the checkout and
``@babel/parser`` (``typescript`` and ``estree`` plugins: the same tree shapes) every ``.ts``/
``.tsx``/``.mts``/``.cts`` one (both pinned, installed once with ``npm install --prefix
<cache>/js-truth``), and a small node script (written here at run time) walks each syntax tree,
recording

* **definitions**: every name a function or class is defined under (function and class
  declarations, class methods, ``const f = () => ...`` / ``function`` expressions, object-literal
  functions and methods, ``x.f = function ...`` assignments, named function expressions), counted;
* **uses**: ``(path, owners, name)`` for every call ``name(...)``, ``obj.name(...)``,
  ``new name(...)``, ``name.call/apply/bind(...)``, and every identifier ``name`` passed as a call
  argument (a callback), where ``owners`` are the enclosing *named* definitions, outermost first,
  after ``<module>`` (anonymous callbacks and arrows belong to the function they are written in).
  The strict caller is the nearest one; the lenient score also accepts an enclosing one, since
  the provider names nested named callbacks (``function executor(...)`` inside a method) by
  their outer declaration.

For benchmarks/tasks.py the same run also records every spelling of a name with its role (call,
``new``, ``throw``, ``instanceof`` in a ``catch``, import/require, extends, definition, string),
every definition's line range, class and superclass, and the names a file binds to a package.

Limits (stated in docs/benchmarks.md): it is name-based (``obj.name(`` counts whatever ``obj``
is, hence the targets are names defined once); declaration files (``*.d.ts``, ``*.d.cts``)
carry no bodies and are not parsed; a file the parser refuses is counted and skipped.
"""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

ACORN = "acorn@8.14.0"
BABEL = "@babel/parser@7.26.3"  # TypeScript, as ESTree (its `estree` plugin), so one walker serves both
MODULE_OWNER = "<module>"
SUFFIXES = ("*.js", "*.cjs", "*.mjs", "*.ts", "*.tsx", "*.mts", "*.cts")

WALKER = r"""
const fs = require('fs');
const path = require('path');
const acorn = require(process.argv[2]);
const babel = require(process.argv[3]);
const repo = process.argv[4];
const files = JSON.parse(fs.readFileSync(0, 'utf8'));
const definitions = {};
const uses = [];
const unparsed = [];

function keyName(key) {
  if (!key) return null;
  if (key.type === 'Identifier') return key.name;
  if (key.type === 'PrivateIdentifier') return key.name;
  if (key.type === 'Literal' && typeof key.value === 'string') return key.value;
  return null;
}
const isFunction = (n) => n && (n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression');

// The name a node defines, if it is a named function, class or method.
function definedName(node) {
  switch (node.type) {
    case 'FunctionDeclaration': case 'ClassDeclaration': case 'ClassExpression':
      return node.id ? node.id.name : null;
    case 'FunctionExpression':
      return node.id ? node.id.name : null;
    case 'MethodDefinition': case 'PropertyDefinition':
      return (node.value && (isFunction(node.value) || node.type === 'MethodDefinition')) ? keyName(node.key) : null;
    case 'Property':
      return isFunction(node.value) ? keyName(node.key) : null;
    case 'VariableDeclarator':
      if (node.id.type !== 'Identifier' || !node.init) return null;
      return (isFunction(node.init) || node.init.type === 'ClassExpression') ? node.id.name : null;
    case 'AssignmentExpression':
      if (!isFunction(node.right)) return null;
      if (node.left.type === 'Identifier') return node.left.name;
      if (node.left.type === 'MemberExpression' && !node.left.computed) return keyName(node.left.property);
      return null;
    default:
      return null;
  }
}

function calledName(callee) {
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && !callee.computed) {
    const property = keyName(callee.property);
    if (['call', 'apply', 'bind'].includes(property) && callee.object.type === 'Identifier') return callee.object.name;
    return property;
  }
  return null;
}

function visit(node, owner, file) {
  if (!node || typeof node.type !== 'string') return;
  const defined = definedName(node);
  if (defined !== null) definitions[defined] = (definitions[defined] || 0) + 1;
  if (node.type === 'CallExpression' || node.type === 'NewExpression') {
    const name = calledName(node.callee);
    if (name !== null) uses.push([file, owner, name, 'call']);
    for (const argument of node.arguments) {
      if (argument.type === 'Identifier') uses.push([file, owner, argument.name, 'argument']);
    }
  }
  const inner = defined !== null ? owner.concat([defined]) : owner;
  for (const key of Object.keys(node)) {
    if (key === 'type' || key === 'start' || key === 'end') continue;
    const value = node[key];
    if (Array.isArray(value)) for (const child of value) visit(child, inner, file);
    else if (value && typeof value === 'object') visit(value, inner, file);
  }
}


// ---- occurrences with roles and definition ranges (benchmarks/tasks.py) ----------------------
const occurrences = [];  // [file, line, name, role, form, owners]
const ranges = [];       // [file, name, startLine, endLine, kind, className, superName]
const externals = [];    // [file, name]: a name bound by require()/import of a package, not a file
const line = (n) => (n.loc ? n.loc.start.line : 0);
const endLine = (n) => (n.loc ? n.loc.end.line : 0);
const isRequire = (n) => n && n.type === 'CallExpression' && n.callee.type === 'Identifier'
  && n.callee.name === 'require'
  && n.arguments.length === 1 && n.arguments[0].type === 'Literal' && typeof n.arguments[0].value === 'string';
const external = (source) => typeof source === 'string' && !source.startsWith('.') && !source.startsWith('/');
const superName = (n) => !n ? null : n.type === 'Identifier' ? n.name
  : (n.type === 'MemberExpression' && !n.computed) ? keyName(n.property) : null;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

function emit(file, node, name, role, form, owner) {
  if (name) occurrences.push([file, line(node), name, role, form, owner]);
}

// The role of the callee of a call-like node, given how the call is used.
function calleeRole(node, context) {
  if (context === 'raise') return 'raise';
  return node.type === 'NewExpression' ? 'instantiation' : 'call';
}

function roles(node, parent, key, owner, file, state, role) {
  if (!node || typeof node.type !== 'string') return;
  const defined = definedName(node);
  if (defined !== null) {
    let kind = 'function', cls = null, sup = null;
    if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression'
        || (node.type === 'VariableDeclarator' && node.init && node.init.type === 'ClassExpression')) {
      kind = 'class';
      sup = superName(node.type === 'VariableDeclarator' ? node.init.superClass : node.superClass);
    }
    else if ((node.type === 'MethodDefinition' || node.type === 'PropertyDefinition') && state.classes.length) {
      kind = 'method';
      cls = state.classes[state.classes.length - 1][0];
      sup = state.classes[state.classes.length - 1][1];
    }
    ranges.push([file, defined, line(node), endLine(node), kind, cls, sup]);
    const at = node.type === 'AssignmentExpression' ? node.left.property || node.left
      : node.key || node.id || node;
    // A named function expression assigned to a property defines one thing, not two.
    if (!(node.type === 'FunctionExpression' && parent
          && (parent.type === 'AssignmentExpression' || parent.type === 'Property'
          || parent.type === 'MethodDefinition' || parent.type === 'VariableDeclarator'))) {
      emit(file, at, defined, 'definition', 'def', owner);
    }
  }
  const inner = defined !== null ? owner.concat([defined]) : owner;
  switch (node.type) {
    case 'Identifier':
      if (role !== 'param') emit(file, node, node.name, role || 'reference', 'id', owner);
      return;
    case 'Literal':
      if (typeof node.value === 'string' && IDENTIFIER.test(node.value)) {
        emit(file, node, node.value.split('.').pop(), 'string', 'str', owner);
      }
      return;
    case 'TemplateLiteral':
      for (const expression of node.expressions) roles(expression, node, 'expressions', owner, file, state);
      return;
    case 'ImportDeclaration':
      for (const specifier of node.specifiers) {
        const imported = specifier.imported ? keyName(specifier.imported) : specifier.local.name;
        emit(file, specifier, imported, 'import', 'id', owner);
        if (external(node.source.value)) externals.push([file, specifier.local.name]);
      }
      return;
    case 'VariableDeclarator':
      if (isRequire(node.init)) {
        const source = node.init.arguments[0].value;
        if (node.id.type === 'Identifier') {
          emit(file, node.id, node.id.name, 'import', 'id', owner);
          if (external(source)) externals.push([file, node.id.name]);
        } else if (node.id.type === 'ObjectPattern') {
          for (const property of node.id.properties) {
            const name = property.key ? keyName(property.key) : null;
            emit(file, property, name, 'import', 'id', owner);
            if (external(source) && property.value && property.value.type === 'Identifier') {
              externals.push([file, property.value.name]);
            }
          }
        }
        return;
      }
      if (node.init) roles(node.init, node, 'init', inner, file, state);
      return;  // the bound name is a declaration (a definition is emitted above), not a use
    case 'CallExpression': case 'NewExpression':
      roles(node.callee, node, 'callee', owner, file, state, calleeRole(node, role));
      for (const argument of node.arguments) roles(argument, node, 'arguments', owner, file, state);
      if (node.typeArguments || node.typeParameters) {
        roles(node.typeArguments || node.typeParameters, node, 'types', owner, file, state);
      }
      return;
    case 'MemberExpression':
      roles(node.object, node, 'object', owner, file, state);
      if (node.computed) roles(node.property, node, 'property', owner, file, state);
      else emit(file, node.property, keyName(node.property), role || 'reference', 'prop', owner);
      return;
    case 'ThrowStatement':
      if (node.argument && (node.argument.type === 'NewExpression' || node.argument.type === 'CallExpression')) {
        roles(node.argument, node, 'argument', owner, file, state, 'raise');
      } else {
        roles(node.argument, node, 'argument', owner, file, state, 'raise');
      }
      return;
    case 'CatchClause': {
      const deeper = {...state, catchDepth: state.catchDepth + 1};
      roles(node.body, node, 'body', owner, file, deeper);
      return;
    }
    case 'BinaryExpression':
      roles(node.left, node, 'left', owner, file, state);
      roles(node.right, node, 'right', owner, file, state,
            node.operator === 'instanceof' && state.catchDepth > 0 ? 'except' : undefined);
      return;
    case 'ClassDeclaration': case 'ClassExpression': {
      const declared = parent && parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier';
      const name = node.id ? node.id.name : (declared ? parent.id.name : null);
      if (node.superClass) roles(node.superClass, node, 'superClass', owner, file, state, 'inherit');
      for (const implemented of node.implements || []) {
        roles(implemented, node, 'implements', owner, file, state, 'inherit');
      }
      const deeper = {...state, classes: state.classes.concat([[name, superName(node.superClass)]])};
      roles(node.body, node, 'body', inner, file, deeper);
      return;
    }
    case 'MethodDefinition': case 'PropertyDefinition':
      if (node.computed) roles(node.key, node, 'key', owner, file, state);
      roles(node.value, node, 'value', inner, file, state);
      return;
    case 'Property':
      if (node.computed) roles(node.key, node, 'key', owner, file, state);
      if (node.shorthand) { roles(node.value, node, 'value', owner, file, state); return; }
      roles(node.value, node, 'value', defined !== null ? inner : owner, file, state);
      return;
    case 'FunctionDeclaration': case 'FunctionExpression': case 'ArrowFunctionExpression':
      for (const param of node.params) roles(param, node, 'params', inner, file, state, 'param');
      roles(node.body, node, 'body', inner, file, state);
      return;
    case 'AssignmentPattern':
      if (role !== 'param') roles(node.left, node, 'left', owner, file, state);
      roles(node.right, node, 'right', owner, file, state);
      return;
    case 'AssignmentExpression':
      if (defined !== null && node.left.type === 'MemberExpression') {
        roles(node.left.object, node.left, 'object', owner, file, state);
        roles(node.right, node, 'right', inner, file, state);
        return;
      }
      break;
    default:
      break;
  }
  if (role === 'param' && node.type !== 'AssignmentPattern') return;  // a parameter binds a name, uses none
  for (const child of Object.keys(node)) {
    if (child === 'type' || child === 'start' || child === 'end' || child === 'loc' || child === 'range') continue;
    const value = node[child];
    if (Array.isArray(value)) for (const item of value) roles(item, node, child, inner, file, state);
    else if (value && typeof value === 'object') roles(value, node, child, inner, file, state);
  }
}

for (const file of files) {
  const text = fs.readFileSync(path.join(repo, file), 'utf8');
  let tree = null;
  for (const sourceType of ['module', 'script']) {
    try {
      if (/\.[cm]?tsx?$/.test(file)) {
        const plugins = ['estree', /x$/.test(file) ? 'jsx' : null, 'typescript', 'decorators-legacy'];
        tree = babel.parse(text, {sourceType, plugins: plugins.filter(Boolean)}).program;
      } else {
        tree = acorn.parse(text, {ecmaVersion: 'latest', sourceType, allowHashBang: true, locations: true});
      }
      break;
    } catch (error) { tree = null; }
  }
  if (tree === null) { unparsed.push(file); continue; }
  visit(tree, ['<module>'], file);
  roles(tree, null, null, ['<module>'], file, {catchDepth: 0, classes: []});
}
process.stdout.write(JSON.stringify({definitions, uses, unparsed, parsed: files.length - unparsed.length,
                                     occurrences, ranges, externals}));
"""


@dataclass(frozen=True)
class JsTruth:
    """What the parser found in one checkout."""

    definitions: dict[str, int]
    uses: tuple[tuple[str, tuple[str, ...], str, str], ...]
    parsed: int
    unparsed: tuple[str, ...]
    # For benchmarks/tasks.py: every spelling of a name with its role (call, instantiation,
    # reference, import, raise, except, inherit, definition, string), its form (``id``, ``prop``
    # for ``x.name``, ``str``, ``def``) and enclosing named definitions; every definition's range
    # (file, name, start, end, kind, class, superclass); names a file binds to a package.
    occurrences: tuple[tuple[str, int, str, str, str, tuple[str, ...]], ...] = ()
    ranges: tuple[tuple[str, str, int, int, str, str | None, str | None], ...] = ()
    externals: frozenset[tuple[str, str]] = frozenset()

    def callers(self, name: str) -> set[tuple[str, str]]:
        """(path, owner) of every definition (or module top level) that calls or passes ``name``:
        the nearest enclosing named definition."""
        return {(path, chain[-1]) for path, chain, used, _ in self.uses if used == name}

    def sites(self, name: str) -> set[tuple[str, tuple[str, ...]]]:
        """(path, enclosing named definitions, outermost first) of every use of ``name``: a caller
        named at a coarser granularity (the outer function of a nested named callback) is still
        about this site."""
        return {(path, chain) for path, chain, used, _ in self.uses if used == name}


def parser_packages(cache: Path) -> tuple[Path, Path]:
    """Where the pinned acorn and @babel/parser packages live under ``cache``."""
    modules = cache / "js-truth" / "node_modules"
    return modules / "acorn", modules / "@babel" / "parser"


def parsers_installed(cache: Path) -> bool:
    return all((package / "package.json").is_file() for package in parser_packages(cache))


def install_parsers(cache: Path) -> tuple[Path, Path]:
    """The pinned acorn and @babel/parser package directories under ``cache`` (npm, once)."""
    prefix = cache / "js-truth"
    packages = parser_packages(cache)
    if not parsers_installed(cache):
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-save", "--silent", ACORN, BABEL],
                       check=True, stdout=subprocess.DEVNULL)
    return packages


@functools.cache
def parse_checkout(repo: Path, cache: Path) -> JsTruth:
    """Run the walker over every tracked JavaScript file of ``repo`` (one commit, clean)."""
    acorn, babel = install_parsers(cache)
    listed = [path for path in subprocess.run(["git", "-C", str(repo), "ls-files", *SUFFIXES], capture_output=True,
                                              text=True, check=True).stdout.split() if ".d." not in path]
    script = cache / "js-truth" / "walk_callers.cjs"
    script.write_text(WALKER, encoding="utf-8")
    done = subprocess.run(["node", str(script), str(acorn), str(babel), str(repo)], input=json.dumps(sorted(listed)),
                          capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    uses = tuple((path, tuple(chain), name, kind) for path, chain, name, kind in found["uses"])
    occurrences = tuple((path, line, name, role, form, tuple(chain))
                        for path, line, name, role, form, chain in found["occurrences"])
    ranges = tuple(tuple(entry) for entry in found["ranges"])
    return JsTruth(found["definitions"], uses, found["parsed"], tuple(found["unparsed"]), occurrences,
                   ranges, frozenset((path, name) for path, name in found["externals"]))  # type: ignore[arg-type]
