"""Issue 25 items 1 and 15 through the real surfaces: fleet evidence in ``code_context`` passes the
same per-member authorization as ``cross_repo_usages``, and an answer's id survives a commit in
any fleet checkout, so the agent's order (ask, edit, commit, report) records its feedback.

The fleet is fleetkit's three checkouts with real published generations (no provider needed):
``lib`` (the server's checkout, joined by the server's connection), ``app`` (joined by a
connection that names only ``codex:reviewer``) and ``other`` (joined by its path). ``app`` imports
``lib``'s ``helper``, so the cross_repo section of ``code_context usage helper`` is app's evidence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from cm_graph.connections.store import ConnectionStore, connect, disconnect  # noqa: E402
from cm_graph.context.wire import section_items
from cm_graph.fleet.members import add_member, member_from  # noqa: E402
from cm_graph.generation.layout import Workspace  # noqa: E402
from cm_graph.index.ensure import ensure_index  # noqa: E402

from ..support.fleetkit import make_fleet_repos  # noqa: E402
from ..support.helpers import commit_all, run_installed, write_files  # noqa: E402
from ..support.surfacekit import CONNECTION, RECIPIENT, Served, http_server  # noqa: E402
from .test_mcp_fleet_feedback import call  # noqa: E402
from .test_mcp_server import stdio  # noqa: E402
from .test_rest_twin import serving, uds_client  # noqa: E402

pytestmark = pytest.mark.anyio
REVIEWER = "codex:reviewer"
APP_EVIDENCE = "app/main.py"  # any path of the app checkout: none may reach a recipient app's connection refuses


def fleet_of_three(tmp_path: Path, *, app_by_connection: bool) -> Served:
    state = tmp_path / "state"
    repos = make_fleet_repos(tmp_path, state)
    for repo in repos.values():
        ensure_index(Workspace.locate(repo, state))
    store = ConnectionStore(state)
    connect(store, CONNECTION, repos["lib"], ["acme/lib"], [RECIPIENT, REVIEWER])
    add_member(state, "deps", member_from(state, connection=CONNECTION, repo_path=None, repository=None))
    if app_by_connection:
        connect(store, "app-graph", repos["app"], ["acme/app"], [REVIEWER])
        add_member(state, "deps", member_from(state, connection="app-graph", repo_path=None, repository=None))
    else:
        add_member(state, "deps", member_from(state, connection=None, repo_path=repos["app"], repository="acme/app"))
    add_member(state, "deps", member_from(state, connection=None, repo_path=repos["other"], repository=None))
    return Served(repos["lib"], state)


def assert_app_withheld(answer: dict[str, Any]) -> None:
    section = answer["sections"]["cross_repo"]
    assert APP_EVIDENCE not in json.dumps(answer), "app's evidence reached a recipient its connection refuses"
    assert (section["status"], section.get("shown", 0), section.get("total", 0), section_items(section)) == (
        "empty", 0, 0, [])
    assert section["coverage"] == {"members_total": 3, "members_covered": 2,
                                   "missing": [{"repository": "acme/app", "state": "unauthorized"}],
                                   "complete": False}
    assert "not searched: acme/app (unauthorized)" in answer["answer"]


async def test_code_context_withholds_a_member_the_recipient_may_not_see(tmp_path: Path) -> None:
    served = fleet_of_three(tmp_path, app_by_connection=True)
    async with stdio(served) as client:
        context = await call(client, "code_context", {"target": "helper", "intent": "usage"})
        assert context["status"] == "answered" and context["anchors"][0]["path"] == "src/lib_pkg/core.py"
        assert_app_withheld(context)
        # the same rule, the same member: the fleet tools refuse the whole call
        for tool, arguments in (("cross_repo_usages", {"symbol": "helper"}), ("graph_status", {"fleet": "deps"})):
            refused = await call(client, tool, arguments, error=True)
            assert refused["reason"] == "unauthorized" and APP_EVIDENCE not in json.dumps(refused)
        # the withheld answer is the one graph_feedback re-asks for this recipient
        report = {"capability_id": context["capability_id"], "answer_id": context["answer_id"],
                  "reads_avoided": 1, "files_read": 0, "correct": True}
        assert (await call(client, "graph_feedback", report))["status"] == "recorded"
    async with stdio(served, REVIEWER) as reviewer:  # app's connection names this recipient
        seen = await call(reviewer, "code_context", {"target": "helper", "intent": "usage"})
        section = seen["sections"]["cross_repo"]
        assert [(i["repository"], i["citation"]) for i in section_items(section)] == [("acme/app", "app/main.py#L1")]
        assert section["coverage"]["missing"] == [] and seen["answer_id"] != context["answer_id"]
    path, ready = serving(served)
    with http_server(served, ready=ready), uds_client(path) as rest:
        body = rest.post("/graph/analyze/code-context", json={"target": "helper", "intent": "usage"})
        assert body.status_code == 200
        assert body.content == json.dumps(context, ensure_ascii=False, separators=(",", ":")).encode()
        assert_app_withheld(body.json())
        assert rest.post("/graph/analyze/cross-repo-usages", json={"symbol": "helper"}).status_code == 403
    # The local operator's CLI reads every member (docs/fleet.md: the operator owns every checkout).
    cli = run_installed("context", "usage", "helper", "--repo-path", served.repo, "--state-dir", served.state,
                        "--json", cwd=served.repo)
    assert cli.returncode == 0, cli.stderr
    assert "app/main.py#L1" in section_items(json.loads(cli.stdout)["sections"]["cross_repo"])[0]["citation"]


async def test_ask_commit_report_records_the_feedback(tmp_path: Path) -> None:
    """The agent's order: ask, edit and commit (in its own checkout and in another member), then
    report. Nothing the answer says changed, so its id did not either, and the report is kept."""
    served = fleet_of_three(tmp_path, app_by_connection=False)
    async with stdio(served) as client:
        context = await call(client, "code_context", {"target": "helper", "intent": "usage"})
        assert section_items(context["sections"]["cross_repo"])[0]["citation"] == "app/main.py#L1"
        usages = await call(client, "cross_repo_usages", {"symbol": "helper"})
        for repo in (served.repo, served.repo.parent / "app"):
            write_files(repo, {"README": "one more line\n"})
            commit_all(repo, "docs: a README line")
        report = {"capability_id": context["capability_id"], "answer_id": context["answer_id"],
                  "reads_avoided": 2, "files_read": 0, "correct": True}
        recorded = await call(client, "graph_feedback", report)
        assert (recorded["status"], recorded["answer_id"]) == ("recorded", context["answer_id"])
        again = await call(client, "code_context", {"target": "helper", "intent": "usage"})
        assert again["answer_id"] == context["answer_id"]
        assert again["freshness"]["state"] == "stale" and again["freshness"]["fleet"] == {
            "fleet": "deps", "state": "stale", "stale": ["acme/app", "acme/lib"]}
        assert (await call(client, "cross_repo_usages", {"symbol": "helper"}))["answer_id"] == usages["answer_id"]


@pytest.mark.parametrize("to", ["other", "lib"])
async def test_a_member_connection_pointed_at_another_checkout_no_longer_lets_its_old_checkout_through(
    tmp_path: Path, to: str,
) -> None:
    """Between two calls of one server, app's connection is disconnected and connected again to
    another checkout, now naming the server's recipient. The member still reads app's checkout,
    which no connection naming this recipient covers: its evidence stays withheld everywhere."""
    served = fleet_of_three(tmp_path, app_by_connection=True)
    store = ConnectionStore(served.state)
    async with stdio(served) as client:
        assert_app_withheld(await call(client, "code_context", {"target": "helper", "intent": "usage"}))
        disconnect(store, "app-graph")
        connect(store, "app-graph", served.repo.parent / to, [f"acme/{to}"], [RECIPIENT])
        assert_app_withheld(await call(client, "code_context", {"target": "helper", "intent": "usage"}))
        for tool, arguments in (("cross_repo_usages", {"symbol": "helper"}), ("graph_status", {"fleet": "deps"})):
            refused = await call(client, tool, arguments, error=True)
            assert refused["reason"] == "unauthorized" and APP_EVIDENCE not in json.dumps(refused)
