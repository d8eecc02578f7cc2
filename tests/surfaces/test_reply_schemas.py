"""Issue 25 item 14 and issue 26 item 1: every reply of every tool, answered or refused, is valid
under the tool's own ``outputSchema`` and under the one reply envelope (``base/envelope.py``).

TypeScript clients (the MCP Inspector among them) check ``structuredContent`` against the output
schema on ``isError`` replies too, and show a schema error instead of the refusal when it does not
fit. One session of the installed ``cm-graph mcp`` is driven by the SDK's client through the
states a graph and its connection go through (index missing, current with an ambiguous and an
unresolved target, nothing to cite, in a fleet, stale, refreshed, corrupt, removed, recipients
edited, disconnected); in each, every tool is called with good and with rejected arguments, and
every reply is validated with jsonschema against the schema ``tools/list`` gave, against the
whole schema of its own ``schema`` (``cmgraph://schemas/<schema>``) and against the envelope in
full: its keys in the envelope's order, a known reason, and each next action's tool
call one that tool takes (its arguments valid under the tool's ``inputSchema``). The Inspector's own command line, from
npm, is then asked for the refusals (skipped, with the reason, when the npm registry cannot be
reached).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

import jsonschema  # noqa: E402
from mcp import Client  # noqa: E402

from cm_graph.base.envelope import ENVELOPE_HEAD, ENVELOPE_SCHEMA, ENVELOPE_TAIL  # noqa: E402
from cm_graph.base.errors import REASONS  # noqa: E402
from cm_graph.connections.store import Connection, ConnectionStore  # noqa: E402
from cm_graph.generation.store import read_current  # noqa: E402
from cm_graph.index.ensure import ensure_index  # noqa: E402

from ..support.g0 import g0_with_two_loads  # noqa: E402
from ..support.helpers import CM_GRAPH, commit_all, numbered_lines, publish, run_installed, write_files  # noqa: E402
from ..support.surfacekit import CONNECTION, RECIPIENT, Served, connected, whole_schema_problems  # noqa: E402
from .test_mcp_server import stdio, structured  # noqa: E402

pytestmark = pytest.mark.anyio
NO_ANSWER = "sha256:" + "0" * 64
# Arguments each tool accepts, the graph's answer whatever it is (an unknown target included).
GOOD = [
    ("code_context", {"target": "parse_config"}),
    ("code_context", {"target": "load", "intent": "how"}),  # two definitions of load: ambiguous
    ("code_context", {"target": "no_such_symbol", "intent": "impact"}),
    ("prime", {"task": "rename parse_config to load_config and update callers"}),
    ("prime", {"task": "make it faster"}),  # no anchor: unresolved
    ("ask", {"question": "impact", "target": "parse_config"}),
    ("ask", {"question": "symbol", "target": "no_such_symbol"}),
    ("ask", {"question": "dependency", "target": "parse_config"}),  # nothing to cite: uncitable
    ("cross_repo_usages", {"symbol": "parse_config"}),
    ("cross_repo_usages", {"symbol": "no_such_symbol"}),  # in a fleet: not_found
    ("changes", {}),
    ("changes", {"diff": "commit", "ref": "HEAD", "max_items": 5}),
    ("graph_status", {}),
    ("graph_status", {"fleet": "nosuch"}),
    ("graph_status", {"fleet": "deps"}),  # the fleet this checkout joins once it is current
    ("graph_feedback", {"capability_id": "cmg:code_context:usage:parse_config", "answer_id": NO_ANSWER,
                        "reads_avoided": 1, "files_read": 0, "correct": True}),
]
# Arguments the schema (or the adapter) rejects: always a refusal, in every state.
REJECTED = [
    ("code_context", {"target": "parse_config", "intent": "callers"}),
    ("code_context", {"target": ""}),
    ("code_context", {"target": "parse_config", "max_chars": 40_001}),
    ("code_context", {"target": "parse_config", "bogus": 1}),
    ("prime", {"task": "x" * 4001}),
    ("prime", {"task": ""}),
    ("ask", {"question": "callers", "target": "parse_config"}),
    ("ask", {"target": "parse_config"}),
    ("cross_repo_usages", {"symbol": "x" * 513}),
    ("cross_repo_usages", {"symbol": ""}),
    ("changes", {"diff": "bogus"}),
    ("changes", {"diff": "commit"}),  # a commit diff names its commit
    ("changes", {"diff": "commit", "ref": "no-such-ref"}),  # bad_revision
    ("graph_status", {"fleet": "Not A Fleet"}),
    ("graph_feedback", {"capability_id": "cmg:code_context:usage:parse_config"}),
    ("graph_feedback", {"capability_id": "cmg:graph_status:checkout:x", "answer_id": NO_ANSWER,
                        "reads_avoided": 1, "files_read": 0, "correct": True}),
]


ENVELOPE = jsonschema.Draft202012Validator(ENVELOPE_SCHEMA)


class Replies:
    """Every reply of the session, checked as it comes against the listed output schema and the
    envelope."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.validators: dict[str, jsonschema.Draft202012Validator] = {}
        self.inputs: dict[str, jsonschema.Draft202012Validator] = {}
        self.seen: list[tuple[str, str, bool, str]] = []  # (state, tool, isError, status or reason)
        self.actions: set[tuple[str, str]] = set()  # (tool answering, tool a next action calls)

    async def list(self) -> None:
        jsonschema.Draft202012Validator.check_schema(ENVELOPE_SCHEMA)
        for tool in (await self.client.list_tools()).tools:
            assert tool.output_schema is not None, tool.name
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            self.validators[tool.name] = jsonschema.Draft202012Validator(tool.output_schema)
            self.inputs[tool.name] = jsonschema.Draft202012Validator(tool.input_schema)

    async def call(self, state: str, name: str, arguments: dict[str, Any], *, refused: bool = False) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments)
        reply = structured(result)
        where = (state, name, arguments, result.is_error, reply)
        problems = [error.message for error in self.validators[name].iter_errors(reply)]
        problems += [f"envelope: {error.message}" for error in ENVELOPE.iter_errors(reply)]
        problems += [f"whole: {problem}" for problem in whole_schema_problems(reply)]
        assert problems == [], (*where, problems)
        keys = list(reply)
        assert keys[:3] == list(ENVELOPE_HEAD) and keys[-len(ENVELOPE_TAIL):] == list(ENVELOPE_TAIL), (*where, keys)
        assert reply.get("reason") is None or reply["reason"] in REASONS, where
        for action in reply["next_actions"]:
            if "tool" in action:
                assert not list(self.inputs[action["tool"]].iter_errors(action["arguments"])), (*where, action)
                self.actions.add((name, action["tool"]))
        if refused:
            assert result.is_error is True, where
        self.seen.append((state, name, bool(result.is_error), reply["reason"] if result.is_error
                          else reply["status"]))
        return reply

    async def call_all(self, state: str, *, refused: bool = False) -> None:
        for name, arguments in GOOD + REJECTED:
            await self.call(state, name, arguments, refused=refused or (name, arguments) in REJECTED)
        # graph_feedback about an answer of this state, with its own ids (recorded when it is one)
        context = await self.call(state, "code_context", {"target": "parse_config"}, refused=refused)
        if context["answer_id"] is not None:
            report = {"capability_id": context["capability_id"], "answer_id": context["answer_id"],
                      "reads_avoided": 2, "files_read": 0, "correct": True}
            await self.call(state, "graph_feedback", report, refused=refused)


async def test_every_reply_in_every_state_is_valid_under_its_tools_output_schema(tmp_path: Path) -> None:
    served = connected(tmp_path, g0_with_two_loads(), indexed=False)
    store = ConnectionStore(served.state)
    async with stdio(served) as client:
        replies = Replies(client)
        await replies.list()
        assert set(replies.validators) == {name for name, _ in GOOD}
        await replies.call_all("index_missing")
        ensure_index(served.workspace)
        joined = run_installed("fleet", "add", "deps", "--repo-path", served.repo, "--state-dir", served.state,
                               cwd=served.repo)
        assert joined.returncode == 0, joined.stderr
        await replies.call_all("current")
        write_files(served.repo, {"example_pkg/report.py": numbered_lines(30)})
        commit_all(served.repo, "move HEAD")
        await replies.call_all("stale")
        ensure_index(publish(served.repo, served.state, g0_with_two_loads()))
        await replies.call_all("refreshed")
        os.truncate(read_current(served.workspace).artifact_path, 5000)
        await replies.call_all("corrupt")
        removed = run_installed("remove", "--repo-path", served.repo, "--state-dir", served.state, cwd=served.repo)
        assert removed.returncode == 0, removed.stderr
        await replies.call_all("absent")
        known = store.read(CONNECTION)
        assert known is not None
        store.write(Connection(CONNECTION, "verified", known.repository_root, known.repositories,
                               ("codex:reviewer",)))
        await replies.call_all("recipients_edited", refused=True)
        done = run_installed("disconnect", "--connection", CONNECTION, "--state-dir", served.state, cwd=served.repo)
        assert done.returncode == 0, done.stderr
        await replies.call_all("disconnected", refused=True)
    seen = set(replies.seen)
    # The states were the ones named: each tool answered, and was refused, in them.
    for expected in [("index_missing", "code_context", False, "unavailable"), ("current", "code_context", False,
                     "answered"), ("current", "code_context", False, "ambiguous"),
                     ("current", "code_context", False, "unresolved"), ("current", "ask", False, "answered"),
                     ("stale", "ask", False, "unavailable"), ("corrupt", "graph_status", False, "unavailable"),
                     ("absent", "ask", False, "unavailable"), ("current", "graph_feedback", True, "not_reproduced"),
                     ("current", "code_context", True, "invalid"), ("disconnected", "graph_status", True,
                     "unauthorized"), ("recipients_edited", "ask", True, "unauthorized"),
                     ("index_missing", "cross_repo_usages", False, "unavailable"),
                     ("current", "cross_repo_usages", False, "ok"),
                     ("current", "cross_repo_usages", False, "not_found"),
                     ("current", "graph_status", False, "ready"), ("current", "graph_feedback", False, "recorded"),
                     ("refreshed", "graph_feedback", False, "recorded"), ("stale", "code_context", False, "answered"),
                     ("current", "ask", False, "unavailable"), ("corrupt", "code_context", False, "unavailable"),
                     ("absent", "graph_status", False, "unavailable"), ("disconnected", "graph_feedback", True,
                     "unauthorized"), ("current", "changes", False, "answered"),
                     ("stale", "changes", False, "answered"), ("index_missing", "changes", False, "unavailable"),
                     ("corrupt", "changes", False, "unavailable"), ("current", "changes", True, "bad_revision"),
                     ("absent", "changes", False, "unavailable")]:
        assert expected in seen, expected
    # Every state of every tool was seen, and the next actions offer the tools an agent calls next.
    assert {(state, name) for state, name, _, _ in seen} == {
        (state, name) for state in ("index_missing", "current", "stale", "refreshed", "corrupt", "absent",
                                    "recipients_edited", "disconnected") for name, _ in GOOD}
    assert {("code_context", "code_context"), ("cross_repo_usages", "graph_status"),
            ("ask", "ask")} <= replies.actions, replies.actions


def inspector_call(inspector: list[str], served: Served, recipient: str, name: str,
                   arguments: dict[str, Any]) -> dict[str, Any]:
    flags = [item for key, value in arguments.items()
             for item in ("--tool-arg", f"{key}={value if isinstance(value, str) else json.dumps(value)}")]
    done = subprocess.run([*inspector, str(CM_GRAPH), *served.args(recipient), "--method", "tools/call",
                           "--tool-name", name, *flags], cwd=served.repo, env={**os.environ, **served.env()},
                          capture_output=True, text=True, timeout=300)
    # 2.x exits 5 (tool_is_error) after printing an isError result; a schema error is another code.
    assert done.returncode in (0, 5), (name, arguments, done.stdout, done.stderr[-2000:])
    return dict(json.loads(done.stdout))


def one_per_tool(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    first: dict[str, dict[str, Any]] = {}
    for name, arguments in calls:
        first.setdefault(name, arguments)
    return list(first.items())


def test_the_mcp_inspector_shows_every_refusal_and_not_a_schema_error(tmp_path: Path, inspector: list[str]) -> None:
    """Each tool refused twice (rejected arguments; a recipient the connection does not name):
    the Inspector validates the reply against the listed schema and prints the refusal itself."""
    served = connected(tmp_path)
    for recipient, calls, reason in ((RECIPIENT, one_per_tool(REJECTED), "invalid"),
                                     ("codex:reviewer", one_per_tool(GOOD), "unauthorized")):
        for name, arguments in calls:
            result = inspector_call(inspector, served, recipient, name, arguments)
            assert result.get("isError") is True, (name, arguments, result)
            assert result["structuredContent"]["reason"] == reason, result
            assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_a_next_action_is_a_tool_call_only_where_the_tool_takes_its_arguments(tmp_path: Path) -> None:
    """Issue 26 item 1: an answer's next intent is a ``code_context`` call an agent can make; but
    the CLI's bounds are wider than the tool's (a doubled budget past 40,000, a target past 256
    characters), so such a call is offered as its command alone, never as a call the tool would
    refuse."""
    from cm_graph.surfaces.authority import Caller
    from cm_graph.surfaces.dispatch import call_tool, offered
    from cm_graph.surfaces.tools import BY_NAME

    served = connected(tmp_path)
    caller = Caller(served.state, CONNECTION, RECIPIENT)
    cut = call_tool(caller, BY_NAME["code_context"], {"target": "load", "intent": "how", "max_chars": 5000}).payload
    actions = {action["command"]: action for action in cut["next_actions"]}
    assert actions["cm-graph context usage load"]["arguments"] == {"target": "load", "intent": "usage"}, actions
    long_target = "a/" * 200 + "x.py"
    reply = {"next_actions": [
        {"why": "a wider budget", "command": "cm-graph context how load --max-chars 80000", "tool": "code_context",
         "arguments": {"target": "load", "intent": "how", "max_chars": 80_000}},
        {"why": "a long path", "command": f"cm-graph context how {long_target}", "tool": "code_context",
         "arguments": {"target": long_target, "intent": "how"}},
        {"why": "the same budget", "command": "cm-graph context how load --max-chars 16000", "tool": "code_context",
         "arguments": {"target": "load", "intent": "how", "max_chars": 16_000}},
    ]}
    assert [sorted(action) for action in offered(reply)["next_actions"]] == [
        ["command", "why"], ["command", "why"], ["arguments", "command", "tool", "why"]]
