"""Issue 30 item 2 over MCP: the ``prime`` tool and ``prompts/get prime``, driven by the SDK's client
against the installed server, on a repository the pinned provider built."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from mcp import MCPError  # noqa: E402

from cm_graph.connections.store import ConnectionStore, connect  # noqa: E402
from cm_graph.context.wire import cited, section_items  # noqa: E402

from ..support.helpers import make_repo, provider_extract, run_installed  # noqa: E402
from ..support.surfacekit import CONNECTION, RECIPIENT, Served, cited_line_exists  # noqa: E402
from .test_mcp_server import stdio, structured  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.provider]

FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": ("def parse_config(text):\n    return dict(line.split('=', 1) for line in text.splitlines())\n\n\n"
                      "def load_settings(path):\n    return parse_config(open(path).read())\n"),
    "pkg/other.py": "def transmit(message):\n    return message\n",
    "tests/test_config.py": ("from pkg.config import parse_config\n\n\ndef test_parse_config():\n"
                             "    assert parse_config('a=1') == {'a': '1'}\n"),
}
TASK = "rename parse_config to load_config and update callers"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    base = tmp_path_factory.mktemp("prime-mcp")
    repo = make_repo(base / "repo", FILES)
    provider_extract(repo, base / "graphify-out")
    state = base / "state"
    done = run_installed("build", "--from-graph", base / "graphify-out", "--state-dir", state, cwd=repo)
    assert done.returncode == 0, done.stderr
    connect(ConnectionStore(state), CONNECTION, repo, ["owner/repo"], [RECIPIENT])
    return Served(repo, state)


def anchors(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(row["spelling"], row["status"]) for row in section_items(document["spellings"])]


async def test_the_prime_tool_answers_as_the_cli_does_cited_at_the_bound_commit(served: Served) -> None:
    async with stdio(served) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        tool = listed["prime"]
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.input_schema["required"] == ["task"]
        document = structured(await client.call_tool("prime", {"task": TASK}))
        refused = await client.call_tool("prime", {"task": ""})
    assert document["status"] == "answered" and document["bounds"]["max_chars"] == 6000
    assert anchors(document) == [("parse_config", "anchor"), ("load_config", "unresolved")]
    assert "load_settings()" in [i["label"] for i in section_items(document["sections"]["a1.callers"])]
    commit = document["graph"]["commit"]
    assert all(cited_line_exists(served.repo, commit, cite) for cite in cited(document).values())
    cli = run_installed("context", "prime", TASK, "--json", "--state-dir", served.state, cwd=served.repo)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == document  # the same answer, the same id
    assert refused.is_error is True and structured(refused)["reason"] == "invalid"


async def test_prompts_get_prime_puts_the_task_and_its_code_area_into_one_message(served: Served) -> None:
    async with stdio(served) as client:
        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        got = await client.get_prompt("prime", {"task": TASK, "files": "pkg/other.py"})
        with pytest.raises(MCPError) as refused:
            await client.get_prompt("prime", {"task": " "})
        answer = structured(await client.call_tool("prime", {"task": TASK}))
    assert [(a.name, a.required) for a in prompts["prime"].arguments or []] == [("task", True), ("files", False),
                                                                                    ("changes", False)]
    [message] = got.messages
    assert message.role == "user" and message.content.type == "text"
    task, lead, body = message.content.text.split("\n", 2)[0], message.content.text.split("\n")[2], \
        message.content.text.split("\n", 3)[3]
    assert task == TASK and "cm-graph prime" in lead
    document = json.loads(body)
    assert anchors(document) == [("parse_config", "anchor"), ("load_config", "unresolved"),
                                 ("pkg/other.py", "anchor")]
    assert document["answer_id"] != answer["answer_id"]  # files made it another answer
    assert all(cited_line_exists(served.repo, document["graph"]["commit"], cite)
               for cite in cited(document).values())
    assert refused.value.error.data["reason"] == "invalid"
