"""Issue 25 items 5, 7, 13 and 15 on the fleet itself: a sealed fleet index whose citations are
checked against each member's own census, one judgement of a member for ``fleet usages`` and
``doctor --fleet``, an empty fleet said to be empty, and answer ids a commit does not move.

Real git checkouts (fleetkit.py), real SQLite files, the typer app through CliRunner.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import apsw
from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.context.from_workspace import code_context
from cm_graph.fleet.build import open_fleet
from cm_graph.fleet.doctor import fleet_doctor
from cm_graph.fleet.members import add_member, member_from, remove_member
from cm_graph.fleet.usages import cross_repo_usages
from cm_graph.generation.layout import Workspace

from ..support.fleetkit import app_graph, publish_complete
from ..support.g0 import g0_graph, make_g0_repo
from ..support.helpers import commit_all, make_repo, publish, write_files
from .test_fleet import _usages, fleet  # noqa: F401  (the fixture)

RUNNER = CliRunner()


def _tamper(state: Path, statement: str) -> Path:
    """Run ``statement`` on the fleet's index file in place (as anyone who can write it could)."""
    index = open_fleet(state, "deps")
    index.close()
    connection = apsw.Connection(str(index.path))
    connection.execute(statement)
    connection.close()
    return index.path


def test_a_tampered_fleet_index_is_derived_again_never_answered(fleet: tuple[Path, dict[str, Path]]) -> None:  # noqa: F811
    state, _ = fleet
    honest = _usages(state, "helper")
    assert [d["citation"] for d in honest["definitions"]] == ["src/lib_pkg/core.py#L12"]
    path = _tamper(state, "UPDATE symbols SET line = line + 3")
    answer = _usages(state, "helper")
    assert [d["citation"] for d in answer["definitions"]] == ["src/lib_pkg/core.py#L12"], answer["definitions"]
    assert answer["answer_id"] == honest["answer_id"] and answer["unverified_citations"] == 0
    again = open_fleet(state, "deps")
    again.close()
    assert again.path == path and not again.built  # derived once more, then sealed and reused


def test_a_forged_seal_still_cannot_cite_a_line_the_member_lacks(fleet: tuple[Path, dict[str, Path]]) -> None:  # noqa: F811
    """Whoever rewrites the file and its seal together still meets the member's own census: the
    citation is checked against the index of the generation it came from, as every citation is."""
    from cm_graph.index.seal import write_derived_seal

    state, _ = fleet
    index = open_fleet(state, "deps")
    index.close()
    path = _tamper(state, "UPDATE symbols SET line = 400 WHERE name = 'helper'")  # core.py has 22 lines
    write_derived_seal(path, index.digest)
    forged = _usages(state, "helper")
    assert forged["definitions"] == [] and forged["unverified_citations"] == 1
    path = _tamper(state, "UPDATE references_out SET line = 300 WHERE name = 'Session'")
    write_derived_seal(path, index.digest)
    session = _usages(state, "Session")
    assert session["usages_by_repository"] == {} and session["unverified_citations"] == 1


def test_fleet_usages_and_the_doctor_judge_each_member_alike(
    fleet: tuple[Path, dict[str, Path]], tmp_path: Path,  # noqa: F811
) -> None:
    """A checkout that became another repository (same path, the bound commit gone) is missing in
    both, with one reason; so are a deleted checkout and one with no graph; a member a commit
    behind is covered (stale) in both."""
    state, repos = fleet
    shutil.rmtree(repos["app"])
    make_repo(repos["app"], {"other.py": "x = 1\n"})
    write_files(repos["other"], {"NEWS": "moved on\n"})
    commit_all(repos["other"], "after the build")
    bare = make_repo(tmp_path / "bare", {"x.py": "x = 1\n"})
    add_member(state, "deps", member_from(state, connection=None, repo_path=bare, repository="nograph"))
    gone = make_g0_repo(tmp_path / "gone")
    publish(gone, state, g0_graph())
    add_member(state, "deps", member_from(state, connection=None, repo_path=gone, repository=None))
    shutil.rmtree(gone)
    answer = _usages(state, "helper")
    report = fleet_doctor(state, "deps")
    missing = {m["repository"]: m["state"] for m in answer["coverage"]["missing"]}
    assert missing == {"app": "bound_commit_missing", "gone": "checkout_missing", "nograph": "absent"}
    assert {m["repository"]: m["reason"] for m in report["members"] if m["search"] != "available"} == missing
    assert answer["coverage"]["members_covered"] == 2 and report["summary"]["coverage_pct"] == 40.0
    assert answer["freshness"]["stale"] == ["other"]
    text = RUNNER.invoke(app, ["fleet", "usages", "deps", "helper", "--state-dir", str(state)])
    assert "covered 2/5 members; stale: other; missing: app (bound_commit_missing)" in text.stdout, text.stdout


def test_an_empty_fleet_says_it_has_no_members(fleet: tuple[Path, dict[str, Path]]) -> None:  # noqa: F811
    state, repos = fleet
    add_member(state, "empty", member_from(state, connection=None, repo_path=repos["lib"], repository=None))
    remove_member(state, "empty", "lib")
    ran = RUNNER.invoke(app, ["fleet", "usages", "empty", "helper", "--state-dir", str(state), "--json"])
    assert ran.exit_code == 1 and ran.stderr.startswith("cm-graph: no_members: "), ran.output  # issue 32 item 5
    answer = json.loads(ran.stdout)
    assert answer["status"] == "unavailable" and "check the spelling" not in json.dumps(answer), answer
    assert answer["reason"] == "no_members"
    assert answer["coverage"] == {"members_total": 0, "members_covered": 0, "missing": [], "complete": False}
    assert "has no members" in answer["answer"]
    assert answer["next_actions"][0]["command"] == "cm-graph fleet add empty --repo-path PATH"
    text = RUNNER.invoke(app, ["fleet", "usages", "empty", "helper", "--state-dir", str(state)])
    assert "helper: unavailable" in text.stdout and "covered 0/0 members" in text.stdout


def test_a_commit_in_any_member_keeps_every_answer_id(fleet: tuple[Path, dict[str, Path]]) -> None:  # noqa: F811
    """Ids name the answer: a README line committed in the asking checkout and in another member
    changes freshness (outside the id), not one row the answer is made of, nor the fleet file."""
    state, repos = fleet
    first = open_fleet(state, "deps")
    first.close()
    usages, context = _usages(state, "helper"), code_context(Workspace(repos["lib"], state), "usage", "helper")
    missing = _usages(state, "nowhere_at_all")
    for name in ("lib", "app"):
        write_files(repos[name], {"README": "one line\n"})
        commit_all(repos[name], "docs")
    moved = code_context(Workspace(repos["lib"], state), "usage", "helper")
    assert moved["answer_id"] == context["answer_id"]
    assert _usages(state, "helper")["answer_id"] == usages["answer_id"]
    assert moved["freshness"]["state"] == "stale" and moved["freshness"]["fleet"]["stale"] == ["app", "lib"]
    after = open_fleet(state, "deps")
    after.close()
    assert (after.built, after.path) == (False, first.path)  # nothing it holds changed: not derived again
    unmoved = _usages(state, "nowhere_at_all")  # its advice now names the stale members; its id stays
    assert "searched only at an older commit: app, lib" in unmoved["next_actions"][0]["why"]
    assert unmoved["answer_id"] == missing["answer_id"]
    publish_complete(repos["app"], state, app_graph())  # the control: a refresh is a new generation, a new id
    assert _usages(state, "helper")["answer_id"] != usages["answer_id"]


def test_a_member_the_access_refuses_is_not_read(fleet: tuple[Path, dict[str, Path]]) -> None:  # noqa: F811
    """``cross_repo_usages`` with an agent's access (surfaces pass ``member_authorizes``): the
    refused member's definitions, usages and name matches are all left out, and it is named only
    as ``unauthorized``; without an access (the operator's CLI) every member is read."""
    state, _ = fleet
    index = open_fleet(state, "deps")
    try:
        everyone = cross_repo_usages(index, "Client")
        withheld = cross_repo_usages(index, "Client", access=lambda member: member.repository != "other")
        no_app = cross_repo_usages(index, "Base", access=lambda member: member.repository != "app")
    finally:
        index.close()
    assert everyone["status"] == "ambiguous" and "otherlib/__init__.py" in json.dumps(everyone)
    assert withheld["status"] == "ok" and "otherlib" not in json.dumps(withheld)
    assert [d["repository"] for d in withheld["definitions"]] == ["lib"]
    assert withheld["coverage"]["missing"] == [{"repository": "other", "state": "unauthorized"}]
    assert withheld["usages_by_repository"]["app"]["items"][0]["definition"] == "lib:src/lib_pkg/core.py#L5"
    assert no_app["name_matches_by_repository"] == {} and "app/main.py" not in json.dumps(no_app)


def test_a_directory_where_the_fleet_index_belongs_is_a_refusal_on_every_surface(
    fleet: tuple[Path, dict[str, Path]],  # noqa: F811
) -> None:
    """Nothing may be renamed over a directory the operator left at the index's path: the fleet
    commands and code_context's cross_repo section (on an agent surface too) refuse in one
    sentence, never fail inside."""
    from cm_graph.connections.store import ConnectionStore, connect
    from cm_graph.surfaces.authority import Caller
    from cm_graph.surfaces.dispatch import call_tool
    from cm_graph.surfaces.tools import BY_NAME

    state, repos = fleet
    index = open_fleet(state, "deps")
    index.close()
    path = index.path
    path.unlink()
    path.mkdir(mode=0o700)
    connect(ConnectionStore(state), "local-graph", repos["lib"], ["acme/lib"], ["claude:builder"])
    reply = call_tool(Caller(state, "local-graph", "claude:builder"), BY_NAME["code_context"],
                      {"target": "helper", "intent": "usage"})
    assert reply.payload.get("reason") != "internal", reply.payload
    ran = RUNNER.invoke(app, ["fleet", "usages", "deps", "helper", "--state-dir", str(state)])
    assert ran.exit_code == 1 and ran.stderr.startswith("cm-graph: not_a_file: "), ran.output
