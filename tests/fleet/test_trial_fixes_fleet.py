"""Trial finding 12: a fleet ``not_found`` names the members it could not search (the name may be
defined there), and ``doctor --fleet`` gives an ``ok`` member behind HEAD its refresh command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.fleet.doctor import fleet_doctor, member_actions
from cm_graph.fleet.members import add_member, member_from

from ..support.helpers import commit_all, write_files
from .test_fleet import _usages, fleet  # noqa: F401  (the fixture)
from .test_fleet_doctor import _commits, _member, _rows


def test_not_found_names_the_members_it_could_not_search(fleet: tuple[Path, dict[str, Path]]) -> None:  # noqa: F811
    state, repos = fleet
    complete = _usages(state, "nowhere_at_all")
    assert complete["status"] == "not_found" and "check the spelling" in complete["next_actions"][0]["why"]

    write_files(repos["other"], {"NEWS": "moved on\n"})
    commit_all(repos["other"], "after the build")
    shutil.rmtree(repos["lib"])  # the member that defines helper() is gone
    answer = _usages(state, "helper")
    assert answer["status"] == "not_found" and answer["definitions"] == []
    [action] = answer["next_actions"]
    why = action["why"]
    assert "check the spelling" not in why and "may be defined" in why, action
    assert "not searched: lib (checkout_missing)" in why and "searched only at an older commit: other" in why
    assert action == {"why": why, "command": "cm-graph doctor --fleet deps", "tool": "graph_status",
                      "arguments": {"fleet": "deps"}}

    ran = CliRunner().invoke(app, ["fleet", "usages", "deps", "helper", "--state-dir", str(state)])
    assert ran.exit_code == 1 and f"next: cm-graph doctor --fleet deps  ({why})" in ran.stdout


def test_an_ok_member_behind_head_gets_its_refresh_command(tmp_path: Path) -> None:
    state = tmp_path / "state"
    behind = _member(tmp_path, state, "one-after")
    _commits(behind, 1)
    _member(tmp_path, state, "at-head")
    rows = _rows(fleet_doctor(state, "f"))
    one = rows["one-after"]
    assert (one["verdict"], one["state"], one["behind"]) == ("ok", "stale", 1)
    assert one["next_action"] == f"cm-graph refresh --repo-path {behind}"
    assert one["detail"] == "The graph is 1 commit behind HEAD (within the thresholds)."
    assert (rows["at-head"]["verdict"], rows["at-head"]["next_action"]) == ("ok", None)


def test_the_fleet_doctor_gives_an_agent_each_members_command(tmp_path: Path) -> None:
    """Issue 26 item 1: ``graph_status`` with ``fleet`` offers the doctor's per-member next
    actions as ``{why, command}`` (its strings before): the doctor's own command where it wrote
    one, else the command of the member's reason's remedy (base/errors.py), filled with its
    checkout and the fleet; a member git cannot answer for is a ``graph_status`` call."""
    state = tmp_path / "state"
    behind = _member(tmp_path, state, "one-after")
    _commits(behind, 1)
    gone = _member(tmp_path, state, "gone")
    shutil.rmtree(gone)
    actions = member_actions("f", fleet_doctor(state, "f"))
    assert actions == [
        {"why": "gone: the member's checkout is gone", "command": f"cm-graph fleet remove f {gone}"},
        {"why": "one-after: behind HEAD within the thresholds", "command": f"cm-graph refresh --repo-path {behind}"},
    ], actions


def test_fleet_list_without_a_name_lists_the_fleets(fleet: tuple[Path, dict[str, Path]], tmp_path: Path) -> None:  # noqa: F811
    """Issue 32 item 4: ``fleet list`` with no name lists every fleet and its member count (it was
    a usage error); with none configured it says how to add one, exit 0 both."""
    state, repos = fleet
    add_member(state, "apps", member_from(state, connection=None, repo_path=repos["app"], repository=None))
    ran = CliRunner().invoke(app, ["fleet", "list", "--state-dir", str(state), "--json"])
    assert (ran.exit_code, ran.stderr) == (0, ""), ran.output
    assert json.loads(ran.stdout) == {"schema": "cm_graph.fleets.v1", "fleets": [
        {"fleet": "apps", "members": 1}, {"fleet": "deps", "members": 3}]}
    table = CliRunner().invoke(app, ["fleet", "list", "--state-dir", str(state)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "apps" in table.stdout and "3 members" in table.stdout, table.output
    empty = CliRunner().invoke(app, ["fleet", "list", "--state-dir", str(tmp_path / "empty")])
    assert (empty.exit_code, empty.stdout) == (0, "No fleet is configured; add one: cm-graph fleet add FLEET "
                                                   "--repo-path PATH\n"), empty.output


def test_doctor_fleet_prints_each_command_whole_at_80_columns(tmp_path: Path) -> None:
    """Issue 32 item 12: the refresh command a member needs is printed whole, on its own line,
    at 80 columns (the table's "next action" cell cut or folded it); the table keeps the rest."""
    state = tmp_path / "a-state-root-with-a-rather-long-name" / "state"
    behind = _member(tmp_path / "checkouts-under-a-long-directory-name", state, "one-after")
    _commits(behind, 1)
    ran = CliRunner().invoke(app, ["doctor", "--fleet", "f", "--state-dir", str(state)], env={"COLUMNS": "80"})
    command = f"cm-graph refresh --repo-path {behind}"
    assert len(command) > 80 and ran.exit_code == 0, ran.output
    assert f"  {command}" in ran.stdout.splitlines(), ran.stdout
    assert "one-after:" in ran.stdout.splitlines() and "next action" not in ran.stdout
