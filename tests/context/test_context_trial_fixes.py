"""code_context, a new user's trial (findings 1, 2, 6, 14): real git repositories in temp dirs,
published graphs shaped like the pinned provider's real output (semver's CommonJS
``const parse = require('./parse')`` bindings, urllib3's ``super().__init__``), and one run of
the real provider on a tiny CommonJS project.

1. A line the graph links to ANOTHER same-named definition is still a mention of the asked one,
   and says which definition the graph chose; only a relationship into the anchor hides it.
2. A bare name prefers the real function or class over variable bindings of the name, and says
   which bindings it was preferred over; several real ones stay ambiguous, bindings last.
14. The prose and the table cite an item by the same id.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cm_graph.cli.context_view import print_context

from ..support.contextkit import ask_context, mention_lines, readable
from ..support.g0 import edge, node
from ..support.helpers import git, inventory_for, make_repo, provider_extract, publish, run_installed

PARSE = """const SemVer = require('../classes/semver')
const parse = (version) => {
  return new SemVer(version)
}
module.exports = parse
"""
CLEAN = """const parse = require('./parse')
const clean = (version) => {
  const s = parse(version)
  return s
}
module.exports = clean
"""
VALID = """const parse = require('./parse')
const valid = (version) => {
  const v = parse(version)
  return v
}
module.exports = valid
"""
SEMVER = """class SemVer {
  constructor (version) {
    this.version = version
  }
}
module.exports = SemVer
"""
FILES = {"functions/parse.js": PARSE, "functions/clean.js": CLEAN, "functions/valid.js": VALID,
         "classes/semver.js": SEMVER}


def _semver_graph() -> dict[str, Any]:
    """What graphifyy 0.9.58 emits for this shape (checked on semver 7.6.3): each
    ``const parse = require('./parse')`` is a symbol ``parse`` (no argument list, no
    ``_callable``), every call in the file is linked to that local binding, never to
    ``functions/parse.js``'s ``parse()``; a file's ``const SemVer = require(...)`` is a ``SemVer``
    symbol beside the class."""
    nodes = [
        node("functions_parse", "parse.js", "functions/parse.js", "L1"),
        node("functions_parse_semver", "SemVer", "functions/parse.js", "L1"),
        node("functions_parse_parse", "parse()", "functions/parse.js", "L2", _callable=True),
        node("functions_clean", "clean.js", "functions/clean.js", "L1"),
        node("functions_clean_parse", "parse", "functions/clean.js", "L1"),
        node("functions_clean_clean", "clean()", "functions/clean.js", "L2", _callable=True),
        node("functions_valid", "valid.js", "functions/valid.js", "L1"),
        node("functions_valid_parse", "parse", "functions/valid.js", "L1"),
        node("functions_valid_valid", "valid()", "functions/valid.js", "L2", _callable=True),
        node("classes_semver", "semver.js", "classes/semver.js", "L1"),
        node("classes_semver_semver", "SemVer", "classes/semver.js", "L1", _callable=True, _callable_class=True),
        node("classes_semver_constructor", ".constructor()", "classes/semver.js", "L2", _callable=True),
    ]
    edges = [
        edge("functions_parse", "functions_parse_semver", "contains", path="functions/parse.js", location="L1"),
        edge("functions_parse", "functions_parse_parse", "contains", path="functions/parse.js", location="L2"),
        edge("functions_parse_parse", "functions_parse_semver", "calls", path="functions/parse.js", location="L3"),
        edge("functions_clean", "functions_clean_parse", "contains", path="functions/clean.js", location="L1"),
        edge("functions_clean", "functions_clean_clean", "contains", path="functions/clean.js", location="L2"),
        edge("functions_clean_clean", "functions_clean_parse", "calls", path="functions/clean.js", location="L3"),
        edge("functions_valid", "functions_valid_parse", "contains", path="functions/valid.js", location="L1"),
        edge("functions_valid", "functions_valid_valid", "contains", path="functions/valid.js", location="L2"),
        edge("functions_valid_valid", "functions_valid_parse", "calls", path="functions/valid.js", location="L3"),
        edge("classes_semver", "classes_semver_semver", "contains", path="classes/semver.js", location="L1"),
        edge("classes_semver_semver", "classes_semver_constructor", "method", path="classes/semver.js",
             location="L2"),
    ]
    return {"nodes": nodes, "edges": edges, "hyperedges": [], "input_tokens": 0, "output_tokens": 0,
            "extracted_sources": []}


def published(repo: Path, state: Path, graph: dict[str, Any]) -> Any:
    """Publish with every committed file in the provider's inventory (JavaScript and Go too)."""
    return publish(repo, state, graph, inventory=inventory_for(repo, git(repo, "ls-files").splitlines()))


@pytest.fixture
def semver(tmp_path: Path, state_dir: Path):  # type: ignore[no-untyped-def]
    return published(make_repo(tmp_path / "semver", FILES), state_dir, _semver_graph())


# 1 ---------------------------------------------------------------------------------------------

def test_a_call_the_graph_linked_to_another_same_named_definition_is_resolved_to_the_right_one(semver) -> None:
    """The graph links each ``parse(version)`` to its file's ``const parse = require('./parse')``
    binding; the JavaScript resolver follows the ``require`` to ``module.exports = parse`` and binds
    the calls to parse.js's ``parse()``, so they are its resolved callers (not textual mentions),
    and ``module.exports = parse`` is a resolved reference (not an export mention)."""
    wire = ask_context(semver, "usage", "functions/parse.js::parse()", wire=True)
    document = readable(wire)
    assert document["status"] == "answered"
    assert document["anchors"][0]["path"] == "functions/parse.js"
    resolved = document["sections"]["resolved_callers"]["items"]
    assert [(i["label"], i["site"]["path"], i["site"]["line"], i["relation"]) for i in resolved] == [
        ("clean()", "functions/clean.js", 3, "call"), ("parse.js", "functions/parse.js", 5, "reference"),
        ("valid()", "functions/valid.js", 3, "call")]
    for item in resolved:  # each cited line holds the name
        assert "parse" in FILES[item["site"]["path"]].splitlines()[item["site"]["line"] - 1]
    assert mention_lines(document) == [] and _exports(document) == []
    # the graph's empty caller section never reads as "no caller" beside those uses
    callers = document["sections"]["callers"]
    assert callers["status"] == "empty"
    assert "3 use(s) resolved from the code" in callers["detail"]
    assert "No caller reaches it" not in document["answer"]
    out = io.StringIO()
    print_context(Console(file=out, width=400, color_system=None), wire)
    assert "functions/clean.js#L3" in out.getvalue()


def test_a_line_linked_to_the_asked_definition_is_carried_not_mentioned(semver) -> None:
    """The binding in clean.js is asked for: its own call site is the graph's, so not a mention;
    valid.js's call is bound by the resolver to parse.js's ``parse()``, so it is not one either
    (counted as bound elsewhere)."""
    document = ask_context(semver, "usage", "functions/clean.js::parse")
    assert [i["label"] for i in document["sections"]["callers"]["items"]] == ["clean()"]
    assert mention_lines(document) == []
    assert document["sections"]["mentions"]["bound_elsewhere"] == 2


def _exports(document: dict[str, Any]) -> list[tuple[str, int]]:
    """The lines the dynamic_uses section of a read-back answer (``readable``) lists as exports."""
    return [(item["path"], item["line"]) for item in document["sections"]["dynamic_uses"]["items"]
            if item["use"] == "export"]


SUPER = '''class PoolManager:
    def __init__(self, num_pools=10):
        self.num_pools = num_pools


class ProxyManager(PoolManager):
    def __init__(self, proxy_url):
        super().__init__(num_pools=1)
        self.proxy_url = proxy_url
'''


def test_super_init_linked_to_the_subclass_own_init_is_a_mention_of_the_base_init(
        tmp_path: Path, state_dir: Path) -> None:
    """urllib3's shape: the provider links ``super().__init__(...)`` in ProxyManager to
    ProxyManager's own ``.__init__()``; asked about PoolManager.__init__, the resolver binds that
    line to it through the MRO (a resolved use from ProxyManager's ``.__init__()``), so it is no
    longer left to a mention."""
    repo = make_repo(tmp_path / "pm", {"pm/poolmanager.py": SUPER})
    graph = {"nodes": [
        node("pm_file", "poolmanager.py", "pm/poolmanager.py", "L1"),
        node("pm_pool", "PoolManager", "pm/poolmanager.py", "L1"),
        node("pm_pool_init", ".__init__()", "pm/poolmanager.py", "L2"),
        node("pm_proxy", "ProxyManager", "pm/poolmanager.py", "L6"),
        node("pm_proxy_init", ".__init__()", "pm/poolmanager.py", "L7"),
    ], "edges": [
        edge("pm_file", "pm_pool", "contains", path="pm/poolmanager.py", location="L1"),
        edge("pm_file", "pm_proxy", "contains", path="pm/poolmanager.py", location="L6"),
        edge("pm_pool", "pm_pool_init", "method", path="pm/poolmanager.py", location="L2"),
        edge("pm_proxy", "pm_proxy_init", "method", path="pm/poolmanager.py", location="L7"),
        edge("pm_proxy", "pm_pool", "inherits", path="pm/poolmanager.py", location="L6"),
        edge("pm_proxy_init", "pm_proxy_init", "calls", path="pm/poolmanager.py", location="L8"),
    ], "hyperedges": [], "input_tokens": 0, "output_tokens": 0, "extracted_sources": []}
    workspace = published(repo, state_dir, graph)
    document = ask_context(workspace, "usage", "PoolManager.__init__")
    assert document["status"] == "answered", document["answer"]
    assert document["anchors"][0]["line"] == 2
    found = document["sections"]["resolved_callers"]["items"]
    assert [(i["label"], i["line"], i["site"]["line"], i["relation"]) for i in found] == [(".__init__()", 7, 8, "call")]
    assert document["sections"]["mentions"]["reason"] == "no_mention"
    assert "no caller" not in document["answer"].lower()


# 2 ---------------------------------------------------------------------------------------------

def test_a_bare_name_prefers_the_function_over_require_bindings_and_names_them(semver) -> None:
    document = ask_context(semver, "usage", "parse")
    assert document["status"] == "answered", document["answer"]
    assert [(a["label"], a["path"]) for a in document["anchors"]] == [("parse()", "functions/parse.js")]
    cites = {c["id"]: c["cite"] for c in document["citations"]}
    named = re.search(r"chosen over 2 variable binding\(s\) of the same name[^:]*: (.*?)\.", document["answer"])
    assert named is not None, document["answer"]
    ids = re.findall(r"\[(c\d+)\]", named.group(1))
    assert [cites[i] for i in ids] == ["functions/clean.js#L1", "functions/valid.js#L1"]


def test_a_bare_name_prefers_the_class_over_a_same_named_binding(semver) -> None:
    document = ask_context(semver, "how", "SemVer")
    assert document["status"] == "answered", document["answer"]
    assert [(a["label"], a["path"]) for a in document["anchors"]] == [("SemVer", "classes/semver.js")]
    assert "chosen over 1 variable binding(s)" in document["answer"]


def test_several_real_definitions_stay_ambiguous_with_the_bindings_ranked_last(
        tmp_path: Path, state_dir: Path) -> None:
    files = {**FILES, "ranges/parse.js": "const parse = (range) => {\n  return range\n}\nmodule.exports = parse\n"}
    graph = _semver_graph()
    graph["nodes"].append(node("ranges_parse_parse", "parse()", "ranges/parse.js", "L1", _callable=True))
    workspace = published(make_repo(tmp_path / "two", files), state_dir, graph)
    document = ask_context(workspace, "usage", "parse")
    assert document["status"] == "ambiguous"
    assert document["candidates"] == {"shown": 4, "total": 4}
    assert [(a["label"], a["path"]) for a in document["anchors"]] == [
        ("parse()", "functions/parse.js"), ("parse()", "ranges/parse.js"),
        ("parse", "functions/clean.js"), ("parse", "functions/valid.js")]


def test_only_bindings_of_a_name_are_still_candidates(semver) -> None:
    """Nothing better exists: the bindings are what the name means here (never unresolved)."""
    document = ask_context(semver, "usage", "functions/clean.js::parse")
    assert document["status"] == "answered"
    assert "variable binding" not in document["answer"]


# 14 --------------------------------------------------------------------------------------------

GO = "package uuid\n\nfunc FromBytes(b []byte) []byte {\n\treturn b\n}\n"
GO_TEST = ("package uuid\n\nimport \"testing\"\n\nfunc TestFromBytes(t *testing.T) {\n"
           "\tb := []byte{1}\n\tif FromBytes(b) == nil {\n\t\tt.Fatal(\"nil\")\n\t}\n}\n")


def test_prose_and_table_cite_an_item_by_the_same_id(tmp_path: Path, state_dir: Path) -> None:
    """go-uuid's shape: the test reaches the anchor by a call with a site; the prose named the
    test's definition (c2) while its table row showed the call site (c3)."""
    repo = make_repo(tmp_path / "uuid", {"uuid.go": GO, "uuid_test.go": GO_TEST})
    graph = {"nodes": [
        node("uuid_fb", "FromBytes()", "uuid.go", "L3"),
        node("uuid_test_fb", "TestFromBytes()", "uuid_test.go", "L5"),
    ], "edges": [
        edge("uuid_test_fb", "uuid_fb", "calls", "INFERRED", path="uuid_test.go", location="L7"),
    ], "hyperedges": [], "input_tokens": 0, "output_tokens": 0, "extracted_sources": []}
    workspace = published(repo, state_dir, graph)
    for intent, section in (("tests", "tests"), ("usage", "callers"), ("impact", "callers_by_hop")):
        wire = ask_context(workspace, intent, "FromBytes", wire=True)
        document = readable(wire)
        out = io.StringIO()
        print_context(Console(file=out, width=400, color_system=None), wire)
        row = next(line for line in out.getvalue().splitlines() if "TestFromBytes()" in line and "│" in line)
        row_id = row.split("│")[1].strip()
        assert f"`TestFromBytes()` [{row_id}]" in document["answer"], (intent, row, document["answer"])
        assert document["sections"][section]["items"][0]["site"]["cite"] == row_id


# real provider ---------------------------------------------------------------------------------

@pytest.mark.provider
def test_the_real_provider_on_a_commonjs_project(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {**FILES, "package.json": '{"name": "tiny"}\n'})
    out = tmp_path / "graphify-out"
    provider_extract(repo, out)
    state = tmp_path / "state"
    built = run_installed("build", "--from-graph", out, "--state-dir", state, cwd=repo)
    assert built.returncode == 0, built.stderr
    asked = run_installed("context", "usage", "parse", "--json", "--state-dir", state, cwd=repo)
    assert asked.returncode == 0, asked.stdout + asked.stderr
    document = readable(json.loads(asked.stdout))
    assert [(a["label"], a["path"]) for a in document["anchors"]] == [("parse()", "functions/parse.js")]
    assert "chosen over 2 variable binding(s)" in document["answer"]
    resolved = {(i["site"]["path"], i["site"]["line"], i["relation"])
                for i in document["sections"]["resolved_callers"]["items"]}
    assert {("functions/clean.js", 3, "call"), ("functions/valid.js", 3, "call")} <= resolved
