"""Issue 31 item 1: what a resident server does per call, and no more.

The stdio wire is read and written on the event loop when it is a pipe (``stdio_pipes.py``),
with exactly the lines the SDK's text reader gave; the SDK's no-op OpenTelemetry middleware is
dropped; an argument verdict is kept per JSON text, never across types; the fleet's store is
resolved when a member is asked about, and refuses then as strictly as before.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from cm_graph.base.errors import Unsafe  # noqa: E402
from cm_graph.fleet.members import Member  # noqa: E402
from cm_graph.surfaces import dispatch  # noqa: E402
from cm_graph.surfaces.authority import Caller, fleet_access  # noqa: E402
from cm_graph.surfaces.mcp_server import build_server  # noqa: E402
from cm_graph.surfaces.stdio_pipes import PipeLines, newline_decoder, split_lines  # noqa: E402
from cm_graph.surfaces.tools import BY_NAME  # noqa: E402

from ..support.helpers import make_repo  # noqa: E402
from ..support.surfacekit import LineClient, connected  # noqa: E402

# Bytes a host could send: JSON, every newline convention, a multi-byte character, bytes that are no UTF-8.
PIECES = st.sampled_from([b"{", b"}", b'"a"', b"\n", b"\r", b"\r\n", "é€".encode(), b"\xff", b"\xe2\x82", b" "])


def text_reader_lines(data: bytes) -> list[str]:
    """The lines the SDK's reader got before: ``io.TextIOWrapper`` over the bytes, line by line."""
    return list(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"))


def chunked_lines(data: bytes, cuts: list[int]) -> list[str]:
    decoder, pending, lines = newline_decoder(), "", []
    bounds = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    for start, end in zip(bounds, bounds[1:], strict=False):
        found, pending = split_lines(decoder, data[start:end], pending, final=False)
        lines += found
    found, pending = split_lines(decoder, b"", pending, final=True)
    return lines + found


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map(b"".join), st.lists(st.integers(min_value=0, max_value=200), max_size=6))
def test_lines_cut_anywhere_are_the_text_readers_lines(data: bytes, cuts: list[int]) -> None:
    assert chunked_lines(data, cuts) == text_reader_lines(data)


def test_a_real_pipe_is_read_on_the_event_loop_as_the_text_reader_reads_it() -> None:
    data = b'{"a":1}\r\n{"b":"\xc3\xa9"}\r{"c":\xff}\n\n{"d":2}'
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)

    async def lines() -> list[str]:
        return [line async for line in PipeLines(read_end)]

    try:
        assert anyio.run(lines) == text_reader_lines(data)
        assert os.get_blocking(read_end)  # switched back after
    finally:
        os.close(read_end)


def test_a_crlf_framed_call_over_pipes_is_answered(tmp_path: Path) -> None:
    client = LineClient(connected(tmp_path))
    try:
        assert client.process.stdin is not None
        client.process.stdin.write(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"code_context",'
                                   b'"arguments":{"target":"parse_config"}}}\r\n')
        client.process.stdin.flush()
        reply = client.receive()
        assert reply is not None and reply["id"] == 5, reply
        assert reply["result"]["structuredContent"]["status"] == "answered", reply
    finally:
        client.close()


def test_the_server_runs_no_otel_middleware(tmp_path: Path) -> None:
    server = build_server(Caller(tmp_path, "graph", "claude:builder"))
    assert server.middleware == []


def test_an_argument_verdict_is_kept_per_json_text_and_never_across_types() -> None:
    tool = BY_NAME["code_context"]
    asked = [{"target": "x"}, {"target": 1}, {"target": True}, {"target": 1.0}, {"target": "x", "intent": "nope"},
             {"intent": "nope", "target": "x"}, {"target": "x", "max_chars": 1}]
    first = [dispatch.argument_error(tool, arguments) for arguments in asked]
    assert first[0] is None and all(verdict is not None for verdict in first[1:])
    assert "True" in str(first[2]) and "1.0" in str(first[3])  # each names its own value
    assert [dispatch.argument_error(tool, arguments) for arguments in asked] == first
    kept = {key for key in dispatch._VERDICTS if key[0] == "code_context"}
    assert len(kept) >= len(asked)
    assert dispatch.argument_error(tool, {"target": ["x"]}) is not None  # not a scalar: judged, not kept


def test_the_fleet_store_is_resolved_when_a_member_is_asked_and_refuses_then(tmp_path: Path) -> None:
    work_tree = make_repo(tmp_path / "work", {"a.py": "x = 1\n"})
    state = work_tree / "state"
    state.mkdir()
    access = fleet_access(Caller(state, "graph", "claude:builder"))  # a checkout with no fleet asks nothing
    with pytest.raises(Unsafe):
        access(Member("owner/repo", tmp_path / "other", "other"))
