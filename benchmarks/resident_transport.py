"""The resident server's cost per ``code_context`` call without ``compose`` (issue 31 item 1).

    PYTHONPATH=TREE python benchmarks/resident_transport.py /tmp/cm-graph-bench/resident.calls.json

Run ``benchmarks/resident.py`` once first (it prepares sympy's state root and writes the calls
file beside its ``--out``). The server here is ``cm_graph mcp`` with ``compose`` memoized on
(intent, target), so after one warm round a call costs everything but ``compose``: the transport,
the SDK, the per-call authorization and the reply's encoding. Printed: the median over the calls
of the server's cpu (``/proc/PID/task/*/schedstat``) and of the round trip, then the same calls
in-process (``call_tool`` and the MCP result built) in cpu. Set PYTHONPATH to the tree to measure.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STATE = Path("/tmp/cm-graph-bench/context/state/sympy-1.13.3")
CHECKOUT = Path("/tmp/cm-graph-bench/sympy-1.13.3/repo")
ARGS = ["mcp", "--connection", "bench-graph", "--recipient", "claude:builder", "--state-dir", str(STATE)]


def memoize_compose() -> None:
    import cm_graph.context.from_workspace as workspace_module

    real, memo = workspace_module.compose, {}

    def compose(connection: Any, intent: str, target: str, *rest: Any, **options: Any) -> Any:
        if (intent, target) not in memo:
            memo[(intent, target)] = real(connection, intent, target, *rest, **options)
        return memo[(intent, target)]

    workspace_module.compose = compose  # type: ignore[assignment]


def serve() -> None:
    memoize_compose()
    from cm_graph.cli.entry import main

    sys.argv = ["cm-graph", *ARGS]
    main()


async def over_stdio(calls: list[dict[str, Any]]) -> tuple[float, float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    sys.path.insert(0, str(HERE))
    from resident import sched_cpu_ms, server_pid

    env = {"CM_GRAPH_HOME": str(STATE), "PATH": os.environ["PATH"], "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(command=sys.executable, args=[__file__, "--serve"], cwd=str(CHECKOUT), env=env)
    async with Client(params, read_timeout_seconds=120) as client:
        pid = server_pid("resident_transport")
        for arguments in calls:
            await client.call_tool("code_context", arguments)
        cpus, walls = [], []
        for arguments in calls:
            cpu, begun = sched_cpu_ms(pid), time.perf_counter()
            await client.call_tool("code_context", arguments)
            walls.append((time.perf_counter() - begun) * 1000)
            cpus.append(sched_cpu_ms(pid) - cpu)
    return statistics.median(cpus), statistics.median(walls)


def in_process(calls: list[dict[str, Any]]) -> float:
    memoize_compose()
    from cm_graph.surfaces.authority import Caller
    from cm_graph.surfaces.dispatch import call_tool
    from cm_graph.surfaces.mcp_server import call_result
    from cm_graph.surfaces.tools import BY_NAME

    caller, tool = Caller(STATE, "bench-graph", "claude:builder"), BY_NAME["code_context"]
    cpus = []
    for round_number in range(2):
        for arguments in calls:
            begun = time.process_time()
            reply = call_tool(caller, tool, arguments)
            call_result(reply.payload, reply.is_error)
            if round_number:
                cpus.append((time.process_time() - begun) * 1000)
    return statistics.median(cpus)


def main() -> int:
    if sys.argv[1:] == ["--serve"]:
        serve()
        return 0
    import anyio

    calls = json.loads(Path(sys.argv[1]).read_text())
    server_cpu, wall = anyio.run(over_stdio, calls)
    import cm_graph

    print(json.dumps({"source": str(Path(cm_graph.__file__).parent.parent), "calls": len(calls),
                      "load_average_1m": round(os.getloadavg()[0], 2), "server_cpu_ms_median": round(server_cpu, 3),
                      "stdio_wall_ms_median": round(wall, 3), "in_process_cpu_ms_median": round(in_process(calls), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
