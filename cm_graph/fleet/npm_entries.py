"""Which file of a member a bare npm specifier names: ``koa-compose``, ``@tanstack/query-core``,
``koa/lib/request``, read from the member's ``package.json`` at its bound commit (never run, and
never a ``node_modules``: the member is the package).

The rule is Node's, as its documentation states it ("Modules: Packages"), on the files the
member's index resolved:

1. ``exports``, when the manifest has it, alone decides (a subpath it does not list is not the
   package's: nothing). A string or an array is the ``.`` entry; an object whose keys start with
   ``.`` maps subpaths (an exact key, else the ``*`` pattern with the longest prefix before its
   star); any other object is the ``.`` entry's conditions. Conditions are taken in the object's
   own key order, the first of ``import`` (for an ES ``import``/``export ... from``) or
   ``require`` (for ``require()``), ``node`` and ``default`` that names a file; an array, its
   first entry that does. ``types`` is never taken: declaration files have no bodies, and the
   resolver does not read them.
2. Without ``exports``: the package itself is ``module`` (for an ES import only, the field
   bundlers read), then ``main``, then ``index``; a subpath is the file under the package root.
   Each names a file as a relative import does (``lib/x`` is ``lib/x.js``, ``lib/x/index.js``,
   a ``.js`` written for a TypeScript ``.ts``: ``jsscope.resolve_spec``).
3. A file so named that the member's index does not hold (a build output its graph leaves out,
   ``build/modern/index.js``) is looked for as its TypeScript source, the convention of a
   package built from ``src/`` into an output directory: the path under ``src/`` with its
   leading directories dropped one at a time (``src/modern/index``, then ``src/index``), each
   named as a relative import is (``src/index.ts``). A package built otherwise resolves to
   nothing (external), never to a guess outside ``src/``.
"""

from __future__ import annotations

from typing import Any

from ..index.jsscope import resolve_spec

MAX_CONDITION_NESTING = 16  # nested conditions followed at most this far
_CONDITIONS = {"import": ("import", "node", "default"), "require": ("require", "node", "default")}


def split_specifier(spec: str) -> tuple[str, str] | None:
    """(package name, subpath: ``.`` or ``./rest``) of a bare specifier, None when it is not one."""
    if spec.startswith("@"):
        scope, _, rest = spec.partition("/")
        name, _, sub = rest.partition("/")
        if len(scope) < 2 or not name:
            return None
        package = f"{scope}/{name}"
    else:
        package, _, sub = spec.partition("/")
    if not package or package.startswith(".") or ":" in package:
        return None  # a relative path, or a scheme (node:fs, data:)
    return package, f"./{sub}" if sub else "."


def entry_file(manifest: dict[str, Any], prefix: str, subpath: str, condition: str,
               paths: frozenset[str]) -> str | None:
    """The file of ``paths`` (a member's files, under ``prefix``) that ``subpath`` of the
    package names, for an ``import`` or a ``require`` ``condition``; None when none does."""
    exports = manifest.get("exports")
    if exports is not None:
        target = _exported(exports, subpath, _CONDITIONS.get(condition, _CONDITIONS["import"]))
        return _file(prefix, target, paths) if target else None
    if subpath != ".":
        return _file(prefix, subpath, paths)
    fields = ("module", "main") if condition == "import" else ("main",)
    for name in fields:
        value = manifest.get(name)
        if isinstance(value, str) and value:
            found = _file(prefix, value, paths)
            if found is not None:
                return found
    return _file(prefix, "./index", paths)


def _file(prefix: str, target: str, paths: frozenset[str]) -> str | None:
    relative = target if target.startswith(("./", "../")) else f"./{target}"
    found = resolve_spec(f"{prefix}/package.json", relative, paths)
    if found is None:  # a build output the member's graph does not hold: its TypeScript source
        parts = relative.removeprefix("./").split("/")
        for start in range(1, len(parts)):
            found = resolve_spec(f"{prefix}/package.json", "./src/" + "/".join(parts[start:]), paths)
            if found is not None:
                break
    return found if found is not None and found.startswith(f"{prefix}/") else None


def _exported(exports: Any, subpath: str, conditions: tuple[str, ...]) -> str | None:
    if isinstance(exports, dict) and exports and all(isinstance(k, str) and k.startswith(".") for k in exports):
        if subpath in exports:
            return _target(exports[subpath], conditions, "", 0)
        best: tuple[int, str, str] | None = None
        for key in exports:
            head, star, tail = key.partition("*")
            if star and "*" not in tail and subpath.startswith(head) and subpath.endswith(tail) and \
                    len(subpath) >= len(head) + len(tail) and (best is None or len(head) > best[0]):
                best = (len(head), key, subpath[len(head):len(subpath) - len(tail)])
        return _target(exports[best[1]], conditions, best[2], 0) if best is not None else None
    return _target(exports, conditions, "", 0) if subpath == "." else None


def _target(value: Any, conditions: tuple[str, ...], star: str, depth: int) -> str | None:
    if depth > MAX_CONDITION_NESTING:
        return None
    if isinstance(value, str):
        return value.replace("*", star) if value.startswith("./") else None
    if isinstance(value, list):
        for item in value:
            found = _target(item, conditions, star, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if key in conditions:
                found = _target(item, conditions, star, depth + 1)
                if found is not None:
                    return found
    return None
