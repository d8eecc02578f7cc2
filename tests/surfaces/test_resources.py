"""Issue 30 item 3: MCP resources and the tools' argument metadata, read by the SDK's own client.

``cmgraph://status`` is the ``graph_status`` answer; ``cmgraph://symbols/{path}`` (a resource
template) is ``cm-graph symbols PATH --json``. Both re-check the connection on every read, as a tool
call does. Every argument of every tool has a description ending in an example that its own schema
accepts, and the part of ``tools/list`` a host puts into the model's context stays under 4,000
characters.
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
from mcp import MCPError  # noqa: E402

from cm_graph.surfaces.replyschemas import whole_schema  # noqa: E402

from ..support.helpers import CM_GRAPH, run_installed  # noqa: E402
from ..support.surfacekit import RECIPIENT, connected  # noqa: E402
from .test_mcp_server import stdio, structured  # noqa: E402

pytestmark = pytest.mark.anyio
EXAMPLE = ", e.g. "


def wire(listed: list[Any]) -> str:
    return json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed],
                      separators=(",", ":"))


def model_facing(listed: list[Any]) -> str:
    """What a host forwards to the model of each tool: its name, description and input schema
    (Claude Code drops ``outputSchema`` and the annotations: anthropics/claude-code#90150)."""
    return json.dumps([{"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                       for t in listed], separators=(",", ":"))


def example_of(description: str) -> Any:
    """The example a description ends with: JSON when it reads as JSON, else the text itself."""
    assert EXAMPLE in description, description
    text = description.rsplit(EXAMPLE, 1)[1]
    try:
        return json.loads(text)
    except ValueError:
        return text


async def test_every_argument_has_a_description_and_an_example_its_schema_accepts(tmp_path: Path) -> None:
    served = connected(tmp_path)
    async with stdio(served) as client:
        listed = (await client.list_tools()).tools
    for tool in listed:
        for name, spec in tool.input_schema["properties"].items():
            description = spec.get("description", "")
            assert len(description.rsplit(EXAMPLE, 1)[0]) >= 3, (tool.name, name, spec)
            example = example_of(description)
            problems = [e.message for e in jsonschema.Draft202012Validator(spec).iter_errors(example)]
            assert problems == [], (tool.name, name, example, problems)
    assert len(model_facing(listed)) < 4000, len(model_facing(listed))


async def test_status_and_a_files_definitions_are_resources(tmp_path: Path) -> None:
    served = connected(tmp_path)
    cli = run_installed("symbols", "example_pkg/config.py", "--json", "--state-dir", served.state, cwd=served.repo)
    assert cli.returncode == 0, cli.stderr
    async with stdio(served) as client:
        resources = {r.uri: r for r in (await client.list_resources()).resources}
        assert set(resources) == {"cmgraph://status"} and resources["cmgraph://status"].mime_type == "application/json"
        templates = {t.uri_template: t for t in (await client.list_resource_templates()).resource_templates}
        assert set(templates) == {"cmgraph://symbols/{path}", "cmgraph://schemas/{schema}"}
        assert templates["cmgraph://symbols/{path}"].mime_type == "application/json"
        # A file's definitions: exactly what `cm-graph symbols PATH --json` says, the path with
        # its slashes as written or escaped (RFC 6570's {path} escapes them).
        for uri in ("cmgraph://symbols/example_pkg/config.py", "cmgraph://symbols/example_pkg%2Fconfig.py"):
            contents = (await client.read_resource(uri)).contents
            assert len(contents) == 1 and contents[0].uri == uri and contents[0].mime_type == "application/json"
            assert json.loads(contents[0].text) == json.loads(cli.stdout), contents[0].text
        # The graph's status: the graph_status tool's answer, the same bytes.
        status = (await client.read_resource("cmgraph://status")).contents[0]
        tool = structured(await client.call_tool("graph_status", {}))
        assert status.text == json.dumps(tool, ensure_ascii=False, separators=(",", ":"))
        assert tool["status"] == "ready"
        # What names nothing is refused with the reason and the sentence the CLI gives.
        missing = run_installed("symbols", "example_pkg/nope.py", "--state-dir", served.state, cwd=served.repo)
        assert missing.returncode == 1 and "cm-graph: unresolved:" in missing.stderr
        for uri, reason in (("cmgraph://symbols/example_pkg/nope.py", "unresolved"),
                            ("cmgraph://symbols/", "invalid"), ("cmgraph://nothing", "not_found")):
            with pytest.raises(MCPError) as refused:
                await client.read_resource(uri)
            assert refused.value.data["reason"] == reason, (uri, refused.value.data)
            assert refused.value.message == refused.value.data["answer"], (uri, refused.value.message)
        assert "No such tracked file" in missing.stderr


async def test_an_unnamed_recipient_reads_no_resource(tmp_path: Path) -> None:
    served = connected(tmp_path)
    async with stdio(served, "codex:reviewer") as client:
        for uri in ("cmgraph://status", "cmgraph://symbols/example_pkg/config.py"):
            with pytest.raises(MCPError) as refused:
                await client.read_resource(uri)
            assert refused.value.data["reason"] == "unauthorized", (uri, refused.value.data)
            assert "#L" not in json.dumps(refused.value.data) and "parse_config" not in json.dumps(refused.value.data)


def inspector_run(inspector: list[str], served: Any, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*inspector, str(CM_GRAPH), *served.args(RECIPIENT), *flags], cwd=served.repo,
                          env={**os.environ, **served.env()}, capture_output=True, text=True, timeout=300)


def test_the_mcp_inspector_lists_and_reads_the_resources_and_sees_every_description(
    tmp_path: Path, inspector: list[str]
) -> None:
    """A client nobody here wrote (the MCP Inspector's command line, from npm) lists both
    resources, reads a file's definitions as the CLI prints them, and lists every argument with
    its description and example."""
    served = connected(tmp_path)
    cli = run_installed("symbols", "example_pkg/config.py", "--json", "--state-dir", served.state, cwd=served.repo)
    listed = inspector_run(inspector, served, "--method", "resources/list")
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [r["uri"] for r in json.loads(listed.stdout)["resources"]] == ["cmgraph://status"]
    templates = inspector_run(inspector, served, "--method", "resources/templates/list")
    assert [t["uriTemplate"] for t in json.loads(templates.stdout)["resourceTemplates"]] == [
        "cmgraph://symbols/{path}", "cmgraph://schemas/{schema}"]
    # A reply schema in full, as docs/mcp.md reads it: the package's data file.
    changes = inspector_run(inspector, served, "--method", "resources/read", "--uri", "cmgraph://schemas/cm_graph.changes.v1")
    assert changes.returncode == 0, changes.stderr[-2000:]
    assert json.loads(json.loads(changes.stdout)["contents"][0]["text"]) == whole_schema("cm_graph.changes.v1")
    read = inspector_run(inspector, served, "--method", "resources/read", "--uri", "cmgraph://symbols/example_pkg/config.py")
    assert read.returncode == 0, read.stderr[-2000:]
    assert json.loads(json.loads(read.stdout)["contents"][0]["text"]) == json.loads(cli.stdout)
    missing = inspector_run(inspector, served, "--method", "resources/read", "--uri", "cmgraph://symbols/nope.py")
    assert missing.returncode != 0 and "No such tracked file" in missing.stdout + missing.stderr
    tools = json.loads(inspector_run(inspector, served, "--method", "tools/list").stdout)["tools"]
    for tool in tools:
        for name, spec in tool["inputSchema"]["properties"].items():
            assert EXAMPLE in spec.get("description", ""), (tool["name"], name)
    model = [{"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]} for t in tools]
    assert len(json.dumps(model, separators=(",", ":"))) < 4000
