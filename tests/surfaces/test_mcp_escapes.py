"""Issue 25 item 3 on the agent surfaces: what an MCP host prints holds no control character.

The hostile repository of ``tests/support/hostilenames.py``, built by the pinned provider, served
by the installed ``cm-graph mcp`` and driven by the SDK's own client. Every tool's text content
(the compact JSON, the very bytes of the REST twin's body: ``dispatch.wire_bytes``) carries no
control or bidi character raw, and no prose field of the structured object does once decoded;
the structured fields keep the exact names, so citations stay exact.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from cm_graph.context.wire import cited as cited_of
from cm_graph.context.wire import section_items

from ..support.helpers import CM_GRAPH  # noqa: E402
from ..support.hostilenames import (  # noqa: E402
    CHECKOUT,
    CONNECTION,
    COUPLED,
    FLEET,
    FORBIDDEN,
    HOSTILE,
    RECIPIENT,
    UNRESOLVED,
    WITH_ESCAPE,
    Hostile,
    hostile_repo,
    prose,
    shown,
)

pytestmark = [pytest.mark.anyio, pytest.mark.provider]
CALLS = [
    # impact with the tool's widest budget: its change_coupling section shows every coupled file
    *(("code_context", {"intent": intent, "target": "helper", **({"max_chars": 40000} if intent == "impact" else {})})
      for intent in ("how", "usage", "impact", "tests")),
    ("code_context", {"intent": "usage", "target": UNRESOLVED}),
    ("code_context", {"intent": WITH_ESCAPE, "target": "helper"}),  # refused by the schema, quoting it
    ("code_context", {"intent": "usage", "target": WITH_ESCAPE}),
    ("ask", {"question": "impact", "target": "helper"}),
    ("ask", {"question": "impact", "target": UNRESOLVED}),
    ("cross_repo_usages", {"symbol": "helper"}),
    ("cross_repo_usages", {"symbol": UNRESOLVED}),
    ("graph_status", {}),
    ("graph_status", {"fleet": FLEET}),
]


async def test_mcp_prose_and_text_hold_no_control_character(tmp_path: Path) -> None:
    served = Hostile(hostile_repo(tmp_path / CHECKOUT), tmp_path / "state")
    assert served.run("build").code == 0
    served.json("context", "history", "--json")
    served.json("connect", "--connection", CONNECTION, "--repository", "owner/repo", "--recipient", RECIPIENT,
                "--json")
    served.json("fleet", "add", FLEET, "--repo-path", str(served.repo), "--json")
    parameters = StdioServerParameters(command=str(CM_GRAPH), args=["mcp", "--connection", CONNECTION,
                                       "--recipient", RECIPIENT], env=served.env(), cwd=str(served.repo))
    broke, answers = [], []
    async with Client(parameters, read_timeout_seconds=120) as client:
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            text = result.content[0].text
            assert json.loads(text) == result.structured_content
            answers.append(result.structured_content)
            broke += [f"{name} {arguments!r}: text {match.group()!r}" for match in FORBIDDEN.finditer(text)]
            broke += [f"{name} {arguments!r}: prose {sentence!r}" for sentence in prose(result.structured_content)
                      if FORBIDDEN.search(sentence)]
    assert not broke, "\n".join(broke)
    impact = answers[2]
    assert set(COUPLED) <= {item["path"] for item in section_items(impact["sections"]["change_coupling"],
                                                                   cited_of(impact))}
    assert any(HOSTILE["bidi"] in cite for cite in cited_of(impact).values())
    assert shown(COUPLED[0]) in impact["answer"]  # the prose names the coupled files, visibly
