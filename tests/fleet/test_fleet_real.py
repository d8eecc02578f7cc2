"""The fleet on the pinned provider's real output: two small packages that really depend on each
other, each built with ``cm-graph refresh`` (the provider runs, contained where it can), joined
in one fleet and asked through the installed entry point.

This is the smaller twin of ``benchmarks/fleet.py --real`` (requests and urllib3, idna,
charset-normalizer from their sdists): it proves the parts the synthetic graphs cannot, that the
provider's own unbound-import edges carry the module and line the fleet anchors on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.helpers import make_repo, run_installed

pytestmark = pytest.mark.provider

LIB = {
    "pyproject.toml": '[project]\nname = "tiny-http"\nversion = "1.0"\n',
    "src/tiny_http/__init__.py": "from .pool import PoolManager\n",
    "src/tiny_http/pool.py": (
        '"""Pools."""\n\n\nclass PoolManager:\n    def urlopen(self, url):\n        return url\n\n\n'
        "def make_pool():\n    return PoolManager()\n"
    ),
    "src/tiny_http/errors.py": "class HTTPError(Exception):\n    pass\n",
}
APP = {
    "pyproject.toml": '[project]\nname = "tiny-client"\n',
    "tiny_client/__init__.py": "",
    "tiny_client/adapters.py": (
        "from tiny_http.pool import PoolManager, make_pool\nfrom tiny_http.errors import HTTPError as _HTTPError\n\n\n"
        "class HTTPError(Exception):\n    pass\n\n\ndef send(url):\n    try:\n        return make_pool().urlopen(url)\n"
        "    except _HTTPError:\n        raise HTTPError(url)\n"
    ),
}


def test_real_provider_output_anchors_a_cross_repo_import(tmp_path: Path) -> None:
    state = tmp_path / "state"
    repos = {"lib": make_repo(tmp_path / "lib", LIB), "app": make_repo(tmp_path / "app", APP)}
    for name, repo in repos.items():
        built = run_installed("refresh", "--repo-path", repo, "--state-dir", state, "--json", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        assert json.loads(built.stdout)["completeness"] == "complete"
        added = run_installed("fleet", "add", "tiny", "--repo-path", repo, "--repository", name,
                              "--state-dir", state, cwd=tmp_path)
        assert added.returncode == 0, added.stderr
    asked = run_installed("fleet", "usages", "tiny", "PoolManager", "--state-dir", state, "--json", cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["status"] == "ok"
    assert [d["qualified_name"] for d in answer["definitions"]] == ["tiny_http.pool.PoolManager"]
    # the import line, bound by resolving the members together (it was the provider's unbound
    # import, anchored by package, before the fleet resolved its members: issue 28)
    assert answer["usages_by_repository"]["app"]["items"] == [{
        "path": "tiny_client/adapters.py", "line": 1, "citation": "tiny_client/adapters.py#L1", "anchor": "resolved",
        "column": 28, "role": "import", "use_form": "import", "via": "PoolManager",
        "symbol": "pypi tiny-http 1.0 tiny_http.pool/PoolManager#", "definition": "lib:src/tiny_http/pool.py#L4"}]
    assert answer["coverage"]["members_covered"] == 2
    # HTTPError: defined in both; the app's import still names the library's, never its own
    ambiguous = json.loads(run_installed("fleet", "usages", "tiny", "HTTPError", "--state-dir", state, "--json",
                                         cwd=tmp_path).stdout)
    assert ambiguous["status"] == "ambiguous"
    assert sorted(d["repository"] for d in ambiguous["definitions"]) == ["app", "lib"]
    assert [(i["citation"], i["role"], i["via"], i["definition"])
            for i in ambiguous["usages_by_repository"]["app"]["items"]] == [
        ("tiny_client/adapters.py#L2", "import", "HTTPError", "lib:src/tiny_http/errors.py#L1"),
        ("tiny_client/adapters.py#L12", "reference", "_HTTPError", "lib:src/tiny_http/errors.py#L1")]


SESSION = "package com.acme;\n\npublic class Session {\n    public void send() {\n    }\n}\n"
SHOP = ("package com.shop;\n\nimport com.acme.Session;\n\npublic class App {\n    void run(Session session) {\n"
        "        session.send();\n    }\n}\n")


def test_real_provider_parked_member_call_binds_by_receiver_type(tmp_path: Path) -> None:
    """Java: the pinned provider parks ``session.send()`` on ``App.run`` with receiver type
    ``Session`` (declared in no file of the app); the fleet binds it to the one ``Session``."""
    state = tmp_path / "state"
    repos = {"acme": make_repo(tmp_path / "acme", {"src/com/acme/Session.java": SESSION}),
             "shop": make_repo(tmp_path / "shop", {"src/com/shop/App.java": SHOP})}
    for repo in repos.values():
        assert run_installed("refresh", "--repo-path", repo, "--state-dir", state, cwd=tmp_path).returncode == 0
        added = run_installed("fleet", "add", "jvm", "--repo-path", repo, "--state-dir", state, cwd=tmp_path)
        assert added.returncode == 0, added.stderr
    answer = json.loads(run_installed("fleet", "usages", "jvm", "send", "--state-dir", state, "--json",
                                      cwd=tmp_path).stdout)
    assert answer["usages_by_repository"]["shop"]["items"] == [{
        "path": "src/com/shop/App.java", "line": 7, "citation": "src/com/shop/App.java#L7", "anchor": "receiver_type",
        "via": "call on Session", "definition": "acme:src/com/acme/Session.java#L4"}]
    # the type itself is only named by the app (a stub com.acme.Session): a name match, apart
    named = json.loads(run_installed("fleet", "usages", "jvm", "Session", "--state-dir", state, "--json",
                                     cwd=tmp_path).stdout)
    assert named["usages_by_repository"] == {}
    assert [i["citation"] for i in named["name_matches_by_repository"]["shop"]["items"]] == ["src/com/shop/App.java#L6"]
