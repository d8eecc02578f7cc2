"""The resolved layer of a real package built with the pinned provider (issue 28 items 1-3): the
sources of ``iniconfig`` (installed with pytest, so on every machine these tests run on), as one
commit, extracted by the real provider and built by the installed ``cm-graph``. Every code node
the provider wrote in those files is matched by a definition, its overload stubs are marked, and
calls the provider's graph has no edge for are bound (a call on an attribute typed by a class
annotation, an instantiation inside a method)."""

from __future__ import annotations

import json
from pathlib import Path

import iniconfig
import pytest

from cm_graph.index.format import open_index

from ..support.helpers import make_repo, provider_extract, run_installed
from ..support.resolvedkit import references

pytestmark = [pytest.mark.provider]


def test_a_real_package_resolves_with_every_provider_node_matched(tmp_path: Path) -> None:
    package = Path(iniconfig.__file__).parent
    files: dict[str, str | bytes] = {f"iniconfig/{source.name}": source.read_bytes()
                                     for source in sorted(package.glob("*.py"))}
    repo = make_repo(tmp_path / "repo", files)
    out = tmp_path / "graphify-out"
    provider_extract(repo, out)
    state = tmp_path / "state"
    built = run_installed("build", "--from-graph", out, "--state-dir", state, cwd=repo)
    assert built.returncode == 0, built.stderr
    indexed = run_installed("index", "--json", "--state-dir", state, cwd=repo)
    assert indexed.returncode == 0, indexed.stderr
    counts = json.loads(indexed.stdout)
    assert counts["resolved_files"] == len(files) and counts["resolved_unparsable_files"] == 0
    assert counts["resolved_nodes"] > 0 and counts["resolved_nodes_with_definitions"] == counts["resolved_nodes"]
    index = next((state / "graph").glob("*/indexes/*.sqlite"))
    connection = open_index(index)
    stubs = connection.execute(
        "SELECT overload, count(*) FROM definitions WHERE qualname = 'iniconfig.SectionWrapper.get'"
        " GROUP BY overload ORDER BY overload").fetchall()
    connection.close()
    assert stubs[0] == (0, 1) and stubs[1][0] == 1 and stubs[1][1] >= 2  # one implementation, its stubs
    bound = {(role, target, caller) for _, _, role, target, _, caller in references(index)}
    # self.config is declared `config: Final["IniConfig"]` on the class
    assert ("call", "iniconfig.IniConfig.lineof", "iniconfig.SectionWrapper.lineof") in bound
    assert ("instantiate", "iniconfig.SectionWrapper", "iniconfig.IniConfig.__getitem__") in bound
    assert ("call", "iniconfig.SectionWrapper.__init__", "iniconfig.IniConfig.__getitem__") in bound
