"""Trial finding 12: a fleet ``not_found`` names the members it could not search (the name may be
defined there), and ``doctor --fleet`` gives an ``ok`` member behind HEAD its refresh command."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.fleet.doctor import fleet_doctor, member_actions

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
    assert ran.exit_code == 0 and f"next: cm-graph doctor --fleet deps  ({why})" in ran.stdout


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
