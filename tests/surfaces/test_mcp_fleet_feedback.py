"""Issue 19, the rest of the tool set: ``cross_repo_usages``, ``graph_status`` for a fleet and
``graph_feedback``, driven by the MCP SDK's own client over stdio against the installed server.

The fleet is two small real packages built with the pinned provider (``cm-graph refresh``), one
joined by the server's connection; every citation is checked against each repository's git. The
feedback outcomes recorded through the tool are the ones ``cm-graph feedback report`` shows.
Every answer carries the ids the CLI's ``--json`` gives for the same question.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from cm_graph.connections.store import ConnectionStore, connect  # noqa: E402

from ..fleet.test_fleet_real import APP, LIB  # noqa: E402
from ..support.helpers import git, make_repo, run_installed  # noqa: E402
from ..support.surfacekit import CONNECTION, RECIPIENT, Served, cited_line_exists, connected  # noqa: E402
from .test_mcp_server import stdio, structured  # noqa: E402

pytestmark = pytest.mark.anyio


def cli_json(served: Served, *args: str, flag: tuple[str, ...] = ("--json",)) -> dict[str, Any]:
    done = run_installed(*args, "--repo-path", served.repo, "--state-dir", served.state, *flag, cwd=served.repo)
    return dict(json.loads(done.stdout))


async def call(client: Any, name: str, arguments: dict[str, Any], *, error: bool = False) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert result.is_error is error, result.content
    return structured(result)


async def test_every_answer_carries_the_cli_ids_and_feedback_records_what_report_shows(tmp_path: Path) -> None:
    served = connected(tmp_path)
    async with stdio(served) as client:
        context = await call(client, "code_context", {"target": "parse_config", "intent": "usage"})
        cli_context = run_installed("context", "usage", "parse_config", "--repo-path", served.repo,
                                    "--state-dir", served.state, "--json", cwd=served.repo)
        assert cli_context.stdout.rstrip("\n") == json.dumps(context, ensure_ascii=False, separators=(",", ":"))
        asked = await call(client, "ask", {"question": "impact", "target": "parse_config"})
        [cli_asked] = cli_json(served, "ask", "impact", "parse_config")["answers"]
        assert (asked["capability_id"], asked["answer_id"]) == (cli_asked["capability_id"], cli_asked["answer_id"])
        assert asked["capability_id"] == "cmg:question:impact:parse_config"
        unknown = await call(client, "ask", {"question": "symbol", "target": "no_such_symbol"})
        [cli_unknown] = cli_json(served, "ask", "symbol", "no_such_symbol")["answers"]
        assert unknown["status"] == "unavailable" and unknown["answer_id"] == cli_unknown["answer_id"]
        # One target grammar (issue 26 item 3): the spelling code_context offers is an ask answer, on
        # both surfaces alike, ids included; each suggestion of an unresolved one is an ask call.
        qualified = await call(client, "ask", {"question": "impact", "target": "example_pkg/config.py::parse_config"})
        [cli_qualified] = cli_json(served, "ask", "impact", "example_pkg/config.py::parse_config")["answers"]
        assert qualified["status"] == "answered" and qualified["documents"]["total"] == asked["documents"]["total"]
        assert qualified["answer_id"] == cli_qualified["answer_id"] and cli_qualified["resolved"]
        near = await call(client, "ask", {"question": "impact", "target": "parse_confg"})
        assert near["next_actions"][0] == {
            "why": "a similar name", "command": "cm-graph ask impact parse_config", "tool": "ask",
            "arguments": {"question": "impact", "target": "parse_config"}}, near
        status = await call(client, "graph_status", {})
        assert status["capability_id"] == f"cmg:graph_status:checkout:{CONNECTION}"
        assert status["answer_id"].startswith("sha256:")
        nofleet = await call(client, "cross_repo_usages", {"symbol": "parse_config"})
        assert (nofleet["status"], nofleet["reason"]) == ("unavailable", "not_configured")
        assert nofleet["capability_id"] and nofleet["answer_id"]
        assert nofleet["next_actions"][0]["command"].startswith("cm-graph fleet add ")

        report = {"reads_avoided": 3, "files_read": 0, "correct": True}
        first = await call(client, "graph_feedback", {**_ids(context), **report})
        assert (first["status"], first["eval_case"], first["answer_id"]) == ("recorded", True, context["answer_id"])
        again = await call(client, "graph_feedback", {**_ids(context), **report})
        assert (again["status"], again["seq"]) == ("already_recorded", first["seq"])
        wrong = await call(client, "graph_feedback", {**_ids(asked), "reads_avoided": 0, "files_read": 2,
                                                      "correct": False})
        assert wrong["status"] == "recorded" and wrong["seq"] > first["seq"]
        # An answer asked with a non-default budget is reproduced only from the arguments it had.
        small = await call(client, "code_context", {"target": "parse_config", "max_chars": 5000})
        assert small["answer_id"] != context["answer_id"] and small["capability_id"] == context["capability_id"]
        missed = await call(client, "graph_feedback", {**_ids(small), **report}, error=True)
        assert missed["reason"] == "not_reproduced"
        kept = await call(client, "graph_feedback", {**_ids(small), **report, "max_chars": 5000})
        assert kept["status"] == "recorded"
        foreign = await call(client, "graph_feedback", {"capability_id": "cmg:cross_repo_usages:x:y",
                                                        "answer_id": context["answer_id"], **report}, error=True)
        assert foreign["reason"] == "invalid"
    async with stdio(served, "codex:reviewer") as stranger:
        refused = await call(stranger, "graph_feedback", {**_ids(context), **report}, error=True)
        assert refused["reason"] == "unauthorized"
    shown = cli_json(served, "feedback", "report")
    assert shown["outcomes"] == 3
    rows = cli_json(served, "feedback", "export", flag=())
    assert {(o["client"], o["connection"]) for o in rows["outcomes"]} == {(RECIPIENT, CONNECTION)}
    assert sorted(o["answer_id"] for o in rows["outcomes"]) == sorted(
        [context["answer_id"], asked["answer_id"], small["answer_id"]])


def _ids(answer: dict[str, Any]) -> dict[str, str]:
    return {"capability_id": answer["capability_id"], "answer_id": answer["answer_id"]}


@pytest.mark.provider
async def test_cross_repo_usages_over_a_real_fleet_with_citations_checked_against_git(tmp_path: Path) -> None:
    state = tmp_path / "state"
    repos = {"lib": make_repo(tmp_path / "lib", LIB), "app": make_repo(tmp_path / "app", APP)}
    for repo in repos.values():
        built = run_installed("refresh", "--repo-path", repo, "--state-dir", state, "--json", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
    store = ConnectionStore(state)
    connect(store, CONNECTION, repos["app"], ["acme/app"], [RECIPIENT])
    connect(store, "lib-graph", repos["lib"], ["acme/lib"], ["codex:reviewer"])
    fleet = {"tiny": [("--connection", CONNECTION), ("--repo-path", repos["lib"])],
             "libs": [("--repo-path", repos["lib"])],
             "vetted": [("--connection", CONNECTION), ("--connection", "lib-graph")]}
    for name, members in fleet.items():
        for flag, value in members:
            added = run_installed("fleet", "add", name, flag, value, "--state-dir", state, cwd=tmp_path)
            assert added.returncode == 0, added.stderr
    served = Served(repos["app"], state)
    async with stdio(served) as client:
        # Without `fleet`: the first fleet by name with this checkout (tiny; libs has no app).
        named = await call(client, "cross_repo_usages", {"symbol": "PoolManager"})
        assert named == await call(client, "cross_repo_usages", {"symbol": "PoolManager", "fleet": "tiny"})
        assert named["status"] == "ok" and named["fleet"] == "tiny"
        [definition] = named["definitions"]
        assert definition["citation"] == "src/tiny_http/pool.py#L4" and definition["repository"] == "lib"
        [usage] = named["usages_by_repository"]["acme/app"]["items"]
        # the import line, bound by resolving the members together (issue 28: it was `package`)
        assert (usage["anchor"], usage["definition"]) == ("resolved", "lib:src/tiny_http/pool.py#L4")
        assert cited_line_exists(repos["app"], git(repos["app"], "rev-parse", "HEAD").strip(), usage["citation"])
        assert cited_line_exists(repos["lib"], git(repos["lib"], "rev-parse", "HEAD").strip(), definition["citation"])
        cli = json.loads(run_installed("fleet", "usages", "tiny", "PoolManager", "--max-chars", "8000",
                                       "--state-dir", state, "--json", cwd=tmp_path).stdout)
        assert cli == named and named["capability_id"] == "cmg:cross_repo_usages:tiny:PoolManager"
        doctor = await call(client, "graph_status", {"fleet": "tiny"})
        assert doctor["status"] == "ready" and doctor["doctor"]["summary"]["ok"] == 2
        # A fleet without this checkout, and one whose member connection does not name the
        # recipient, are refused; a fleet that does not exist is an ordinary answer.
        for fleet_name in ("libs", "vetted"):
            for tool, arguments in (("cross_repo_usages", {"symbol": "PoolManager"}), ("graph_status", {})):
                refused = await call(client, tool, {**arguments, "fleet": fleet_name}, error=True)
                assert refused["reason"] == "unauthorized" and "#L" not in json.dumps(refused)
        missing = await call(client, "cross_repo_usages", {"symbol": "PoolManager", "fleet": "nosuch"})
        assert (missing["status"], missing["reason"]) == ("unavailable", "not_configured")
    async with stdio(served, "codex:reviewer") as stranger:
        refused = await call(stranger, "cross_repo_usages", {"symbol": "PoolManager", "fleet": "tiny"}, error=True)
        assert refused["reason"] == "unauthorized"


def test_a_recipient_that_cannot_be_a_client_is_refused_in_one_sentence(tmp_path: Path) -> None:
    """Recipients are free text; an outcome's client is not. The refusal names the server's
    recipient, not a ``client`` argument the agent never gave, and nothing is written."""
    from cm_graph.feedback.outcomes import store_path
    from cm_graph.surfaces.authority import Caller
    from cm_graph.surfaces.dispatch import call_tool
    from cm_graph.surfaces.tools import BY_NAME

    served = connected(tmp_path)
    connect(ConnectionStore(served.state), "mail-graph", served.repo, ["owner/repo"], ["me@laptop"])
    context = call_tool(Caller(served.state, "mail-graph", "me@laptop"), BY_NAME["code_context"],
                        {"target": "parse_config"}).payload
    reply = call_tool(Caller(served.state, "mail-graph", "me@laptop"), BY_NAME["graph_feedback"],
                      {**_ids(context), "reads_avoided": 1, "files_read": 0, "correct": True})
    assert reply.is_error and reply.payload["reason"] == "invalid" and "recipient" in reply.payload["answer"]
    assert not store_path(served.state).exists()
