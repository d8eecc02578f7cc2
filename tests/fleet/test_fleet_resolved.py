"""Resolved cross-repository uses (issue 28 item 5) on the pinned provider's real output: each
use site of another member's definition is cited and labelled, not only the import line.

Three small real repositories, built with ``cm-graph refresh`` and joined in one fleet: a library
whose package name only ``setup.py`` declares (parsed, never run), an app that uses it as
``import pkg; pkg.X()``, ``import pkg.mod as m; m.f()``, ``from pkg import X as Y; Y()`` and
through a typed value (``client.send()``), the class being defined in ``pkg/_client.py`` and
re-exported from ``pkg/__init__.py``; and a member that declares no package but has a module
``utils`` the app imports (bound by the resolver, never attributed: not package-qualified).
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

LIB = {
    "setup.py": ('raise SystemExit("setup.py is read, never run")\nfrom setuptools import setup\n\n'
                 'setup(name="tiny-http", version="2.1", packages=["tiny_http"])\n'),
    "src/tiny_http/__init__.py": "from ._client import Client\nfrom . import pool\n",
    "src/tiny_http/_client.py": (
        "class Client:\n    def __init__(self):\n        self.sent = []\n\n"
        "    def send(self, url):\n        self.sent.append(url)\n        return url\n"
    ),
    "src/tiny_http/pool.py": "def make_pool():\n    return []\n",
}
APP = {
    "pyproject.toml": '[project]\nname = "tiny-app"\nversion = "0.1"\n',
    "tiny_app/__init__.py": "",
    "tiny_app/use.py": (
        "import tiny_http\nimport tiny_http.pool as p\nfrom tiny_http import Client as C\nimport utils\n\n\n"
        "def run(url):\n    client = tiny_http.Client()\n    client.send(url)\n    p.make_pool()\n"
        "    utils.helper()\n    return C()\n"
    ),
}
LOOSE = {"utils.py": "def helper():\n    return 1\n"}


def _fleet(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    repos = {"lib": make_repo(tmp_path / "lib", LIB), "app": make_repo(tmp_path / "app", APP),
             "loose": make_repo(tmp_path / "loose", LOOSE)}
    for name, repo in repos.items():
        built = run_installed("refresh", "--repo-path", repo, "--state-dir", state, "--json", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        added = run_installed("fleet", "add", "tiny", "--repo-path", repo, "--repository", name,
                              "--state-dir", state, cwd=tmp_path)
        assert added.returncode == 0, added.stderr
    return state


def _ask(state: Path, symbol: str, cwd: Path) -> dict[str, Any]:
    asked = run_installed("fleet", "usages", "tiny", symbol, "--state-dir", state, "--json", cwd=cwd)
    assert asked.stdout, asked.stderr
    return dict(json.loads(asked.stdout))


def _site(line: int, column: int, role: str, form: str, via: str, symbol: str, definition: str,
          through: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"path": "tiny_app/use.py", "line": line, "citation": f"tiny_app/use.py#L{line}",
                            "anchor": "resolved", "column": column, "role": role, "use_form": form, "via": via,
                            "symbol": symbol, "definition": definition}
    if through is not None:
        item["through"] = through
    return item


def test_every_use_site_of_a_reexported_class_is_cited_with_its_form(tmp_path: Path) -> None:
    """``tiny_http.Client`` is defined in ``_client.py`` and used through ``tiny_http``: the
    import (line 3), ``tiny_http.Client()`` (line 8) and the alias ``C()`` (line 12), each cited at
    its own line with its role, how it was written, the module it went through and the
    SCIP-style key whose package and version come from ``setup.py``."""
    state = _fleet(tmp_path)
    answer = _ask(state, "tiny_http.Client", tmp_path)
    assert answer["status"] == "ok", answer
    key = "pypi tiny-http 2.1 tiny_http._client/Client#"
    client = "lib:src/tiny_http/_client.py#L1"
    assert answer["usages_by_repository"]["app"]["items"] == [
        _site(3, 23, "import", "import", "Client", key, client, through="tiny_http"),
        _site(8, 24, "instantiate", "module_attribute", "tiny_http.Client", key, client, through="tiny_http"),
        _site(12, 12, "instantiate", "alias", "C", key, client, through="tiny_http"),
    ]
    printed = run_installed("fleet", "usages", "tiny", "tiny_http.Client", "--state-dir", state, cwd=tmp_path).stdout
    line = "tiny_app/use.py#L8  [resolved] instantiate tiny_http.Client (module_attribute, through tiny_http)"
    assert line in printed


def test_a_module_alias_and_a_typed_receiver_are_resolved_uses(tmp_path: Path) -> None:
    """``p.make_pool()`` (``import tiny_http.pool as p``) and ``client.send(url)`` on the
    ``Client`` the app constructed bind to the library's definitions; ``utils.helper()`` binds to
    a module of a member that declares no package, so it is not a resolved usage (it is only a
    name, listed apart, never attributed)."""
    state = _fleet(tmp_path)
    pool = _ask(state, "make_pool", tmp_path)
    assert pool["usages_by_repository"]["app"]["items"] == [
        _site(10, 7, "call", "module_attribute", "p.make_pool", "pypi tiny-http 2.1 tiny_http.pool/make_pool().",
              "lib:src/tiny_http/pool.py#L1")]
    send = _ask(state, "send", tmp_path)
    assert send["usages_by_repository"]["app"]["items"] == [
        _site(9, 12, "call", "member", "client.send", "pypi tiny-http 2.1 tiny_http._client/Client#send().",
              "lib:src/tiny_http/_client.py#L5")]
    helper = _ask(state, "helper", tmp_path)
    assert helper["status"] == "ok", helper
    assert all(i["anchor"] != "resolved" for g in helper["usages_by_repository"].values() for i in g["items"])


def test_two_members_copies_of_one_package_make_a_use_ambiguous(tmp_path: Path) -> None:
    """A fork that declares the same package beside the original: ``tiny_http.Client()`` in the
    app could mean either member's copy, so the resolver's pick is not taken: the site is
    ``ambiguous`` with both definitions as candidates (and no symbol)."""
    state = tmp_path / "state"
    fork = {**LIB, "src/tiny_http/_client.py": "# the fork\n" + LIB["src/tiny_http/_client.py"]}
    repos = {"lib": make_repo(tmp_path / "lib", LIB), "fork": make_repo(tmp_path / "fork", fork),
             "app": make_repo(tmp_path / "app", APP)}
    for name, repo in repos.items():
        assert run_installed("refresh", "--repo-path", repo, "--state-dir", state, cwd=tmp_path).returncode == 0
        assert run_installed("fleet", "add", "tiny", "--repo-path", repo, "--repository", name,
                             "--state-dir", state, cwd=tmp_path).returncode == 0
    answer = _ask(state, "Client", tmp_path)
    assert answer["status"] == "ambiguous"
    items = {i["line"]: i for i in answer["usages_by_repository"]["app"]["items"]}
    assert sorted(items) == [3, 8, 12]
    for item in items.values():
        assert (item["anchor"], item["candidates"]) == (
            "ambiguous", ["fork:src/tiny_http/_client.py#L2", "lib:src/tiny_http/_client.py#L1"]), item
        assert "symbol" not in item and "definition" not in item



def test_the_resolved_uses_are_the_same_bytes_when_derived_again(tmp_path: Path) -> None:
    """The union is resolved from the members' blobs alone: the fleet file derived a second time
    (the first removed) has the same bytes, its ``uses`` rows included."""
    state = _fleet(tmp_path)
    digests, counts = [], []
    for _ in range(2):
        for old in (state / "fleet" / "tiny").glob("*.sqlite*"):
            old.unlink()
        fleet = open_fleet(state, "tiny")
        try:
            counts.append(fleet.connection.execute("SELECT count(*) FROM uses WHERE symbol <> ''").fetchall()[0][0])
            digests.append(hashlib.sha256(fleet.path.read_bytes()).hexdigest())
        finally:
            fleet.close()
    assert digests[0] == digests[1]
    assert counts[0] == counts[1] > 5
