"""Benchmarks for the agent surfaces (issue 19): MCP round trips through the SDK's real client.

    python benchmarks/mcp_surface.py [--package sympy] [--targets 60] [--out DIR]

On the largest benchmark graph (sympy 1.13.3, its provider output and index cached under
/tmp/cm-graph-bench by benchmarks/context.py), a local connection is made in the cached state
root, then:

1. start to first answer: the installed ``cm-graph mcp`` is spawned by the SDK's stdio client and
   one ``code_context`` call is answered (process start, SDK import, handshake, first read);
2. round trip p50/p95 for ``ask`` and ``code_context`` through that client, each target asked
   twice and the second call timed (the page cache is warm, as in a working session);
3. the server's own share: each call again, right after, through ``surfaces.dispatch.call_tool``
   in-process (authorization, HEAD, status, answer, serialisation), without the transport; its
   bytes must equal the client's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import anyio  # noqa: E402
import context  # noqa: E402
import corpus  # noqa: E402

CONNECTION, RECIPIENT = "bench-graph", "claude:builder"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def _summary(times: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(times), 3), "p95_ms": round(_percentile(times, 0.95), 3),
            "max_ms": round(max(times), 3), "calls": len(times)}


def _calls(targets: list[str]) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for target in targets:
        calls.append(("code_context", {"target": target, "intent": "usage"}))
        calls.append(("ask", {"question": "impact", "target": target}))
    return calls


async def measure(state: Path, checkout: Path, caller: Any, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Each call through the real client and, right beside it, in-process (the server's own share),
    so the machine's load falls on both alike; the second of two identical calls is timed."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from cm_graph.surfaces.dispatch import call_tool
    from cm_graph.surfaces.tools import BY_NAME

    executable = Path(sys.executable).parent / "cm-graph"
    params = StdioServerParameters(
        command=str(executable), cwd=str(checkout), env={"CM_GRAPH_HOME": str(state)},
        args=["mcp", "--connection", CONNECTION, "--recipient", RECIPIENT, "--state-dir", str(state)],
    )
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        first = await client.call_tool(*calls[0])
        first_answer_ms = (time.perf_counter() - started) * 1000
        assert not first.is_error
        client_times: dict[str, list[float]] = {"code_context": [], "ask": []}
        server_times: dict[str, list[float]] = {"code_context": [], "ask": []}
        largest = 0
        for name, arguments in calls:
            await client.call_tool(name, arguments)
            begun = time.perf_counter()
            result = await client.call_tool(name, arguments)
            client_times[name].append((time.perf_counter() - begun) * 1000)
            assert not result.is_error, result.content
            largest = max(largest, len(result.content[0].text))
            begun = time.perf_counter()
            reply = call_tool(caller, BY_NAME[name], arguments)
            server_times[name].append((time.perf_counter() - begun) * 1000)
            assert reply.body.decode() == result.content[0].text  # the same answer, byte for byte
    return {"start_to_first_answer_ms": round(first_answer_ms, 1), "largest_reply_chars": largest,
            "client_round_trip": {name: _summary(values) for name, values in client_times.items()},
            "server_share": {name: _summary(values) for name, values in server_times.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="sympy")
    parser.add_argument("--targets", type=int, default=60)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "context")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench")
    opts = parser.parse_args(argv)
    from cm_graph.connections.store import ConnectionStore, connect
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import index_for, open_index_for
    from cm_graph.surfaces.authority import Caller

    package = next(p for p in corpus.REAL_PACKAGES if p.name == opts.package)
    meta = corpus.prepare_real(package, opts.cache, log)
    workspace = context.publish(meta, opts.out)
    generation = require_current(workspace)
    index_for(generation)  # the surfaces never derive an index: make sure it is there
    store = ConnectionStore(workspace.root)
    if store.read(CONNECTION) is None:
        connect(store, CONNECTION, workspace.checkout, ["bench/" + package.name], [RECIPIENT])
    connection = open_index_for(generation)
    try:
        targets = context._targets(connection, opts.targets)[0]
        nodes = connection.execute("SELECT count(*) FROM nodes").fetchone()[0]
    finally:
        connection.close()
    calls = _calls(targets)
    caller = Caller(workspace.root, CONNECTION, RECIPIENT)
    results = {"package": f"{package.name} {package.version}", "nodes": nodes, "targets": len(targets),
               **anyio.run(measure, workspace.root, workspace.checkout, caller, calls)}
    (opts.out / "mcp-results.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
