"""Paging on the agent surfaces (issue 27 item 1): MCP and the REST twin take ``max_items`` and
the ``cursor`` a cut section's next action names, and page the same answer the CLI does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cm_graph.context.wire import section_items

httpx2 = pytest.importorskip("httpx2", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from ..support.contextkit import many_callers  # noqa: E402
from ..support.helpers import make_repo, provider_extract  # noqa: E402
from ..support.surfacekit import connected, http_server  # noqa: E402
from .test_rest_twin import serving, uds_client  # noqa: E402

pytestmark = [pytest.mark.provider]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def test_rest_and_mcp_take_max_items_and_page_with_the_cursor(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", many_callers(20))
    served = connected(tmp_path, provider_extract(repo, tmp_path / "out"), repo=repo)
    path, ready = serving(served)
    with http_server(served, ready=ready), uds_client(path) as client:
        # A budget wide enough that the item bound, not the characters, cuts the two sections.
        first = client.post("/graph/analyze/code-context", json={"target": "target", "max_items": 4,
                                                                "max_chars": 20_000})
        assert first.status_code == 200, first.text
        document = first.json()
        assert document["bounds"]["max_items"] == 4 and document["sections"]["callers"]["shown"] == 4
        [action] = [a for a in document["next_actions"] if a["arguments"].get("cursor", "").startswith("callers.")]
        call = client.post("/mcp", headers=MCP_HEADERS, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": action["tool"], "arguments": action["arguments"]}})
        result = call.json()["result"]
        assert result["isError"] is False, result
        page = json.loads(result["content"][0]["text"])
        assert page["page"]["of"] == document["answer_id"]
        assert [i["label"] for i in section_items(page["sections"]["callers"])] == [
            f"caller_{i:02d}()" for i in range(4, 8)]
        other = client.post("/graph/analyze/code-context", json={**action["arguments"], "target": "caller_00"})
        assert other.status_code == 400 and other.json()["reason"] == "cursor_mismatch"
        too_many = client.post("/graph/analyze/code-context", json={"target": "target", "max_items": 501})
        assert too_many.status_code == 400 and too_many.json()["reason"] == "invalid"
