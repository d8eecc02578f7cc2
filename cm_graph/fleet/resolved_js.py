"""Resolved cross-repository uses for JavaScript and TypeScript: the members' JS/TS files resolved
together, so that ``const compose = require('koa-compose')`` in one member binds to the function
another member's ``index.js`` defines, at every line that calls it.

The same way as Python's (``resolved_uses.py``): the index's own resolver (``index/jsresolve.py``:
its scope, import, re-export, namespace and default-object rules; nothing run) over the union of
the covered members' JS/TS files, each member's paths under a prefix of its own number, with one
thing a member alone lacks: a bare specifier (``koa-compose``, ``@tanstack/query-core``,
``koa/lib/request``) names the member whose ``package.json`` declares that ``name``, and the file
its ``exports``/``module``/``main``/``index`` gives (``npm_entries.py``: Node's rule, read from the
bound commit). A specifier no member declares stays external. Two members declaring one name are
not chosen between: the site gets a row for each member's copy (the definition of the same name
at the same path), and the answer calls it ambiguous.
"""

from __future__ import annotations

from typing import Any

from ..index.jsresolve import resolve_javascript
from ..index.jsscope import module_name
from .npm_entries import entry_file, split_specifier
from .resolved_uses import MemberPackage, MemberSources, UseRow, inner_name, prefixed_sources, scip_symbol, written_at


def resolved_js_uses(sources: list[MemberSources], members: dict[int, MemberPackage],
                     manifests: dict[int, dict[str, Any]]) -> list[UseRow]:
    """The JS/TS ``uses`` rows of these members (``manifests``: each npm member's parsed
    ``package.json``, by member number)."""
    contents, owner = prefixed_sources(sources)
    if not contents:
        return []
    declaring: dict[str, list[int]] = {}
    for number in sorted(manifests):
        ecosystem, package, _version, _root = members[number]
        if ecosystem == "npm" and package:
            declaring.setdefault(package, []).append(number)
    paths = frozenset(contents)
    entries: dict[tuple[str, str], str | None] = {}  # one look-up per (specifier, condition)

    def bare(_importer: str, spec: str, condition: str) -> str | None:
        key = (spec, condition)
        if key not in entries:
            split = split_specifier(spec)
            numbers = declaring.get(split[0], []) if split is not None else []
            entries[key] = entry_file(manifests[numbers[0]], str(numbers[0]), split[1], condition, paths) \
                if split is not None and numbers else None  # no member declares it: external
        return entries[key]

    layer = resolve_javascript(contents.items(), bare, reads=True)
    files = [row[0] for row in layer.files]
    module_of_file = {row[0]: row[2] for row in layer.files}
    definitions = {row[0]: row for row in layer.definitions}
    by_inner: dict[tuple[str, str], int] = {}
    for number, file, _parent, _kind, _name, qualname, *_rest in layer.definitions:
        path = files[file - 1]
        by_inner[(path, inner_name(qualname, module_of_file[path]))] = number
    imported = _imported_names(layer, files, definitions)
    lines: dict[str, list[bytes]] = {}
    rows: list[UseRow] = []
    for file, line, column, role, target, name, _enclosing in layer.references:
        if target is None:
            continue
        path = files[file - 1]
        using = owner[path][0]
        defined = definitions[target]
        target_path = files[defined[1] - 1]
        target_member, relative = owner[target_path]
        if target_member == using or defined[3] == "module":
            continue
        package = members[target_member][1]
        inner = inner_name(defined[5], module_of_file[target_path])
        copies = [n for n in declaring.get(package, []) if n != using] or [target_member]
        if path not in lines:
            content = contents[path]
            lines[path] = content.splitlines() if isinstance(content, bytes) else []
        form, written = _form(role, written_at(lines[path], line, column, name), imported.get(path, {}), defined[3])
        for copy in copies:
            found = by_inner.get((f"{copy}/{relative}", inner))
            if found is None:
                continue
            candidate = definitions[found]
            ecosystem, package, version, root = members[copy]
            if ecosystem != "npm" or not root:
                continue  # a member that declares no npm package: nothing is package-qualified
            rows.append((
                candidate[4], using, owner[path][1], line, column, role, form, written, "",
                copy, relative, candidate[7], ".".join(p for p in (module_name(relative), inner) if p),
                scip_symbol(ecosystem, package, version, relative, inner, candidate[3]),
            ))
    return rows


def _imported_names(layer: Any, files: list[str], definitions: dict[int, Any]) -> dict[str, dict[str, str]]:
    """Per file, each name its imports bind, with the kind of what it binds to (``module`` for a
    namespace or a ``require`` of a file's exports, else the definition's own name)."""
    found: dict[str, dict[str, str]] = {}
    for file, _line, _column, role, target, name, _enclosing in layer.references:
        if role == "import" and target is not None:
            defined = definitions[target]
            found.setdefault(files[file - 1], {})[name] = "" if defined[3] == "module" else defined[4]
    return found


def _form(role: str, written: str, imported: dict[str, str], kind: str) -> tuple[str, str]:
    """(form, written) of one site: ``import``; ``module_attribute`` (``ns.X`` of a namespace or
    a required module); ``member`` (any other ``a.b``, a default object's property or a typed
    value's method, and a method called on what a call returns, ``make().m()``);
    ``imported_name``/``alias`` (a name an import binds, as exported or renamed); ``name``
    otherwise."""
    if role == "import":
        return "import", written
    head, _, rest = written.partition(".")
    if rest:
        return ("module_attribute" if imported.get(head) == "" else "member"), written
    if written in imported:
        return ("imported_name" if imported[written] == written else "alias"), written
    return ("member" if kind == "method" else "name"), written
