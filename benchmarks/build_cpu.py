"""Index build cpu beside ``json.load``'s, in one run (issue 31 item 4).

On a shared machine wall time moves with the neighbours, so this measures cpu: the user + system
time of a finished child interpreter and of every process it waited for (``os.wait4``; the
importer's text-scan and resolver workers and its ``git`` children are reaped, so they count).
Each round runs one index build (``import_memory.py``'s ``child-import``: ``ensure_index(...,
rebuild=True)``) and one plain ``json.load`` of the same graph.json, each in a fresh interpreter;
the ratio is of the medians, so both figures come from the same minutes of one run. The
1-minute load average is read before and after. Each build's index file is hashed: every round
must write the same bytes, and ``--expect-sha256`` checks them against an earlier build's of the
same state directory (another publish is another generation: its generation row differs), e.g.
one made by another tree with ``PYTHONPATH=TREE`` (its workers run from that tree too).

    python benchmarks/build_cpu.py --graphify-out /tmp/cm-graph-bench/sympy-1.13.3/graphify-out \\
        --repo /tmp/cm-graph-bench/sympy-1.13.3/repo --state /tmp/build-cpu-state [--rounds 5] \\
        [--json-out out.json] [--expect-sha256 HEX]

The state directory is made (the output published there) when it holds no generation yet.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHILD = str(HERE / "import_memory.py")
MIB = 1024 * 1024


def run_measured(args: list[str]) -> tuple[dict[str, Any], float, float]:
    """(the child's JSON answer, cpu seconds of it and of everything it reaped (``os.wait4``), wall seconds)."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, CHILD, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"child {args[0]} failed (exit {child.returncode})")
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_utime + usage.ru_stime, wall


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def ensure_published(repo: Path, state: Path, graphify_out: Path) -> None:
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.store import read_current
    from cm_graph.provider.publish import publish_provider_output

    workspace = Workspace.locate(repo, state)
    try:
        read_current(workspace)
        return
    except Exception:  # no generation yet: publish one
        pass
    publish_provider_output(workspace, graphify_out)


def index_sha256(repo: Path, state: Path) -> str:
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.store import read_current
    from cm_graph.index.seal import file_sha256

    workspace = Workspace.locate(repo, state)
    return file_sha256(workspace.index_path(read_current(workspace).id))


def measure(repo: Path, state: Path, graph: Path, rounds: int) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    build_cpu: list[float] = []
    build_wall: list[float] = []
    load_cpu: list[float] = []
    peaks: list[int] = []
    digests: set[str] = set()
    for attempt in range(rounds):
        built, cpu, wall = run_measured(["child-import", str(repo), str(state)])
        build_cpu.append(cpu)
        build_wall.append(wall)
        peaks.append(built["peak_rss_bytes"])
        digests.add(index_sha256(repo, state))
        _, cpu_load, _ = run_measured(["child-json", str(graph)])
        load_cpu.append(cpu_load)
        print(f"round {attempt + 1}/{rounds}: build {build_cpu[-1]:.2f} s cpu ({wall:.2f} s wall), "
              f"json.load {cpu_load:.2f} s cpu", file=sys.stderr, flush=True)
    return {
        "graph_json_bytes": graph.stat().st_size,
        "load_1min_before": load_before,
        "load_1min_after": os.getloadavg()[0],
        "nproc": os.cpu_count(),
        "build_cpu_s": spread(build_cpu),
        "build_wall_s": spread(build_wall),
        "json_load_cpu_s": spread(load_cpu),
        "build_over_json_load": statistics.median(build_cpu) / statistics.median(load_cpu),
        "peak_rss_mib": max(peaks) / MIB,
        "counts": built["counts"],
        "index_sha256": sorted(digests),
    }


def markdown(name: str, result: dict[str, Any]) -> str:
    b, j = result["build_cpu_s"], result["json_load_cpu_s"]
    return (
        "| graph | load before / after | build cpu s min / median / max (n) | `json.load` cpu s min / median / max "
        "| build / `json.load` (medians) | build peak RSS MiB |\n|---|---|---|---|--:|--:|\n"
        f"| {name} | {result['load_1min_before']:.2f} / {result['load_1min_after']:.2f} "
        f"| {b['min']:.2f} / {b['median']:.2f} / {b['max']:.2f} ({b['n']}) "
        f"| {j['min']:.3f} / {j['median']:.3f} / {j['max']:.3f} "
        f"| {result['build_over_json_load']:.2f}× | {result['peak_rss_mib']:.1f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--graphify-out", type=Path, required=True)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--name", default=None, help="the graph's name in the table")
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument("--expect-sha256", default=None, help="the index bytes an earlier build wrote")
    args = parser.parse_args(argv)
    ensure_published(args.repo, args.state, args.graphify_out)
    result = measure(args.repo, args.state, args.graphify_out / "graph.json", args.rounds)
    print(markdown(args.name or args.repo.parent.name, result))
    print(f"index sha256: {' '.join(result['index_sha256'])}")
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(result, indent=2))
    if len(result["index_sha256"]) != 1:
        print("the rounds wrote different index bytes", file=sys.stderr)
        return 1
    if args.expect_sha256 is not None and result["index_sha256"] != [args.expect_sha256]:
        print(f"index bytes differ from {args.expect_sha256}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
