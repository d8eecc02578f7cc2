"""Issue 30, item 4: a server that finds no connection, or no graph, says where it looked.

A host that does not pass ``CM_GRAPH_HOME`` to the server it starts (the MCP Inspector 2.x does
not) makes the server read another state root than the operator's; the reply must name that root,
the connection file it read, and what fixes it (``--state-dir``, or an ``env`` block with
``CM_GRAPH_HOME`` in the host's config), on stdio and on HTTP alike.
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

from cm_graph.connections.store import ConnectionStore, connect  # noqa: E402

from ..support.g0 import make_g0_repo  # noqa: E402
from ..support.helpers import CM_GRAPH  # noqa: E402
from ..support.surfacekit import CONNECTION, RECIPIENT, Served, http_server  # noqa: E402

pytestmark = pytest.mark.anyio
CALLS = {"code_context": {"target": "parse_config"}, "ask": {"question": "impact", "target": "parse_config"},
         "graph_status": {}}


def _client(state: Path, repo: Path, *, by_env: bool) -> Client:
    """The server as a host starts it: the state root by --state-dir, or only by CM_GRAPH_HOME."""
    args = ["mcp", "--connection", CONNECTION, "--recipient", RECIPIENT]
    if not by_env:
        args += ["--state-dir", str(state)]
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent)}
    if by_env:
        env["CM_GRAPH_HOME"] = str(state)
    return Client(StdioServerParameters(command=str(CM_GRAPH), args=args, env=env, cwd=str(repo)),
                  read_timeout_seconds=60)


def _names_where_it_looked(reply: dict[str, Any], state: Path, origin: str) -> None:
    root = str(state.resolve())
    assert root in reply["answer"] and reply["answer"] == reply.get("detail", reply["answer"]), reply
    assert f"{root} (from {origin})" in reply["answer"], reply
    assert "--state-dir" in reply["answer"] and "CM_GRAPH_HOME" in reply["answer"], reply
    commands = [action["command"] for action in reply["next_actions"]]
    assert any(f"--state-dir {root}" in command for command in commands), commands


def _no_connection(reply: dict[str, Any], state: Path, origin: str) -> None:
    assert reply["status"] == "refused" and reply["reason"] == "no_connection", reply
    _names_where_it_looked(reply, state, origin)
    assert str(state.resolve() / f"{CONNECTION}.json") in reply["answer"], reply
    assert any(action["command"].startswith(f"cm-graph connect --connection {CONNECTION} ")
               for action in reply["next_actions"]), reply


def _no_graph(reply: dict[str, Any], state: Path, repo: Path, origin: str) -> None:
    assert reply["status"] == "unavailable" and reply["reason"] == "absent", reply
    _names_where_it_looked(reply, state, origin)
    assert str(repo.resolve()) in reply["answer"], reply
    assert f"cm-graph build --repo-path {repo.resolve()} --state-dir {state.resolve()}" in [
        action["command"] for action in reply["next_actions"]], reply


@pytest.mark.parametrize("by_env", [False, True], ids=["state-dir", "CM_GRAPH_HOME"])
async def test_stdio_names_the_state_root_and_connection_file_it_read(tmp_path: Path, by_env: bool) -> None:
    repo = make_g0_repo(tmp_path / "repo")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    origin = "CM_GRAPH_HOME" if by_env else "--state-dir"
    async with _client(state, repo, by_env=by_env) as client:
        for name, arguments in CALLS.items():
            result = await client.call_tool(name, arguments)
            assert result.is_error is True, name
            _no_connection(json.loads(result.content[0].text), state, origin)
    connect(ConnectionStore(state), CONNECTION, repo, ["owner/repo"], [RECIPIENT])
    async with _client(state, repo, by_env=by_env) as client:
        for name, arguments in CALLS.items():
            result = await client.call_tool(name, arguments)
            assert result.is_error is False, name
            _no_graph(json.loads(result.content[0].text), state, repo, origin)


def test_http_names_the_state_root_and_connection_file_it_read(tmp_path: Path) -> None:
    repo = make_g0_repo(tmp_path / "repo")
    served = Served(repo, tmp_path / "state")
    served.state.mkdir(mode=0o700)
    socket = served.state / "run" / f"{CONNECTION}.sock"

    def client() -> httpx2.Client:
        return httpx2.Client(transport=httpx2.HTTPTransport(uds=str(socket)), base_url="http://localhost", timeout=30)

    def ready() -> bool:
        try:
            return socket.exists() and client().get("/openapi.json").status_code == 200
        except httpx2.HTTPError:
            return False

    with http_server(served, ready=ready):
        with client() as http:
            refused = http.get("/graph/status")
            assert refused.status_code >= 400
            _no_connection(refused.json(), served.state, "--state-dir")
            connect(ConnectionStore(served.state), CONNECTION, repo, ["owner/repo"], [RECIPIENT])
            for route, body in (("/graph/analyze/code-context", CALLS["code_context"]),
                                ("/graph/ask", CALLS["ask"])):
                answered = http.post(route, json=body)
                assert answered.status_code == 200, answered.text
                _no_graph(answered.json(), served.state, repo, "--state-dir")
            status = http.get("/graph/status")
            assert status.status_code == 200
            _no_graph(status.json(), served.state, repo, "--state-dir")
