"""Issue 19: ``cm-graph mcp`` driven by the MCP SDK's own client, as agents' hosts drive it.

The installed console script runs as a subprocess (stdio, then streamable HTTP on loopback) over
a real published and indexed graph; every citation is checked against git; a refresh between
two calls of one session is served without a restart; an unnamed recipient is refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from cm_graph.context.wire import cited as cited_of
from cm_graph.index.ensure import ensure_index  # noqa: E402

from ..support.g0 import edge, g0_graph, node  # noqa: E402
from ..support.helpers import (  # noqa: E402
    CM_GRAPH,
    commit_all,
    make_repo,
    numbered_lines,
    publish,
    run_installed,
    write_files,
)
from ..support.surfacekit import (  # noqa: E402
    CONNECTION,
    Served,
    cited_line_exists,
    connected,
    free_port,
    http_server,
    tcp_door_ready,
    whole_schema_problems,
)

pytestmark = pytest.mark.anyio
TOOLS = {"code_context", "prime", "changes", "ask", "cross_repo_usages", "graph_status", "graph_feedback"}


def stdio(served: Served, recipient: str = "claude:builder") -> Client:
    return Client(StdioServerParameters(command=str(CM_GRAPH), args=served.args(recipient), env=served.env(),
                                        cwd=str(served.repo)), read_timeout_seconds=60)


def structured(result: Any) -> dict[str, Any]:
    """The structured object, checked to be exactly the compact JSON of the one text block and
    valid under the whole schema of its own ``schema`` (every test that reads a reply checks it)."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    assert json.loads(result.content[0].text) == result.structured_content
    assert result.content[0].text == json.dumps(result.structured_content, ensure_ascii=False,
                                                separators=(",", ":"))
    problems = whole_schema_problems(result.structured_content)
    assert problems == [], (result.structured_content.get("schema"), result.structured_content.get("status"), problems)
    return dict(result.structured_content)


async def list_and_call_each(client: Client, served: Served) -> dict[str, dict[str, Any]]:
    listed = (await client.list_tools()).tools
    assert {tool.name for tool in listed} == TOOLS
    wire = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed],
                      separators=(",", ":"))
    # What hosts put into the model's context each turn: name, description, input schema (under
    # 4,000 with a description and an example for every argument); the whole listing adds the
    # output schemas and annotations hosts keep for themselves.
    model = json.dumps([{"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                        for t in listed], separators=(",", ":"))
    assert len(model) < 4000 and len(wire) < 6000, (len(model), len(wire))
    for tool in listed:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (tool.name != "graph_feedback"), tool.name
        assert tool.output_schema is not None and "status" in tool.output_schema["required"]
    answers = {}
    for name, arguments in {"code_context": {"target": "parse_config", "intent": "usage"},
                            "ask": {"question": "impact", "target": "parse_config"},
                            "graph_status": {}}.items():
        result = await client.call_tool(name, arguments)
        assert result.is_error is False, result.content
        answers[name] = structured(result)
    context, asked, status = answers["code_context"], answers["ask"], answers["graph_status"]
    commit = context["graph"]["commit"]
    assert context["status"] == "answered" and context["freshness"]["state"] == "current"
    assert context["citations"] and all(cited_line_exists(served.repo, commit, cite)
                                        for cite in cited_of(context).values())
    assert asked["status"] == "answered" and asked["graph"]["commit"] == commit
    cites = [c["source"] for d in asked["documents"]["items"] for c in d["citations"]]
    assert cites and all(cited_line_exists(served.repo, commit, cite) for cite in cites)
    assert status["status"] == "ready" and status["freshness"]["head"] == commit
    return answers


async def test_stdio_lists_calls_and_serves_a_refresh_without_restart(tmp_path: Path) -> None:
    served = connected(tmp_path)
    async with stdio(served) as client:
        first = await list_and_call_each(client, served)
        generation = first["code_context"]["graph"]["generation"]
        # A commit moves HEAD: code_context still answers (stale, naming both commits), ask
        # refuses evidence for a revision the graph is not bound to, as ordinary answers.
        write_files(served.repo, {"example_pkg/report.py": numbered_lines(25)})
        head = commit_all(served.repo, "grow report")
        moved = structured(await client.call_tool("code_context", {"target": "parse_config"}))
        assert moved["freshness"] == {"state": "stale", "head": head}
        stale = await client.call_tool("ask", {"question": "impact", "target": "parse_config"})
        assert stale.is_error is False and structured(stale)["reason"] == "stale"
        assert structured(stale)["next_actions"][0]["command"] == "cm-graph refresh"
        bound = first["ask"]["graph"]["commit"]
        assert structured(stale)["freshness"] == {"state": "stale", "head": head, "commit": bound,
                                                  "generation": generation}
        # The refresh lands between two calls of the same session.
        ensure_index(publish(served.repo, served.state, g0_graph()))
        fresh = structured(await client.call_tool("code_context", {"target": "parse_config"}))
        assert fresh["freshness"] == {"state": "current", "head": head}
        assert fresh["graph"]["generation"] != generation and fresh["graph"]["commit"] == head
        again = structured(await client.call_tool("ask", {"question": "impact", "target": "parse_config"}))
        assert again["status"] == "answered" and again["graph"]["generation"] == fresh["graph"]["generation"]
        # A refused argument is an error the model can correct; an unknown target is an answer.
        bad = await client.call_tool("ask", {"question": "callers", "target": "x"})
        assert bad.is_error is True and structured(bad)["reason"] == "invalid"
        unknown = await client.call_tool("code_context", {"target": "no_such_symbol"})
        assert unknown.is_error is False and structured(unknown)["status"] == "unresolved"


async def test_an_unnamed_recipient_is_refused_on_every_tool(tmp_path: Path) -> None:
    served = connected(tmp_path)
    async with stdio(served, "codex:reviewer") as client:
        for name, arguments in {"code_context": {"target": "parse_config"}, "graph_status": {},
                                "ask": {"question": "impact", "target": "parse_config"}}.items():
            result = await client.call_tool(name, arguments)
            assert result.is_error is True
            refused = structured(result)
            assert refused["reason"] == "unauthorized" and "#L" not in result.content[0].text


EVERY_TOOL = {"code_context": {"target": "parse_config"}, "ask": {"question": "impact", "target": "parse_config"},
              "cross_repo_usages": {"symbol": "parse_config"}, "graph_status": {},
              "graph_feedback": {"capability_id": "cmg:question:impact:parse_config", "answer_id": "sha256:" + "0" * 64,
                                 "reads_avoided": 1, "files_read": 0, "correct": True}}


async def assert_every_tool_refused(client: Client, why: str) -> None:
    for name, arguments in EVERY_TOOL.items():
        result = await client.call_tool(name, arguments)
        refused = structured(result)
        assert result.is_error is True and refused["reason"] == "unauthorized", (why, name, refused)
        assert "#L" not in result.content[0].text and refused["freshness"]["head"] is None, (why, name)


async def test_a_running_server_refuses_the_next_call_once_its_connection_changes(tmp_path: Path) -> None:
    """Authorization is read on every call, never kept from start-up: a recipient list edited
    while the server runs, and a ``cm-graph disconnect``, refuse the very next call of the same
    session on every tool; the connection restored, the same session answers again."""
    from cm_graph.connections.store import Connection, ConnectionStore

    served = connected(tmp_path)
    store = ConnectionStore(served.state)
    original = store.read(CONNECTION)
    assert original is not None
    async with stdio(served) as client:
        for name in ("code_context", "ask", "graph_status"):
            answered = await client.call_tool(name, EVERY_TOOL[name])
            assert answered.is_error is False and structured(answered)["status"] in ("answered", "ready"), name
        store.write(Connection(CONNECTION, "verified", original.repository_root, original.repositories,
                               ("codex:reviewer",)))
        await assert_every_tool_refused(client, "recipients edited")
        store.write(original)
        again = await client.call_tool("ask", EVERY_TOOL["ask"])
        assert again.is_error is False and structured(again)["status"] == "answered"
        gone = run_installed("disconnect", "--connection", CONNECTION, "--state-dir", served.state, cwd=served.repo)
        assert gone.returncode == 0, gone.stderr
        await assert_every_tool_refused(client, "disconnected")


async def test_a_missing_index_is_reported_and_never_built_in_the_call(tmp_path: Path) -> None:
    served = connected(tmp_path, indexed=False)
    index_dir = served.workspace.index_path("x").parent
    async with stdio(served) as client:
        for name, arguments in {"code_context": {"target": "parse_config"}, "graph_status": {},
                                "ask": {"question": "impact", "target": "parse_config"}}.items():
            result = await client.call_tool(name, arguments)
            answer = structured(result)
            assert result.is_error is False and answer["status"] == "unavailable", answer
            assert answer["reason"] == "index_missing", answer
            if name == "graph_status":
                assert answer["index"] == "missing" and answer["graph"]["state"] == "current", answer
            assert [action["command"] for action in answer["next_actions"]] == ["cm-graph index"], answer
    assert not index_dir.exists() or not any(index_dir.glob("*.sqlite"))


def hub_graph(callers: int) -> tuple[dict[str, str], dict[str, Any]]:
    files = {"pkg/hub.py": numbered_lines(10), "pkg/users.py": numbered_lines(callers * 2 + 2)}
    nodes = [node("hub", "hub()", "pkg/hub.py", "L2")]
    edges = []
    for n in range(callers):
        nodes.append(node(f"user_{n}", f"user_{n}()", "pkg/users.py", f"L{2 * n + 1}"))
        edges.append(edge(f"user_{n}", "hub", "calls", path="pkg/users.py", location=f"L{2 * n + 2}"))
    return files, {"nodes": nodes, "edges": edges}


async def test_a_hub_answer_stays_within_the_cap_by_whole_items(tmp_path: Path) -> None:
    files, graph = hub_graph(600)
    served = connected(tmp_path, graph, repo=make_repo(tmp_path / "repo", files))
    async with stdio(served) as client:
        for max_chars in (None, 40_000):
            arguments: dict[str, Any] = {"target": "hub", "intent": "usage"}
            if max_chars:
                arguments["max_chars"] = max_chars
            result = await client.call_tool("code_context", arguments)
            answer = structured(result)
            assert len(result.content[0].text) <= (max_chars or 8000)
            callers = answer["sections"]["callers"]
            assert callers["total"] == 600 and 0 < callers["shown"] < 600 == callers["total"]
            assert len(callers["rows"]) == callers["shown"] and answer["bounds"]["truncated"] is True
        over = await client.call_tool("code_context", {"target": "hub", "max_chars": 40_001})
        assert over.is_error is True and structured(over)["reason"] == "invalid"
        asked = await client.call_tool("ask", {"question": "impact", "target": "hub", "node_budget": 200,
                                               "max_chars": 5000})
        answer = structured(asked)
        assert len(asked.content[0].text) <= 5000
        documents = answer["documents"]
        assert documents["shown"] == len(documents["items"]) < documents["total"] and answer["bounds"]["truncated"]


async def test_streamable_http_with_the_sdk_client_and_the_token(tmp_path: Path) -> None:
    served = connected(tmp_path)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    token_file = served.state / "run" / "token"

    ready = tcp_door_ready(served, base)

    with http_server(served, "--port", str(port), ready=ready):
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
                answers = await list_and_call_each(client, served)
        # The REST twin answers the same bytes for the same arguments.
        rest = httpx2.post(f"{base}/graph/analyze/code-context", headers=headers,
                           json={"target": "parse_config", "intent": "usage"}, timeout=30)
        assert rest.status_code == 200
        assert rest.content == json.dumps(answers["code_context"], ensure_ascii=False,
                                          separators=(",", ":")).encode()
        # Without the token, or with a wrong one, nothing answers; not even /mcp.
        for given in ({}, {"Authorization": "Bearer " + "0" * 64}, {"Authorization": token}):
            for method, path in (("GET", "/graph/status"), ("POST", "/mcp"), ("GET", "/openapi.json")):
                denied = httpx2.request(method, f"{base}{path}", headers=given, timeout=30)
                assert denied.status_code == 401 and denied.json()["reason"] == "unauthenticated"


async def test_the_handshake_era_client_gets_the_same_bytes_from_another_process(tmp_path: Path) -> None:
    """Hosts today speak the 2025-11-25 handshake (``mode="legacy"``); the answer's bytes do not
    depend on the protocol era, the process or the clock."""
    served = connected(tmp_path)
    texts = []
    for mode in ("legacy", "auto"):
        client = Client(StdioServerParameters(command=str(CM_GRAPH), args=served.args(), env=served.env()),
                        mode=mode, read_timeout_seconds=60)
        async with client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == TOOLS
            calls = [await client.call_tool("code_context", {"target": "load", "intent": "how"}),
                     await client.call_tool("ask", {"question": "dependency", "target": "load"})]
            texts.append([result.content[0].text for result in calls])
    assert texts[0] == texts[1]


async def test_a_damaged_graph_is_an_ordinary_answer_on_every_tool(tmp_path: Path) -> None:
    """A truncated graph.bin is a state of the graph, not a malfunction: every tool answers
    ``unavailable`` with the reason, and only refusals and faults set ``isError``."""
    from cm_graph.generation.store import read_current

    served = connected(tmp_path)
    artifact = read_current(served.workspace).artifact_path
    os.truncate(artifact, 5000)
    async with stdio(served) as client:
        for name, arguments in {"graph_status": {}, "code_context": {"target": "parse_config"},
                                "ask": {"question": "impact", "target": "parse_config"}}.items():
            result = await client.call_tool(name, arguments)
            answer = structured(result)
            assert result.is_error is False and answer["status"] == "unavailable", (name, answer)
            assert answer["reason"] == "corrupt" and answer["next_actions"], (name, answer)


async def test_feedback_on_a_missing_index_never_builds_it_in_the_call(tmp_path: Path) -> None:
    """graph_feedback re-asks the answer to check its id: on a missing index that is reported,
    never derived inside the call (a host could time out on the build)."""
    served = connected(tmp_path, indexed=False)
    index_dir = served.workspace.index_path("x").parent
    async with stdio(served) as client:
        result = await client.call_tool("graph_feedback", {
            "capability_id": "cmg:code_context:how:parse_config", "answer_id": "sha256:" + "0" * 64,
            "reads_avoided": 2, "files_read": 0, "correct": True,
        })
        answer = structured(result)
        assert "index_missing" in json.dumps(answer), answer
    assert not index_dir.exists() or not any(index_dir.glob("*.sqlite"))
