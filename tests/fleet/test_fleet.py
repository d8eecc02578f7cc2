"""The fleet: members, the derived fleet index and ``cross_repo_usages`` on real repositories.

Real git checkouts in temp dirs with generations published as another tool would (fleetkit.py),
real SQLite files, the typer app through CliRunner. What issue 17 asks: definitions and usages
grouped by repository, anchored strongest first (package-qualified, receiver type with the
single-definition guard, name only, never merged), ambiguity with candidates and no made-up
edge, verified citations, coverage with stale and missing members, shown/total and a size
budget, and an index keyed by the members' generations: rebuilt, never patched.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cm_graph.base.errors import Refusal
from cm_graph.cli.app import app
from cm_graph.context.wire import section_items
from cm_graph.fleet.build import open_fleet
from cm_graph.fleet.members import add_member, member_from, read_members, remove_member
from cm_graph.fleet.usages import cross_repo_usages

from ..support.fleetkit import lib_graph, make_fleet_repos, publish_complete
from ..support.helpers import commit_all, make_repo, write_files

RUNNER = CliRunner()


@pytest.fixture
def fleet(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    state = tmp_path / "state"
    repos = make_fleet_repos(tmp_path, state)
    for name in ("lib", "other", "app"):
        add_member(state, "deps", member_from(state, connection=None, repo_path=repos[name], repository=None))
    return state, repos


def _usages(state: Path, symbol: str, **limits: Any) -> dict[str, Any]:
    index = open_fleet(state, "deps")
    try:
        return cross_repo_usages(index, symbol, **limits)
    finally:
        index.close()


def test_a_package_qualified_import_anchors_to_the_declaring_package(fleet: tuple[Path, dict[str, Path]]) -> None:
    state, _ = fleet
    answer = _usages(state, "helper")
    assert answer["status"] == "ok"
    assert [(d["repository"], d["citation"], d["qualified_name"]) for d in answer["definitions"]] == [
        ("lib", "src/lib_pkg/core.py#L12", "lib_pkg.core.helper")]
    assert answer["usages_by_repository"] == {"app": {"shown": 1, "total": 1, "items": [{
        "path": "app/main.py", "line": 1, "citation": "app/main.py#L1", "anchor": "package",
        "via": "import from lib_pkg.core", "definition": "lib:src/lib_pkg/core.py#L12"}]}}
    # the multi-line import's statement line, read from the bound commit (the provider kept one edge)
    assert [i["citation"] for i in _usages(state, "Session")["usages_by_repository"]["app"]["items"]] == [
        "app/main.py#L3"]


def test_two_definitions_are_ambiguous_but_the_package_still_anchors_the_usage(
    fleet: tuple[Path, dict[str, Path]],
) -> None:
    state, _ = fleet
    answer = _usages(state, "Client")
    assert answer["status"] == "ambiguous"
    assert sorted(d["repository"] for d in answer["definitions"]) == ["lib", "other"]
    [action] = answer["next_actions"]
    assert action["arguments"]["symbol"] in ("lib_pkg.core.Client", "otherlib.Client"), action
    assert action["command"] == f"cm-graph fleet usages deps {action['arguments']['symbol']}", action
    [item] = answer["usages_by_repository"]["app"]["items"]
    assert (item["anchor"], item["definition"]) == ("package", "lib:src/lib_pkg/core.py#L5")
    qualified = _usages(state, "otherlib.Client")
    assert qualified["status"] == "ok" and qualified["usages_by_repository"] == {}  # `import otherlib` names no Client


def test_a_parked_member_call_binds_by_receiver_type_only_under_the_single_definition_guard(
    fleet: tuple[Path, dict[str, Path]], tmp_path: Path,
) -> None:
    state, repos = fleet
    [item] = _usages(state, "send")["usages_by_repository"]["app"]["items"]
    assert (item["anchor"], item["via"], item["citation"], item["definition"]) == (
        "receiver_type", "call on Session", "app/main.py#L13", "lib:src/lib_pkg/core.py#L17")
    # a second declaration of Session in the fleet: the call is ambiguous, never bound to one
    twin = make_repo(tmp_path / "twin", {"pyproject.toml": '[project]\nname = "twin"\n',
                                         "twin/core.py": "\n".join(["x"] * 20)})
    graph = lib_graph()
    for record in graph["nodes"] + graph["edges"]:
        for key in ("id", "source", "target", "source_file"):
            if isinstance(record.get(key), str):
                record[key] = record[key].replace("src_lib_pkg_core", "twin_core").replace(
                    "src/lib_pkg/core.py", "twin/core.py")
    graph["nodes"] = [n for n in graph["nodes"] if n["id"] != "twin_core_ghost"]
    publish_complete(twin, state, graph)
    add_member(state, "deps", member_from(state, connection=None, repo_path=twin, repository=None))
    [item] = _usages(state, "send")["usages_by_repository"]["app"]["items"]
    assert item["anchor"] == "ambiguous" and "definition" not in item
    assert item["candidates"] == ["lib:src/lib_pkg/core.py#L17", "twin:twin/core.py#L17"]


def test_a_bare_name_is_a_name_match_listed_apart(fleet: tuple[Path, dict[str, Path]]) -> None:
    state, _ = fleet
    answer = _usages(state, "Base")
    assert answer["usages_by_repository"] == {}
    assert answer["name_matches_by_repository"]["app"]["items"] == [{
        "path": "app/main.py", "line": 8, "citation": "app/main.py#L8", "anchor": "name_match", "via": "name",
        "candidates": ["lib:src/lib_pkg/core.py#L21"]}]


def test_a_definition_whose_line_the_census_refutes_is_not_listed(fleet: tuple[Path, dict[str, Path]]) -> None:
    state, _ = fleet
    assert _usages(state, "ghost")["status"] == "not_found"


def test_coverage_names_stale_and_missing_members(fleet: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    state, repos = fleet
    write_files(repos["other"], {"NEWS": "moved on\n"})
    commit_all(repos["other"], "after the build")
    bare = make_repo(tmp_path / "bare", {"x.py": "x = 1\n"})
    add_member(state, "deps", member_from(state, connection=None, repo_path=bare, repository="nograph"))
    answer = _usages(state, "helper")
    assert answer["coverage"] == {
        "members_total": 4, "members_covered": 3,
        "missing": [{"repository": "nograph", "state": "absent"}], "complete": False,
    }
    assert answer["freshness"] == {"state": "stale", "stale": ["other"]}  # its checkouts now, outside the id
    assert answer["status"] == "ok"  # a stale member still answers, from its bound commit


def test_shown_total_and_the_size_budget(fleet: tuple[Path, dict[str, Path]]) -> None:
    state, _ = fleet
    answer = _usages(state, "Client", max_items=1, max_chars=2000)
    group = answer["usages_by_repository"]["app"]
    assert (group["shown"], group["total"]) == (1, 1) and answer["bounds"]["truncated"] is False
    assert len(json.dumps(answer)) < 4000
    with pytest.raises(Refusal) as refused:
        _usages(state, "Client", max_items=0)
    assert refused.value.reason == "invalid"


def test_the_fleet_index_is_private_keyed_by_generations_and_rebuilt_never_patched(
    fleet: tuple[Path, dict[str, Path]],
) -> None:
    state, repos = fleet
    first = open_fleet(state, "deps")
    first.close()
    assert first.built and stat.S_IMODE(os.stat(first.path).st_mode) == 0o600
    again = open_fleet(state, "deps")
    again.close()
    assert (again.built, again.path) == (False, first.path)
    before = first.path.read_bytes()
    # same members added in another order: the same file, byte for byte
    for name in ("lib", "other", "app"):
        remove_member(state, "deps", name)
    for name in ("app", "lib", "other"):
        add_member(state, "deps", member_from(state, connection=None, repo_path=repos[name], repository=None))
    os.unlink(first.path)
    rebuilt = open_fleet(state, "deps")
    rebuilt.close()
    assert rebuilt.path == first.path and rebuilt.path.read_bytes() == before
    publish_complete(repos["lib"], state, lib_graph())  # a new generation of one member: a new file
    newer = open_fleet(state, "deps")
    newer.close()
    assert newer.built and newer.path != first.path and not first.path.exists()


def test_fleet_commands_and_their_refusals(fleet: tuple[Path, dict[str, Path]]) -> None:
    state, repos = fleet
    listed = RUNNER.invoke(app, ["fleet", "list", "deps", "--state-dir", str(state), "--json"])
    assert listed.exit_code == 0, listed.output
    assert [m["repository"] for m in json.loads(listed.stdout)["members"]] == ["lib", "other", "app"]
    used = RUNNER.invoke(app, ["fleet", "usages", "deps", "lib_pkg.core.helper", "--state-dir", str(state), "--json"])
    assert used.exit_code == 0 and json.loads(used.stdout)["usages_by_repository"]["app"]["total"] == 1
    text = RUNNER.invoke(app, ["fleet", "usages", "deps", "Client", "--state-dir", str(state)])
    assert text.exit_code == 1 and "Client: ambiguous" in text.stdout and "app/main.py#L1  [package]" in text.stdout
    twice = RUNNER.invoke(app, ["fleet", "add", "deps", "--repo-path", str(repos["lib"]), "--state-dir", str(state)])
    assert twice.exit_code == 1 and "cm-graph: invalid: That checkout is already a member" in twice.stderr
    missing = RUNNER.invoke(app, ["fleet", "usages", "nope", "X", "--state-dir", str(state), "--json"])
    assert missing.exit_code == 1 and json.loads(missing.stdout)["reason"] == "not_configured"
    assert "Traceback" not in missing.output
    gone = RUNNER.invoke(app, ["fleet", "remove", "deps", "app", "--state-dir", str(state), "--json"])
    assert gone.exit_code == 0 and [m["repository"] for m in json.loads(gone.stdout)["members"]] == ["lib", "other"]
    assert [m.repository for m in read_members(state, "deps")] == ["lib", "other"]
    both = RUNNER.invoke(app, ["fleet", "add", "deps", "--state-dir", str(state)])
    assert both.exit_code == 1 and "exactly one of --connection or --repo-path" in both.stderr


@pytest.mark.parametrize("repeat", ["repository", "checkout", "member"])
def test_a_fleet_file_naming_a_member_twice_says_so_and_its_remedy_mends_it(
    fleet: tuple[Path, dict[str, Path]], repeat: str,
) -> None:
    """A hand-edited fleet file: never the index's words (a rebuild of an index changes nothing)."""
    state, repos = fleet
    path = state / "fleet" / "deps" / "fleet.json"
    listing = json.loads(path.read_bytes())
    first, second = listing["members"][0], listing["members"][1]
    if repeat == "member":
        listing["members"].append(dict(first))
    else:
        second[repeat] = first[repeat]
    path.write_text(json.dumps(listing))
    where = ["--state-dir", str(state)]
    for args in (["fleet", "usages", "deps", "helper"], ["doctor", "--fleet", "deps"], ["fleet", "list", "deps"]):
        refused = RUNNER.invoke(app, [*args, *where])
        assert refused.exit_code == 1 and "index" not in refused.stderr, (args, refused.output)
        assert refused.stderr.startswith("cm-graph: invalid: The fleet file names "), (args, refused.stderr)
    remedy = refused.stderr.split("run `", 1)[1].split("`", 1)[0].split()
    assert remedy[:3] == ["cm-graph", "fleet", "remove"]
    assert RUNNER.invoke(app, [*remedy[1:], *where]).exit_code == 0
    if repeat != "checkout":  # the remedy removed both entries of the repository: add it again
        again = RUNNER.invoke(app, ["fleet", "add", "deps", "--repo-path", str(repos["lib"]), *where])
        assert again.exit_code == 0, again.output
    used = RUNNER.invoke(app, ["fleet", "usages", "deps", "lib_pkg.core.helper", *where, "--json"])
    assert used.exit_code == 0 and json.loads(used.stdout)["usages_by_repository"]["app"]["total"] == 1


def test_a_member_by_connection(fleet: tuple[Path, dict[str, Path]]) -> None:
    state, repos = fleet
    connected = RUNNER.invoke(app, ["connect", "--connection", "libc", "--repository", "acme/lib", "--recipient",
                                    "claude:builder", "--repo-path", str(repos["lib"]), "--state-dir", str(state)])
    assert connected.exit_code == 0, connected.output
    added = RUNNER.invoke(app, ["fleet", "add", "viaconn", "--connection", "libc", "--state-dir", str(state), "--json"])
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["members"] == [
        {"repository": "acme/lib", "checkout": str(repos["lib"]), "connection": "libc"}]


def test_code_context_usage_fills_cross_repo_from_the_fleet(fleet: tuple[Path, dict[str, Path]]) -> None:
    from cm_graph.context.from_workspace import code_context
    from cm_graph.generation.layout import Workspace

    state, repos = fleet
    document = code_context(Workspace(repos["lib"], state), "usage", "helper")
    assert "cross_repo_usages" in document["used_primitives"]
    section = document["sections"]["cross_repo"]
    assert (section["status"], section["fleet"], section["shown"], section["total"]) == ("ok", "deps", 1, 1)
    [item] = section_items(section)
    assert item["repository"] == "app" and item["citation"] == "app/main.py#L1"
    answer = code_context(Workspace(repos["lib"], state), "usage", "helper")["answer"]
    assert "Used from other repositories of the fleet deps (1): app app/main.py#L1." in answer
    # the other Client (otherlib's) is not this repository's: its usage section is empty, not borrowed
    other = code_context(Workspace(repos["other"], state), "usage", "Client")["sections"]["cross_repo"]
    assert (other["status"], other["reason"]) == ("empty", "no_cross_repo_usage")


def test_a_cut_answer_keeps_to_its_size_budget_and_says_so(fleet: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:
    """Eighty import statements of one module (the provider keeps one edge, at the first): all
    eighty are usages, and a 2,000-character budget shows what fits, round-robin, and says so."""
    from ..support.fleetkit import publish_complete

    state, _ = fleet
    lines = "\n".join(["from lib_pkg.core import helper"] * 80) + "\n"
    busy = make_repo(tmp_path / "busy", {"busy/mod.py": lines})
    publish_complete(busy, state, {
        "nodes": [{"id": "busy_mod", "label": "mod.py", "file_type": "code", "source_file": "busy/mod.py",
                   "source_location": "L1"}],
        "edges": [{"source": "busy_mod", "target": "lib_pkg_core", "relation": "imports_from", "confidence":
                   "EXTRACTED", "source_file": "busy/mod.py", "source_location": "L1"}],
        "hyperedges": [], "input_tokens": 0, "output_tokens": 0, "extracted_sources": []})
    add_member(state, "deps", member_from(state, connection=None, repo_path=busy, repository=None))
    full = _usages(state, "helper", max_items=200, max_chars=200_000)
    assert full["usages_by_repository"]["busy"]["total"] == 80 and full["bounds"]["truncated"] is False
    cut = _usages(state, "helper", max_items=200, max_chars=2000)
    assert len(json.dumps(cut, sort_keys=True, separators=(",", ":"))) <= 2000
    assert cut["bounds"]["truncated"] is True
    assert 0 < cut["usages_by_repository"]["busy"]["shown"] < 80 == cut["usages_by_repository"]["busy"]["total"]
    assert cut["usages_by_repository"]["app"]["shown"] == 1  # round-robin: every repository keeps its first
