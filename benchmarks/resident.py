"""The resident server's cost per ``code_context`` call (issue 31): two source trees in one run.

    python benchmarks/resident.py --before /tmp/cm-graph-main [--calls 200] [--rounds 2]

On sympy 1.13.3's graph (provider output and index cached under /tmp/cm-graph-bench by
benchmarks/context.py; a local connection is made in that state root, as benchmarks/mcp_surface.py
does), each source tree (``--before``: another checkout's tree, e.g. ``git -C /work/main archive
main | tar -x -C /tmp/cm-graph-main``; ``--after``: this one) is measured by a child process whose
PYTHONPATH is that tree, the rounds alternating between the two so the machine's load falls on
both alike. A child:

1. starts ``python -m cm_graph mcp`` (stdio) through the MCP SDK's own client, makes ``--calls``
   ``code_context`` calls (the targets of benchmarks/context.py, four intents each) once to warm
   up, then again, timing each round trip on the client and reading the server process's cpu:
   ``/proc/PID/stat`` utime+stime before and after all the calls (clock ticks, so per call it is the
   mean; cutime+cstime beside it, the git children the server started), and per call the sum of
   ``/proc/PID/task/*/schedstat`` (ns, every thread of the server);
2. makes the same calls in-process through ``surfaces.dispatch.call_tool`` (wall and
   ``time.process_time``; no transport, no SDK);
3. runs one indexed SELECT per call on an open apsw connection to the same index (the floor).

Each figure is min/median/max over the calls; the machine's load average is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONNECTION, RECIPIENT = "bench-graph", "claude:builder"
INTENTS = ("usage", "how", "impact", "tests")
TICK = os.sysconf("SC_CLK_TCK")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def spread(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values), 3), "median": round(statistics.median(values), 3),
            "max": round(max(values), 3), "n": len(values)}


def stat_cpu_ms(pid: int) -> tuple[float, float]:
    """(utime+stime, cutime+cstime: the git children it waited for), in ms (fields 14-17)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return ((int(fields[11]) + int(fields[12])) * 1000 / TICK, (int(fields[13]) + int(fields[14])) * 1000 / TICK)


def sched_cpu_ms(pid: int) -> float:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError):
            continue  # a thread that ended meanwhile
    return total / 1e6


def server_pid(command_marker: str) -> int:
    """The one child of this process running ``cm_graph mcp`` (the SDK's client started it)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and command_marker.encode() in cmdline:
            return int(entry.name)
    raise SystemExit("the server process was not found")


async def over_stdio(state: Path, checkout: Path, calls: list[dict[str, Any]]) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {"CM_GRAPH_HOME": str(state), "PATH": os.environ["PATH"], "PYTHONPATH": os.environ["PYTHONPATH"]}
    params = StdioServerParameters(
        command=sys.executable, cwd=str(checkout), env=env,
        args=["-m", "cm_graph", "mcp", "--connection", CONNECTION, "--recipient", RECIPIENT, "--state-dir", str(state)],
    )
    walls, cpus, texts = [], [], []
    async with Client(params, read_timeout_seconds=120) as client:
        pid = server_pid("cm_graph")
        for arguments in calls:  # warm: the page cache, the first judgement, the SDK's validators
            result = await client.call_tool("code_context", arguments)
            assert not result.is_error, result.content
        stat_before = stat_cpu_ms(pid)
        for arguments in calls:
            cpu = sched_cpu_ms(pid)
            begun = time.perf_counter()
            result = await client.call_tool("code_context", arguments)
            walls.append((time.perf_counter() - begun) * 1000)
            cpus.append(sched_cpu_ms(pid) - cpu)
            assert not result.is_error, result.content
            texts.append(result.content[0].text)
        stat_after = stat_cpu_ms(pid)
    return {"wall_ms": spread(walls), "cpu_ms_schedstat": spread(cpus),
            "cpu_ms_per_call_stat": round((stat_after[0] - stat_before[0]) / len(calls), 3),
            "children_cpu_ms_per_call_stat": round((stat_after[1] - stat_before[1]) / len(calls), 3), "texts": texts}


def in_process(state: Path, calls: list[dict[str, Any]]) -> dict[str, Any]:
    from cm_graph.surfaces.authority import Caller
    from cm_graph.surfaces.dispatch import call_tool
    from cm_graph.surfaces.tools import BY_NAME

    caller, tool = Caller(state, CONNECTION, RECIPIENT), BY_NAME["code_context"]
    for arguments in calls:
        call_tool(caller, tool, arguments)
    walls, cpus, texts = [], [], []
    for arguments in calls:
        cpu, begun = time.process_time(), time.perf_counter()
        reply = call_tool(caller, tool, arguments)
        walls.append((time.perf_counter() - begun) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        texts.append(reply.body.decode())
    return {"wall_ms": spread(walls), "cpu_ms": spread(cpus), "texts": texts}


def bare_select(index: Path, calls: list[dict[str, Any]]) -> dict[str, Any]:
    import apsw

    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    walls, cpus = [], []
    try:
        for arguments in calls * 2:
            cpu, begun = time.process_time(), time.perf_counter()
            connection.execute("SELECT node FROM nodes WHERE label = ? LIMIT 1", (arguments["target"],)).fetchall()
            walls.append((time.perf_counter() - begun) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
    finally:
        connection.close()
    return {"wall_ms": spread(walls[len(calls):]), "cpu_ms": spread(cpus[len(calls):])}


def child(opts: argparse.Namespace) -> int:
    import anyio

    calls = json.loads(opts.calls_json.read_text())
    stdio = anyio.run(over_stdio, opts.state, opts.checkout, calls)
    local = in_process(opts.state, calls)
    same = stdio.pop("texts") == local.pop("texts")
    import cm_graph

    print(json.dumps({"source": str(Path(cm_graph.__file__).parent.parent), "stdio": stdio, "in_process": local,
                      "same_bytes_as_in_process": same, "bare_select": bare_select(opts.index, calls)}))
    return 0


def prepare(calls_wanted: int) -> tuple[Path, Path, Path, list[dict[str, Any]], dict[str, Any]]:
    sys.path.insert(0, str(HERE))
    import context
    import corpus

    from cm_graph.connections.store import ConnectionStore, connect
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import index_for, open_index_for

    cache = Path(tempfile.gettempdir()) / "cm-graph-bench"
    package = next(p for p in corpus.REAL_PACKAGES if p.name == "sympy")
    meta = corpus.prepare_real(package, cache, log)
    workspace = context.publish(meta, cache / "context")
    generation = require_current(workspace)
    index_for(generation)
    store = ConnectionStore(workspace.root)
    if store.read(CONNECTION) is None:
        connect(store, CONNECTION, workspace.checkout, ["bench/sympy"], [RECIPIENT])
    connection = open_index_for(generation)
    try:
        targets = context._targets(connection, calls_wanted // len(INTENTS))[0]
        nodes = connection.execute("SELECT count(*) FROM nodes").fetchone()[0]
    finally:
        connection.close()
    calls = [{"target": target, "intent": intent} for target in targets for intent in INTENTS][:calls_wanted]
    facts = {"package": f"sympy {package.version}", "nodes": nodes, "generation": generation.id}
    return workspace.root, workspace.checkout, workspace.index_path(generation.id), calls, facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=False, help="the source tree measured first (e.g. main)")
    parser.add_argument("--after", type=Path, default=HERE.parent)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "resident.json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--state", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--checkout", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--index", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--calls-json", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.child:
        return child(opts)
    state, checkout, index, calls, facts = prepare(opts.calls)
    calls_json = opts.out.with_suffix(".calls.json")
    calls_json.write_text(json.dumps(calls))
    trees = {"after": opts.after.resolve()}
    if opts.before is not None:
        trees = {"before": opts.before.resolve(), **trees}
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    load = [os.getloadavg()]
    for round_number in range(opts.rounds):
        for name, tree in trees.items():
            log(f"round {round_number + 1}: {name} ({tree})")
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--child", "--state", str(state), "--checkout",
                 str(checkout), "--index", str(index), "--calls-json", str(calls_json)],
                env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True, check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"the {name} child failed:\n{done.stderr[-3000:]}")
            results[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            load.append(os.getloadavg())
    report = {**facts, "calls": len(calls), "rounds": opts.rounds, "cpus": os.cpu_count(),
              "load_average_1m": [round(sample[0], 2) for sample in load], "results": results}
    opts.out.write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
