"""Issue 30, "must show" 1: a client nobody here wrote, the MCP Inspector's command line (2.12.0,
from npm), drives the installed server over stdio and over streamable HTTP.

On the checkout ``test_prime_mcp`` builds with the pinned provider (joined to a fleet, so
``cross_repo_usages`` has one to answer from), each transport is asked ``tools/list``, a
``tools/call`` of every listed tool with arguments it answers (not refuses), ``resources/list`` and
``prompts/get prime``. The Inspector checks a tool's ``structuredContent`` against the
``outputSchema`` it listed before it prints the result (``attemptToolCall``; a mismatch is thrown
as ``InvalidParams``: the CLI prints no result and exits 1, e.g. with ``{"error":{"code":"error",
"message":"data must have required property 'mismatch_probe'"}}`` on stderr when the schema was
made to require a key no reply has), so exit 0 with the result on stdout is its verdict. Its
validator swallows a schema it cannot compile (no check, no error), so the Inspector's own
``AjvJsonSchemaValidator`` is also run on each reply and on the same reply without its
``status``: it must accept the one and reject the other. Every reply over HTTP is the stdio one,
byte for byte (skipped, with the reason, when the npm registry cannot be reached).
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from cm_graph.context.wire import cited, section_items  # noqa: E402

from ..support.helpers import CM_GRAPH, run_installed  # noqa: E402
from ..support.surfacekit import (  # noqa: E402
    RECIPIENT,
    Served,
    cited_line_exists,
    free_port,
    http_server,
    tcp_door_ready,
)
from .test_prime_mcp import TASK, served  # noqa: E402,F401

pytestmark = [pytest.mark.provider]
FLEET = "deps"
PARALLEL = 4  # Inspector runs at a time: each is mostly the start-up of node and of the server
# Arguments each tool answers on that checkout, and the status it answers with.
ANSWERED: dict[str, tuple[dict[str, Any], str]] = {
    "code_context": ({"target": "parse_config", "intent": "usage"}, "answered"),
    "prime": ({"task": TASK}, "answered"),
    "changes": ({"diff": "commit", "ref": "HEAD"}, "answered"),  # the root commit adds every file
    "ask": ({"question": "impact", "target": "parse_config"}, "answered"),
    "cross_repo_usages": ({"symbol": "parse_config"}, "ok"),
    "graph_status": ({}, "ready"),
    "graph_feedback": ({}, "recorded"),  # the code_context answer's ids, filled in when it came
}
# What a mismatch looks like to the Inspector's validator: an envelope without its status.
VALIDATE = """
import {AjvJsonSchemaValidator} from '@modelcontextprotocol/client/validators/ajv';
let text = ''; for await (const chunk of process.stdin) text += chunk;
const provider = new AjvJsonSchemaValidator();
const verdicts = JSON.parse(text).map(({schema, reply}) => {
  const validate = provider.getValidator(schema);
  const {status, ...broken} = reply;
  return [validate(reply).valid, validate(broken).errorMessage ?? null];
});
console.log(JSON.stringify(verdicts));
"""


class Inspector:
    """One transport's target for the Inspector's command line: each method is one run of it,
    its JSON result (``--format json``) returned after checking that it exited 0."""

    def __init__(self, inspector: list[str], checkout: Served, target: list[str], home: Path) -> None:
        self.command, self.served, self.target = inspector, checkout, target
        # Its own HOME: the Inspector keeps a catalog and OAuth state under ~/.mcp-inspector.
        self.env = {**os.environ, **self.served.env(), "HOME": str(home)}

    def run(self, *flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.command, *self.target, *flags, "--format", "json"], cwd=self.served.repo,
                              env=self.env, capture_output=True, text=True, timeout=120)

    def result(self, *flags: str) -> dict[str, Any]:
        done = self.run(*flags)
        assert done.returncode == 0, (flags, done.returncode, done.stdout[-2000:], done.stderr[-2000:])
        printed = json.loads(done.stdout)
        assert list(printed) == ["result"], printed  # --strict adds schemaFindings for any finding
        return dict(printed["result"])


def asked() -> dict[str, tuple[str, ...]]:
    """Every method but graph_feedback (it reports on an answer, so it comes once they are in)."""
    flags = {name: ("--method", "tools/call", "--tool-name", name, "--tool-args-json", json.dumps(arguments))
             for name, (arguments, _) in ANSWERED.items() if name != "graph_feedback"}
    # --strict: the Inspector's schema-portability lint of every input and output schema too.
    return {"tools/list": ("--method", "tools/list", "--strict"), **flags,
            "resources/list": ("--method", "resources/list"),
            "prompts/get prime": ("--method", "prompts/get", "--prompt-name", "prime", "--prompt-args", f"task={TASK}")}


def report_on(context: dict[str, Any]) -> tuple[str, ...]:
    """A graph_feedback call reporting that ``code_context`` answer correct."""
    report = {"capability_id": context["capability_id"], "answer_id": context["answer_id"], "reads_avoided": 2,
              "files_read": 0, "correct": True}
    return ("--method", "tools/call", "--tool-name", "graph_feedback", "--tool-args-json", json.dumps(report))


@pytest.fixture(scope="module")
def runs(served: Served, inspector: list[str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:  # noqa: F811
    """Both transports asked everything once, a few runs at a time (each spawns node and, over
    stdio, the server): stdio, and streamable HTTP on loopback TCP with the bearer token. Then
    graph_feedback on the code_context answer over stdio, and the same report again over stdio
    and over HTTP (both already recorded); and tools/list over HTTP without the token."""
    joined = run_installed("fleet", "add", FLEET, "--repo-path", served.repo, "--state-dir", served.state,
                           cwd=served.repo)
    assert joined.returncode == 0, joined.stderr
    home = tmp_path_factory.mktemp("inspector-home")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    token_file = served.state / "run" / "token"

    ready = tcp_door_ready(served, base)

    with http_server(served, "--port", str(port), ready=ready), ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        url = ["--transport", "http", "--server-url", f"{base}/mcp"]
        token = ["--header", f"Authorization: Bearer {token_file.read_text().strip()}"]
        clients = {"stdio": Inspector(inspector, served, [str(CM_GRAPH), *served.args(RECIPIENT)], home),
                   "http": Inspector(inspector, served, [*url, *token], home)}
        plan = [(transport, key, flags) for transport in clients for key, flags in asked().items()]
        found: dict[str, Any] = {transport: {} for transport in clients}
        for (transport, key, _), result in zip(plan, pool.map(lambda run: clients[run[0]].result(*run[2]), plan),
                                                strict=True):
            found[transport][key] = result
        report = report_on(found["stdio"]["code_context"]["structuredContent"])
        found["stdio"]["graph_feedback"] = clients["stdio"].result(*report)
        again = pool.submit(clients["stdio"].result, *report)
        found["http"]["graph_feedback"] = clients["http"].result(*report)
        found["stdio again"] = again.result()
        found["http without the token"] = Inspector(inspector, served, url, home).run("--method", "tools/list")
    return found


def text_of(result: dict[str, Any]) -> str:
    """A tool result's one text block, checked to be its structuredContent as compact JSON."""
    [block] = result["content"]
    assert block["type"] == "text" and json.loads(block["text"]) == result["structuredContent"]
    return str(block["text"])


def cites(document: dict[str, Any]) -> list[str]:
    """Every ``path#Lline`` an answer cites: the context wire's id map, or changes' list."""
    if isinstance(document.get("citations"), list):
        return [citation["cite"] for citation in document["citations"]]
    return list(cited(document).values())


def test_over_stdio_every_listed_tool_answers_and_the_inspector_validated_it(runs: dict[str, Any],
                                                                             served: Served) -> None:  # noqa: F811
    replies = runs["stdio"]
    schemas = {tool["name"]: tool.get("outputSchema") for tool in replies["tools/list"]["tools"]}
    for name, (_, status) in ANSWERED.items():
        result = replies[name]
        # Exit 0 with the result printed: the Inspector validated structuredContent against
        # the listed outputSchema (a tool listed without one would skip its check).
        assert schemas[name] is not None and schemas[name]["type"] == "object", name
        assert result.get("isError") is False, (name, result)
        assert result["structuredContent"]["status"] == status, (name, result["structuredContent"])
        text_of(result)
    again = runs["stdio again"]["structuredContent"]
    first = replies["graph_feedback"]["structuredContent"]
    assert again["status"] == "already_recorded" and again["seq"] == first["seq"], (first, again)
    # The answers cite the checkout's own lines, at the commit they are bound to.
    context = replies["code_context"]["structuredContent"]
    commit = context["graph"]["commit"]
    for name in ("code_context", "prime", "changes"):
        citations = cites(replies[name]["structuredContent"])
        assert citations and all(cited_line_exists(served.repo, commit, cite) for cite in citations), name
    assert [r["uri"] for r in replies["resources/list"]["resources"]] == ["cmgraph://status"]


def test_prompts_get_prime_over_stdio_cites_the_anchors_of_the_repository(runs: dict[str, Any],
                                                                           served: Served) -> None:  # noqa: F811
    [message] = runs["stdio"]["prompts/get prime"]["messages"]
    assert message["role"] == "user" and message["content"]["type"] == "text"
    first, _, rest = message["content"]["text"].partition("\n\n")
    assert first == TASK
    document = json.loads(rest.split("\n", 1)[1])
    assert [(row["spelling"], row["status"]) for row in section_items(document["spellings"])] == [
        ("parse_config", "anchor"), ("load_config", "unresolved")]
    citations = cited(document)
    assert "pkg/config.py#L1" in citations.values(), citations
    assert all(cited_line_exists(served.repo, document["graph"]["commit"], cite) for cite in citations.values())
    # The same answer as the prime tool's (the prompt adds the task and its lead line only).
    assert document == runs["stdio"]["prime"]["structuredContent"]


def test_streamable_http_gives_the_inspector_the_stdio_bytes(runs: dict[str, Any]) -> None:
    stdio, http = runs["stdio"], runs["http"]
    assert http["tools/list"] == stdio["tools/list"]
    for name in ANSWERED:
        assert http[name].get("isError") is False, (name, http[name])
    for name in set(ANSWERED) - {"graph_feedback"}:
        assert text_of(http[name]) == text_of(stdio[name]), name
    # The same report a second time, whichever transport carries it: already recorded, one seq.
    assert text_of(http["graph_feedback"]) == text_of(runs["stdio again"])
    assert http["resources/list"] == stdio["resources/list"]
    assert http["prompts/get prime"] == stdio["prompts/get prime"]
    # Without the bearer token the Inspector gets nothing: its auth_required exit (3).
    refused = runs["http without the token"]
    assert refused.returncode == 3 and refused.stdout == "", (refused.returncode, refused.stdout)
    assert json.loads(refused.stderr.strip().splitlines()[-1])["error"]["code"] == "auth_required"


def test_the_inspectors_own_validator_checks_every_reply_against_its_schema(runs: dict[str, Any],
                                                                           inspector: list[str]) -> None:
    """The validator the Inspector's CLI imports (its npm package's ``@modelcontextprotocol/client``)
    compiles every listed outputSchema: it accepts each reply and rejects the reply without its
    status, so exit 0 above was a check that could fail."""
    schemas = {tool["name"]: tool["outputSchema"] for tool in runs["stdio"]["tools/list"]["tools"]}
    cases = [{"schema": schemas[name], "reply": runs[transport][name]["structuredContent"]}
             for transport in ("stdio", "http") for name in ANSWERED]
    modules = Path(inspector[0]).parent.parent  # <npx cache>/node_modules/.bin/mcp-inspector
    done = subprocess.run(["node", "--input-type=module", "-e", VALIDATE], input=json.dumps(cases),
                          cwd=modules.parent, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [[True, "data must have required property 'status'"]] * len(cases)
