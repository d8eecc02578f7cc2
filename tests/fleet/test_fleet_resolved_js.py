"""Resolved cross-repository uses for JavaScript and TypeScript (issue 28 item 5) on the pinned
provider's real output: a bare specifier names the member whose ``package.json`` declares it, and
the file its ``exports``/``main`` gives; each use site is then bound by the JS resolver's own
rules (a re-export, ``export *``, a namespace import, ``module.exports = f``, a typed ``new``).

Three small real repositories, built with ``cm-graph refresh`` and joined in one fleet: a
CommonJS package whose ``exports`` give ``require`` and ``import`` different files and a
subpath; a TypeScript package (a scoped name) that re-exports its class and functions from
``src/index.ts``; an app that uses both, and a package no member declares (``lodash``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cm_graph.fleet.build import open_fleet

from ..support.helpers import make_repo, run_installed

pytestmark = pytest.mark.provider

COMPOSE = {
    "package.json": json.dumps({"name": "tiny-compose", "version": "1.2.0", "exports": {
        ".": {"types": "./index.d.ts", "require": "./lib/index.js", "import": "./esm/index.mjs"},
        "./util": "./lib/util.js"}}),
    "lib/index.js": "'use strict'\nmodule.exports = compose\n\nfunction compose(middleware) {\n"
                    "  return function (ctx) {\n    return middleware\n  }\n}\n",
    "esm/index.mjs": "export function composeAll(list) {\n  return list\n}\n",
    "lib/util.js": "exports.flatten = flatten\n\nfunction flatten(list) {\n  return [].concat(...list)\n}\n",
}
CORE = {
    "package.json": json.dumps({"name": "@tiny/core", "version": "0.3.0", "main": "./src/index.ts"}),
    "src/index.ts": "export { Store } from './store'\nexport * from './keys'\n",
    "src/store.ts": "export class Store {\n  get(key: string): string {\n    return key\n  }\n}\n",
    "src/keys.ts": "export function hashKey(key: string): string {\n  return key\n}\n",
}
APP = {
    "package.json": json.dumps({"name": "tiny-app", "version": "0.1.0"}),
    "src/app.ts": (
        "import { Store, hashKey as hk } from '@tiny/core'\n"
        "import * as util from 'tiny-compose/util'\n"
        "import { composeAll } from 'tiny-compose'\n"
        "import { debounce } from 'lodash'\n"
        "\n"
        "export function run(list: string[]) {\n"
        "  const store = new Store()\n"
        "  store.get(hk('a'))\n"
        "  util.flatten(list)\n"
        "  debounce(list)\n"
        "  return composeAll(list)\n"
        "}\n"
    ),
    "lib/server.js": "const compose = require('tiny-compose')\n\nfunction serve(middleware) {\n"
                     "  return compose(middleware)\n}\nmodule.exports = serve\n",
}


def _fleet(tmp_path: Path, repos: dict[str, dict[str, str]]) -> Path:
    state = tmp_path / "state"
    for name, files in repos.items():
        repo = make_repo(tmp_path / name, files)
        built = run_installed("refresh", "--repo-path", repo, "--state-dir", state, "--json", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        added = run_installed("fleet", "add", "js", "--repo-path", repo, "--repository", name,
                              "--state-dir", state, cwd=tmp_path)
        assert added.returncode == 0, added.stderr
    return state


def _items(state: Path, symbol: str, cwd: Path, repository: str = "app") -> list[dict[str, Any]]:
    asked = run_installed("fleet", "usages", "js", symbol, "--state-dir", state, "--json", cwd=cwd)
    assert asked.stdout, asked.stderr
    answer = json.loads(asked.stdout)
    group = answer["usages_by_repository"].get(repository, {"items": []})
    return [i for i in group["items"] if i["anchor"] in ("resolved", "ambiguous")]


def _site(path: str, line: int, column: int, role: str, form: str, via: str, symbol: str,
          definition: str) -> dict[str, Any]:
    return {"path": path, "line": line, "citation": f"{path}#L{line}", "anchor": "resolved", "column": column,
            "role": role, "use_form": form, "via": via, "symbol": symbol, "definition": definition}


APP_TS = "src/app.ts"


def test_a_bare_specifier_binds_through_exports_main_and_reexports(tmp_path: Path) -> None:
    """``@tiny/core`` is ``src/index.ts`` (its ``main``), which re-exports ``Store`` from
    ``./store`` and ``hashKey`` by ``export *``: the import, ``new Store()``, the typed
    ``store.get()`` and the alias ``hk()`` are each cited at their own line with an ``npm``
    symbol; ``tiny-compose``'s ``exports`` give an ES import ``esm/index.mjs`` and a
    ``require()`` ``lib/index.js`` (``module.exports = compose``), and its subpath ``./util``
    ``lib/util.js`` (``exports.flatten = flatten``), read through a namespace import."""
    state = _fleet(tmp_path, {"compose": COMPOSE, "core": CORE, "app": APP})
    store = "npm @tiny/core 0.3.0 src/store.ts/Store#"
    assert _items(state, "Store", tmp_path) == [
        _site(APP_TS, 1, 10, "import", "import", "Store", store, "core:src/store.ts#L1"),
        _site(APP_TS, 7, 21, "instantiate", "imported_name", "Store", store, "core:src/store.ts#L1"),
    ]
    assert _items(state, "get", tmp_path) == [
        _site(APP_TS, 8, 9, "call", "member", "store.get", "npm @tiny/core 0.3.0 src/store.ts/Store#get().",
              "core:src/store.ts#L2")]
    hash_key = "npm @tiny/core 0.3.0 src/keys.ts/hashKey()."
    assert _items(state, "hashKey", tmp_path) == [
        _site(APP_TS, 1, 28, "import", "import", "hk", hash_key, "core:src/keys.ts#L1"),
        _site(APP_TS, 8, 13, "call", "alias", "hk", hash_key, "core:src/keys.ts#L1"),
    ]
    assert _items(state, "flatten", tmp_path) == [
        _site(APP_TS, 9, 8, "call", "module_attribute", "util.flatten", "npm tiny-compose 1.2.0 lib/util.js/flatten().",
              "compose:lib/util.js#L3")]
    all_ = "npm tiny-compose 1.2.0 esm/index.mjs/composeAll()."
    assert _items(state, "composeAll", tmp_path) == [
        _site(APP_TS, 3, 10, "import", "import", "composeAll", all_, "compose:esm/index.mjs#L1"),
        _site(APP_TS, 11, 10, "call", "imported_name", "composeAll", all_, "compose:esm/index.mjs#L1"),
    ]
    compose = "npm tiny-compose 1.2.0 lib/index.js/compose()."
    assert _items(state, "compose", tmp_path) == [
        _site("lib/server.js", 1, 7, "import", "import", "compose", compose, "compose:lib/index.js#L4"),
        _site("lib/server.js", 4, 10, "call", "imported_name", "compose", compose, "compose:lib/index.js#L4"),
    ]
    printed = run_installed("fleet", "usages", "js", "Store", "--state-dir", state, cwd=tmp_path).stdout
    assert "src/app.ts#L7  [resolved] instantiate Store (imported_name)" in printed


def test_a_package_no_member_declares_stays_external(tmp_path: Path) -> None:
    """``lodash`` is no member's ``name``: ``debounce`` is bound to nothing, and the fleet file
    holds no use of a definition outside the members."""
    state = _fleet(tmp_path, {"compose": COMPOSE, "core": CORE, "app": APP})
    fleet = open_fleet(state, "js")
    try:
        names = {r[0] for r in fleet.connection.execute("SELECT DISTINCT name FROM uses")}
    finally:
        fleet.close()
    assert names == {"Store", "get", "hashKey", "flatten", "composeAll", "compose"}


def test_two_members_declaring_one_name_make_the_use_ambiguous(tmp_path: Path) -> None:
    """A fork declaring ``@tiny/core`` beside the original: ``new Store()`` could be either, so
    the site is ``ambiguous`` with both members' definitions, never the first one's."""
    fork = {**CORE, "src/store.ts": "// the fork\n" + CORE["src/store.ts"]}
    state = _fleet(tmp_path, {"core": CORE, "fork": fork, "app": APP})
    items = {(i["line"], i["role"]): i for i in _items(state, "Store", tmp_path)}
    assert sorted(items) == [(1, "import"), (7, "instantiate")]
    for item in items.values():
        assert (item["anchor"], item["candidates"]) == (
            "ambiguous", ["core:src/store.ts#L1", "fork:src/store.ts#L2"]), item
        assert "symbol" not in item and "definition" not in item


def test_the_js_uses_are_the_same_bytes_when_derived_again(tmp_path: Path) -> None:
    """The union is resolved from the members' blobs and manifests alone: derived twice (the
    first removed), the fleet file has the same bytes, its JS ``uses`` rows included."""
    state = _fleet(tmp_path, {"compose": COMPOSE, "core": CORE, "app": APP})
    digests, counts = [], []
    for _ in range(2):
        for old in (state / "fleet" / "js").glob("*.sqlite*"):
            old.unlink()
        fleet = open_fleet(state, "js")
        try:
            counts.append(fleet.connection.execute("SELECT count(*) FROM uses WHERE symbol LIKE 'npm %'").fetchall())
            digests.append(hashlib.sha256(fleet.path.read_bytes()).hexdigest())
        finally:
            fleet.close()
    assert digests[0] == digests[1]
    assert counts[0] == counts[1] == [(10,)]


BUILT = {  # a TypeScript package whose exports name its build output, as @tanstack/query-core's do
    "package.json": json.dumps({"name": "@tiny/built", "version": "2.0.0", "exports": {
        ".": {"import": {"types": "./build/modern/index.d.ts", "default": "./build/modern/index.js"}}}}),
    "src/index.ts": "export { Cache } from './cache'\n",
    "src/cache.ts": "export class Cache {\n  clear(): void {}\n}\n",
    "build/modern/index.js": "export { Cache } from './cache.js'\n",
    "build/modern/cache.js": "export class Cache {\n  clear() {}\n}\n",
}
STATUS = {
    "package.json": json.dumps({"name": "tiny-status", "version": "1.5.0", "main": "index.js"}),
    "index.js": "module.exports = status\nstatus.codes = [200, 404]\n\nfunction status(code) {\n  return code\n}\n",
}
USER = {
    "package.json": json.dumps({"name": "tiny-user", "version": "0.1.0"}),
    "src/use.ts": "import { Cache } from '@tiny/built'\n\nexport const cache = new Cache()\n",
    "lib/codes.js": "const statuses = require('tiny-status')\n\nfunction known(code) {\n"
                    "  return statuses[code] || statuses.codes\n}\nmodule.exports = known\n",
}


def test_a_build_output_resolves_to_its_source_and_a_read_is_a_use(tmp_path: Path) -> None:
    """``@tiny/built``'s ``exports`` name ``build/modern/index.js``, which the member's graph does
    not hold (a build output): its TypeScript source ``src/index.ts`` is what the import binds,
    and through it ``src/cache.ts``'s ``Cache``. ``statuses[code]`` and ``statuses.codes`` read
    the function another package exports: each is a ``reference`` use of it at its line."""
    state = _fleet(tmp_path, {"built": BUILT, "status": STATUS, "user": USER})
    cache = "npm @tiny/built 2.0.0 src/cache.ts/Cache#"
    assert _items(state, "Cache", tmp_path, "user") == [
        _site("src/use.ts", 1, 10, "import", "import", "Cache", cache, "built:src/cache.ts#L1"),
        _site("src/use.ts", 3, 26, "instantiate", "imported_name", "Cache", cache, "built:src/cache.ts#L1"),
    ]
    status = "npm tiny-status 1.5.0 index.js/status()."
    assert _items(state, "status", tmp_path, "user") == [
        _site("lib/codes.js", 1, 7, "import", "import", "statuses", status, "status:index.js#L4"),
        _site("lib/codes.js", 4, 10, "reference", "alias", "statuses", status, "status:index.js#L4"),
        _site("lib/codes.js", 4, 28, "reference", "alias", "statuses", status, "status:index.js#L4"),
    ]


PATTERNS = {  # a subpath pattern in exports
    "package.json": json.dumps({"name": "tiny-features", "version": "3.0.0", "exports": {
        ".": "./lib/index.js", "./features/*": "./lib/features/*.js", "./internal/*": None}}),
    "lib/index.js": "exports.version = version\n\nfunction version() {\n  return 3\n}\n",
    "lib/features/flag.js": "exports.enable = enable\n\nfunction enable(name) {\n  return name\n}\n",
}
FIELDS = {  # no exports: module for an ES import, main for require(), a deep path as a file
    "package.json": json.dumps({"name": "tiny-fields", "version": "0.9.0", "main": "cjs/main.js",
                                "module": "esm/main.mjs"}),
    "cjs/main.js": "module.exports = { start }\n\nfunction start() {\n  return 'cjs'\n}\n",
    "esm/main.mjs": "export function begin() {\n  return 'esm'\n}\n",
    "lib/deep.js": "module.exports = deep\n\nfunction deep() {\n  return 1\n}\n",
}
CALLER = {
    "package.json": json.dumps({"name": "tiny-caller", "version": "0.1.0"}),
    "src/call.mjs": ("import { enable } from 'tiny-features/features/flag'\n"
                     "import { begin } from 'tiny-fields'\n\n"
                     "export function go() {\n  enable('x')\n  return begin()\n}\n"),
    "src/call.js": ("const { start } = require('tiny-fields')\n"
                    "const deep = require('tiny-fields/lib/deep')\n\n"
                    "function go() {\n  deep()\n  return start()\n}\nmodule.exports = go\n"),
}


def test_exports_patterns_module_main_and_deep_paths(tmp_path: Path) -> None:
    """``tiny-features/features/flag`` is the ``./features/*`` pattern's ``lib/features/flag.js``;
    ``tiny-fields`` has no ``exports``: an ES import is its ``module`` (``esm/main.mjs``), a
    ``require()`` its ``main`` (``cjs/main.js``, a destructured ``start``), and
    ``tiny-fields/lib/deep`` the file ``lib/deep.js``."""
    state = _fleet(tmp_path, {"features": PATTERNS, "fields": FIELDS, "caller": CALLER})
    lines = {name: [(i["path"], i["line"], i["role"], i["definition"]) for i in _items(state, name, tmp_path, "caller")]
             for name in ("enable", "begin", "start", "deep")}
    assert lines == {
        "enable": [("src/call.mjs", 1, "import", "features:lib/features/flag.js#L3"),
                   ("src/call.mjs", 5, "call", "features:lib/features/flag.js#L3")],
        "begin": [("src/call.mjs", 2, "import", "fields:esm/main.mjs#L1"),
                  ("src/call.mjs", 6, "call", "fields:esm/main.mjs#L1")],
        "start": [("src/call.js", 1, "import", "fields:cjs/main.js#L3"),
                  ("src/call.js", 6, "call", "fields:cjs/main.js#L3")],
        "deep": [("src/call.js", 2, "import", "fields:lib/deep.js#L3"),
                 ("src/call.js", 5, "call", "fields:lib/deep.js#L3")],
    }
