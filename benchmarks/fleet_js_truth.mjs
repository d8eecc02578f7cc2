// The ground truth of benchmarks/fleet_resolved_js.py (its docstring says what it records): run by
// node with the pinned acorn and @babel/parser, over a node_modules of symlinks to the members.
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { pathToFileURL, fileURLToPath } from 'url';

const [acornPath, babelPath, anchorDir] = process.argv.slice(2);
const load = createRequire(import.meta.url);
const acorn = load(acornPath);
const babel = load(babelPath);
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const { resolve: esmResolve } = await import(pathToFileURL(path.join(anchorDir, 'anchor.mjs')).href);
const cjsResolve = createRequire(path.join(anchorDir, 'anchor.cjs')).resolve;
const members = input.members.map((m) => ({ ...m, real: fs.realpathSync(m.dir) + path.sep }));
const packages = new Set(members.map((m) => m.name));
const SKIP = new Set(['loc', 'start', 'end', 'range', 'extra', 'leadingComments', 'trailingComments',
                      'innerComments', 'comments', 'tokens']);

function memberOf(file) {
  const real = fs.realpathSync(file);
  const m = members.find((m) => real.startsWith(m.real));
  return m ? [m, real.slice(m.real.length).split(path.sep).join('/')] : null;
}
function packageOf(spec) {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.includes(':')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
const parsed = new Map();
function parse(file) {
  if (parsed.has(file)) return parsed.get(file);
  let tree = null;
  const text = fs.readFileSync(file, 'utf8');
  for (const sourceType of ['module', 'script']) {
    try {
      if (/\.[cm]?tsx?$/.test(file)) {
        const plugins = ['estree', /x$/.test(file) ? 'jsx' : null, 'typescript', 'decorators-legacy'];
        tree = babel.parse(text, { sourceType, plugins: plugins.filter(Boolean) }).program;
      } else {
        tree = acorn.parse(text, { ecmaVersion: 'latest', sourceType, allowHashBang: true, locations: true });
      }
      break;
    } catch (error) { tree = null; }
  }
  parsed.set(file, tree);
  return tree;
}
function children(node) {
  const out = [];
  for (const key of Object.keys(node)) {
    if (SKIP.has(key)) continue;
    const value = node[key];
    if (Array.isArray(value)) { for (const v of value) if (v && typeof v.type === 'string') out.push([key, v]); }
    else if (value && typeof value.type === 'string') out.push([key, value]);
  }
  return out;
}
const isFn = (n) => n && ['FunctionExpression', 'ArrowFunctionExpression', 'ClassExpression'].includes(n.type);
const isRequire = (n) => n && n.type === 'CallExpression' && n.callee.type === 'Identifier' && n.callee.name === 'require'
  && n.arguments.length === 1 && typeof n.arguments[0].value === 'string';
const propName = (k) => k && (k.type === 'Identifier' ? k.name : (typeof k.value === 'string' ? k.value : null));

function methodsOf(cls) {
  const methods = Object.create(null);
  for (const m of (cls.body && cls.body.body) || []) {
    const name = propName(m.key);
    if (name && (m.type === 'MethodDefinition' || m.type === 'TSDeclareMethod' ||
                 (m.type === 'PropertyDefinition' && isFn(m.value) && m.value.type !== 'ClassExpression'))) {
      if (!(name in methods)) methods[name] = m.loc.start.line;
    }
  }
  return methods;
}
const factsCache = new Map();
function facts(file) {
  if (factsCache.has(file)) return factsCache.get(file);
  const tree = parse(file);
  const map = () => Object.create(null);
  const f = { decls: map(), imports: map(), exports: map(), stars: [], whole: null, props: map(), obj: null };
  factsCache.set(file, f);
  if (!tree) return f;
  const declare = (d, line) => {
    if (!d) return [];
    if ((d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration' || d.type === 'TSDeclareFunction') && d.id) {
      if (!(d.id.name in f.decls) || d.body) f.decls[d.id.name] = { name: d.id.name, line, kind: d.type.startsWith('Class') ? 'class' : 'function', methods: d.type === 'ClassDeclaration' ? methodsOf(d) : map() };
      return [d.id.name];
    }
    if (d.type === 'VariableDeclaration') {
      const names = [];
      for (const v of d.declarations) {
        if (v.id.type !== 'Identifier') continue;
        names.push(v.id.name);
        if (isFn(v.init)) f.decls[v.id.name] = { name: v.id.name, line: d === v ? v.loc.start.line : line, kind: v.init.type === 'ClassExpression' ? 'class' : 'function', methods: v.init.type === 'ClassExpression' ? methodsOf(v.init) : map() };
        else if (isRequire(v.init)) f.imports[v.id.name] = { source: v.init.arguments[0].value, imported: '*cjs', cond: 'require' };
      }
      return names;
    }
    return [];
  };
  for (const st of tree.body) {
    const line = st.loc.start.line;
    if (st.type === 'ImportDeclaration') {
      for (const s of st.specifiers) {
        const imported = s.type === 'ImportDefaultSpecifier' ? 'default' : s.type === 'ImportNamespaceSpecifier' ? '*' : propName(s.imported);
        f.imports[s.local.name] = { source: st.source.value, imported, cond: 'import' };
      }
    } else if (st.type === 'ExportNamedDeclaration') {
      if (st.declaration) for (const n of declare(st.declaration, line)) f.exports[n] = { local: n };
      for (const s of st.specifiers || []) {
        const exported = propName(s.exported);
        f.exports[exported] = st.source ? { source: st.source.value, imported: propName(s.local), cond: 'import' } : { local: s.local.name };
      }
    } else if (st.type === 'ExportAllDeclaration') {
      if (st.exported) f.exports[propName(st.exported)] = { source: st.source.value, imported: '*', cond: 'import' };
      else f.stars.push(st.source.value);
    } else if (st.type === 'ExportDefaultDeclaration') {
      const d = st.declaration;
      if (d.type === 'Identifier') f.exports.default = { local: d.name };
      else if (d.id) { declare(d, line); f.exports.default = { local: d.id.name }; }
    } else if (st.type === 'ExpressionStatement' && st.expression.type === 'AssignmentExpression') {
      const { left, right } = st.expression;
      const text = (n) => n.type === 'Identifier' ? n.name : n.type === 'MemberExpression' && !n.computed ? `${text(n.object)}.${propName(n.property)}` : '?';
      const written = text(left);
      if (written === 'module.exports') {
        if (right.type === 'Identifier') f.whole = { local: right.name };
        else if (right.type === 'ObjectExpression') {
          f.obj = Object.create(null);
          for (const p of right.properties) if (p.type === 'Property' && p.value.type === 'Identifier') f.obj[propName(p.key)] = { local: p.value.name };
          f.whole = { object: true };
        }
      } else if ((written.startsWith('module.exports.') || written.startsWith('exports.')) && right.type === 'Identifier') {
        f.props[written.split('.').pop()] = { local: right.name };
      }
    } else {
      declare(st, line);
    }
  }
  return f;
}
function resolveFrom(file, source, cond) {
  if (source.startsWith('.')) {
    const joined = path.resolve(path.dirname(file), source);
    const stem = joined.replace(/\.(c|m)?js$/, '');
    const tries = [joined, ...['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].flatMap((s) => [stem + s, joined + s]),
                   ...['.ts', '.tsx', '.js', '.mjs', '.cjs'].map((s) => path.join(joined, 'index' + s))];
    return tries.find((t) => fs.existsSync(t) && fs.statSync(t).isFile()) || null;
  }
  if (!packages.has(packageOf(source))) return null;
  try { return cond === 'require' ? cjsResolve(source) : fileURLToPath(esmResolve(source)); } catch (e) { return null; }
}
function follow(file, e, depth) {
  if (!e || depth > 20) return null;
  if (e.object) return { object: file };
  if (e.source) {
    const target = resolveFrom(file, e.source, e.cond);
    if (!target) return null;
    if (e.imported === '*') return { module: target };
    if (e.imported === '*cjs') return whole(target, depth + 1);
    return exported(target, e.imported, depth + 1);
  }
  const f = facts(file);
  if (f.decls[e.local]) return { def: { ...f.decls[e.local], file } };
  if (f.imports[e.local]) return follow(file, f.imports[e.local], depth + 1);
  return null;
}
function whole(file, depth) {
  const f = facts(file);
  return f.whole ? follow(file, f.whole, depth + 1) : { module: file };
}
function exported(file, name, depth) {
  if (depth > 20) return null;
  const f = facts(file);
  let e = f.exports[name] || (name === 'default' ? f.whole : null) || f.props[name] || (f.obj && f.obj[name]);
  if (e) return follow(file, e, depth + 1);
  if (name !== 'default') {
    for (const s of f.stars) {
      const target = resolveFrom(file, s, 'import');
      const found = target && exported(target, name, depth + 1);
      if (found) return found;
    }
  }
  return null;
}
function member(value, name) {
  if (!value) return null;
  if (value.module) return exported(value.module, name, 0);
  if (value.object) { const f = facts(value.object); return f.obj && f.obj[name] ? follow(value.object, f.obj[name], 1) : null; }
  return null;
}

// A definition found in a build output (build/, dist/: files the member's graph does not hold) is
// the definition of the same name in its TypeScript source, by the convention npm_entries.py
// states (build/modern/x.js -> src/modern/x.ts, then src/x.ts), its line read from the source.
const OUTPUT = /^(build|dist)\//;
function sourceDef(def, method) {
  const owner = memberOf(def.file);
  if (!owner || !OUTPUT.test(owner[1])) return method ? { ...def, line: def.methods[method] } : def;
  const parts = owner[1].split('/');
  for (let start = 1; start < parts.length; start++) {
    const stem = path.join(owner[0].dir, 'src', ...parts.slice(start)).replace(/\.(c|m)?js$/, '');
    for (const suffix of ['.ts', '.tsx']) {
      if (!fs.existsSync(stem + suffix)) continue;
      const found = facts(stem + suffix).decls[def.name];
      if (!found) return null;
      const line = method ? found.methods[method] : found.line;
      return line ? { ...found, file: stem + suffix, line } : null;
    }
  }
  return null;
}
const uses = [];
let unparsed = 0;
for (const user of input.users) {
  for (const rel of user.files) {
    const file = path.join(user.dir, rel);
    const tree = parse(file);
    if (!tree) { unparsed++; continue; }
    const bound = Object.create(null);
    const record = (line, value) => {
      if (!value || !value.def) return;
      const def = sourceDef(value.def, value.method);
      if (!def) return;
      const owner = memberOf(def.file);
      if (owner && owner[0].repository !== user.repository) uses.push([user.repository, rel, line, owner[0].repository, owner[1], def.line,
                                                    value.method || def.name]);
    };
    const constructorAt = (line, value) => {
      if (value && value.def && value.def.kind === 'class' && value.def.methods.constructor)
        record(line, { def: value.def, method: 'constructor' });
    };
    const importNodes = new Set();
    // A package import, or a relative one (whose re-exports may lead into another member's
    // package: `export * from '@tanstack/query-core'` in the user's own index).
    const bind = (local, source, imported, cond) => {
      const relative = source.startsWith('.');
      if (!relative && !packages.has(packageOf(source))) return;
      const target = resolveFrom(file, source, cond);
      if (!target) return;
      const m = memberOf(target);
      if (!m || (!relative && m[0].repository === user.repository)) return;
      const value = imported === '*' ? { module: target } : imported === '*cjs' ? whole(target, 0) : exported(target, imported, 0);
      if (!value) return;
      bound[local.name] = value;
      importNodes.add(local);
      record(local.loc.start.line, value);
    };
    (function scan(node) {
      if (node.type === 'ImportDeclaration') {
        for (const s of node.specifiers) bind(s.local, node.source.value, s.type === 'ImportDefaultSpecifier' ? 'default' : s.type === 'ImportNamespaceSpecifier' ? '*' : propName(s.imported), 'import');
        return;
      }
      if (node.type === 'VariableDeclarator' && isRequire(node.init)) {
        const source = node.init.arguments[0].value;
        if (node.id.type === 'Identifier') bind(node.id, source, '*cjs', 'require');
        else if (node.id.type === 'ObjectPattern') for (const p of node.id.properties) if (p.type === 'Property' && p.value.type === 'Identifier') bind(p.value, source, propName(p.key), 'require');
      }
      for (const [, child] of children(node)) scan(child);
    })(tree);
    if (!Object.keys(bound).length) continue;
    (function walk(node, parent, key) {
      if (node.type.startsWith('TS') && !['TSAsExpression', 'TSNonNullExpression', 'TSSatisfiesExpression', 'TSTypeAssertion'].includes(node.type)) return;
      if (node.type === 'ImportDeclaration') return;
      if (node.type === 'MemberExpression' && !node.computed && node.object.type === 'Identifier' && node.object.name in bound) {
        const held = bound[node.object.name];
        if (held.def) { record(node.object.loc.start.line, held); return; }  // a property of the definition itself
        const value = member(held, propName(node.property));
        record(node.property.loc.start.line, value);
        if (parent && parent.type === 'NewExpression' && key === 'callee') constructorAt(node.property.loc.start.line, value);
        return;
      }
      if (node.type === 'Identifier' && node.name in bound && !importNodes.has(node)) {
        const declaration = parent && ((parent.type === 'VariableDeclarator' && key === 'id') || (parent.type.includes('Function') && key === 'params')
          || (parent.type === 'Property' && key === 'key' && !parent.shorthand) || (parent.type === 'MemberExpression' && key === 'property' && !parent.computed)
          || ((parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && key === 'key'));
        if (!declaration) {
          record(node.loc.start.line, bound[node.name]);
          if (parent && parent.type === 'NewExpression' && key === 'callee') constructorAt(node.loc.start.line, bound[node.name]);
        }
        return;
      }
      for (const [k, child] of children(node)) walk(child, node, k);
    })(tree, null, null);
  }
}
process.stdout.write(JSON.stringify({ uses, unparsed }));
