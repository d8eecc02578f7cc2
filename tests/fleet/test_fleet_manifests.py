"""What a member declares, read from each kind of root manifest at its bound commit (issue 28
item 5): ``setup.cfg``, ``setup.py`` (``ast``, never run: a computed name is not known),
``package.json``, ``Cargo.toml`` and ``go.mod`` name a member's package and version beside
``pyproject.toml``, in that order of preference.

Real git checkouts with generations published in the pinned provider's shapes (fleetkit.py);
the fleet index's own ``members`` rows are read back.
"""

from __future__ import annotations

from pathlib import Path

from cm_graph.fleet.build import open_fleet
from cm_graph.fleet.members import add_member, member_from

from ..support.fleetkit import graph_document, publish_complete
from ..support.g0 import node
from ..support.helpers import make_repo

MANIFESTS: dict[str, dict[str, str]] = {
    "cfg": {"setup.cfg": "[metadata]\nname = Cfg.Pkg\nversion = 1.2\n"},
    "setuppy": {"setup.py": 'import os\nos.system("never run")\nsetup(name="from-setup", version="0.9")\n'},
    "computed": {"setup.py": 'about = {}\nsetup(name=about["__title__"], version="1")\n'},
    "npm": {"package.json": '{"name": "@acme/widgets", "version": "4.0.1"}\n'},
    "crate": {"Cargo.toml": '[package]\nname = "fast-thing"\nversion = "0.3.1"\n'},
    "gomod": {"go.mod": "module github.com/acme/tool\n\ngo 1.22\n"},
    "both": {"pyproject.toml": '[project]\nname = "first"\nversion = "2"\n',
             "setup.cfg": "[metadata]\nname = second\n"},
}


def test_every_kind_of_manifest_names_the_members_package(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for name, files in MANIFESTS.items():
        repo = make_repo(tmp_path / name, {**files, "code.py": "X = 1\n"})
        publish_complete(repo, state, graph_document([node("code", "code.py", "code.py", "L1")], []))
        add_member(state, "m", member_from(state, connection=None, repo_path=repo, repository=name))
    fleet = open_fleet(state, "m")
    try:
        packages = fleet.connection.execute(
            "SELECT repository, ecosystem, package, import_root FROM members ORDER BY repository").fetchall()
        assert [(r, e, p, i) for r, e, p, i in packages if p] == [
            ("both", "pypi", "first", "first"), ("cfg", "pypi", "Cfg.Pkg", "cfg_pkg"),
            ("crate", "cargo", "fast-thing", "fast_thing"),
            ("gomod", "go", "github.com/acme/tool", "github.com/acme/tool"),
            ("npm", "npm", "@acme/widgets", "@acme/widgets"), ("setuppy", "pypi", "from-setup", "from_setup")]
        rows = fleet.connection.execute(
            "SELECT repository, ecosystem, package, version, import_root FROM members ORDER BY repository").fetchall()
    finally:
        fleet.close()
    assert rows == [
        ("both", "pypi", "first", "2", "first"),
        ("cfg", "pypi", "Cfg.Pkg", "1.2", "cfg_pkg"),
        ("computed", "", "", "", ""),
        ("crate", "cargo", "fast-thing", "0.3.1", "fast_thing"),
        ("gomod", "go", "github.com/acme/tool", "", "github.com/acme/tool"),
        ("npm", "npm", "@acme/widgets", "4.0.1", "@acme/widgets"),
        ("setuppy", "pypi", "from-setup", "0.9", "from_setup"),
    ]
