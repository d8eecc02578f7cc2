"""A JSON-RPC message or body repeating a key is refused on both MCP transports (issue 25's
MCP/REST category): the SDK's reader keeps the last of a repeated key, so ``{"target":
"parse_config", "target": "nope"}`` was answered about ``nope`` while any reader in between (a
proxy, a log, a client-side validator) saw ``parse_config``. REST already refused it; over stdio
the line is answered with JSON-RPC's Invalid Request under the request's own id, over HTTP the
door refuses the body (400), and the next call answers as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from ..support.surfacekit import LineClient, connected, http_server  # noqa: E402
from .test_rest_twin import serving, uds_client  # noqa: E402

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "code_context", "arguments": {"target": "parse_config"}}}
REPEATED = {
    "in the arguments": json.dumps(CALL).replace('"target"', '"target": "nope", "target"', 1),
    "in the envelope": json.dumps(CALL).replace('"method"', '"method": "tools/list", "method"', 1),
    "in the id's object": json.dumps(CALL).replace('"jsonrpc"', '"id": 8, "jsonrpc"', 1),
}


def test_stdio_answers_a_line_repeating_a_key_with_invalid_request_and_serves_on(tmp_path: Path) -> None:
    client = LineClient(connected(tmp_path))
    try:
        for where, line in REPEATED.items():
            client.send(line.encode())
            reply = client.receive()
            assert reply is not None and "result" not in reply, (where, reply)
            assert reply["error"]["code"] == -32600 and reply["error"]["data"] == {"reason": "invalid"}, reply
            assert reply["id"] == (None if where == "in the id's object" else 7), (where, reply)
        answered = client.call("code_context", {"target": "parse_config"})
        assert answered is not None and answered["result"]["structuredContent"]["status"] == "answered", answered
    finally:
        code, stderr = client.close()
    assert code == 0 and "Traceback" not in stderr, stderr[-800:]


def test_the_http_door_refuses_a_body_repeating_a_key_on_mcp_and_rest(tmp_path: Path) -> None:
    served = connected(tmp_path)
    path, ready = serving(served)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2025-11-25"}
    with http_server(served, ready=ready), uds_client(path) as client:
        for where, body in REPEATED.items():
            refused = client.post("/mcp", content=body.encode(), headers=headers)
            assert refused.status_code == 400 and refused.json()["reason"] == "invalid", (where, refused.text[:200])
        rest = client.post("/graph/analyze/code-context", content=b'{"target":"parse_config","target":"nope"}')
        assert rest.status_code == 400 and rest.json()["reason"] == "invalid", rest.text[:200]
        answered = client.post("/mcp", content=json.dumps(CALL).encode(), headers=headers)
        assert answered.status_code == 200, answered.text[:200]
        assert answered.json()["result"]["structuredContent"]["status"] == "answered", answered.text[:300]
