"""The package specifiers a commit's own ``package.json`` files bind to its sources.

A project's tests often import the project by its own name (zod's ``import * as z from
"zod/v4"``): Node and TypeScript resolve that through the package's manifest, its ``exports``
map (with a source condition such as zod's ``@zod/source``) or, without one, its ``main``. The
manifests read are the ``package.json`` files of the resolved files' directories and their
ancestors (``manifest_paths``), from the bound commit; each is parsed as JSON, never run, and
one that does not parse, or names no string ``name``, binds nothing (a ``main`` binds the
directory it is in for a ``require`` by path, ``require('../')``, name or not). An ``exports`` key (``.``
or ``./sub``; patterns with ``*`` are left out) binds ``name`` + the key's tail to its target
when exactly one of the strings under it (conditions nested as deep as written) is a resolved
file; two such files would be a guess between conditions, so the key binds nothing.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping
from typing import Any

MANIFEST = "package.json"
DIRECTORY = "dir:"  # a key no bare specifier has: a directory's main (``dir:lib``, ``dir:.``)


def is_manifest(path: str) -> bool:
    return path == MANIFEST or path.endswith("/" + MANIFEST)


def manifest_paths(paths: Iterable[str]) -> set[str]:
    """Every ``package.json`` that may hold one of ``paths``: in its directory or above."""
    found: set[str] = set()
    for path in paths:
        directory = posixpath.dirname(path)
        while True:
            found.add(posixpath.join(directory, MANIFEST) if directory else MANIFEST)
            if not directory:
                break
            directory = posixpath.dirname(directory)
    return found


def _targets(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [target for inner in value.values() for target in _targets(inner)]
    if isinstance(value, list):
        return [target for inner in value for target in _targets(inner)]
    return []


def _main(main: Any, root: str, paths: frozenset[str]) -> str | None:
    """The resolved file a manifest's ``main`` names (``lib/index.js``, ``./index``), as Node
    loads it: the file, else with ``.js``, else its directory's ``index.js``."""
    if not isinstance(main, str) or not main:
        return None
    joined = posixpath.normpath(posixpath.join(root, main))
    return next((c for c in (joined, joined + ".js", joined + "/index.js") if c in paths), None)


def package_specs(manifests: Mapping[str, bytes | int], paths: frozenset[str]) -> dict[str, str]:
    """Bare specifier (``zod``, ``zod/v4``) → the resolved file it names, from ``manifests``
    (path → content; an int is a blob too large to read, which binds nothing)."""
    specs: dict[str, str] = {}
    for path in sorted(manifests):
        content = manifests[path]
        try:
            manifest = json.loads(content) if isinstance(content, bytes) else None
        except (ValueError, RecursionError):  # not JSON, or nested past what json reads
            continue
        if not isinstance(manifest, dict):
            continue
        root = posixpath.dirname(path)
        main = _main(manifest.get("main"), root, paths)
        if main is not None:  # a directory required by path (`require('../')`) loads its main
            specs[DIRECTORY + (root or ".")] = main
        name = manifest.get("name")
        if not isinstance(name, str):
            continue
        exports = manifest.get("exports")
        if isinstance(exports, dict) and any(isinstance(k, str) and k.startswith(".") for k in exports):
            entries = {key: value for key, value in exports.items() if isinstance(key, str)}
        elif exports is not None:
            entries = {".": exports}
        else:
            entries = {".": f"./{main[len(root) + 1:] if root else main}" if main is not None else None}
        for key, value in sorted(entries.items()):
            if not (key == "." or key.startswith("./")) or "*" in key:
                continue
            try:
                targets = _targets(value)
            except RecursionError:
                continue
            files = {posixpath.normpath(posixpath.join(root, target)) for target in targets if target.startswith("./")}
            hits = sorted(file for file in files if file in paths)
            if len(hits) == 1:
                specs.setdefault(name + key[1:], hits[0])
    return specs
