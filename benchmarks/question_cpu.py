"""Whole-process cpu of the question commands beside ``cm-graph query`` (issue 31 item 3).

Each question command is an agent's whole process: interpreter start, imports, argument parsing,
the answer, exit. On a shared machine wall time moves with the neighbours, so this measures cpu:
the user + system time of the finished child and of every child it waited for (``os.wait4``),
read by the kernel when the process ends. The commands run in rounds, one of each per round in
the table's order, so every ratio compares figures taken in the same minutes of one run; each
ratio is of the medians. The 1-minute load average is read before and after.

    python benchmarks/question_cpu.py --repo R --state S --query-target T [--context-target T] \\
        [--symbols-path P] [--rounds 30] [--modules] [--json-out out.json]
    python benchmarks/question_cpu.py --markdown out.json      # the table again

R must have a built, current graph in S (``cm-graph build --state-dir S --repo-path R``); an
authorization file for ``query`` is minted first (``cm-graph auth init``). ``--modules`` also runs
each command once under ``-X importtime`` and lists whether typer, rich, the fleet package or
``re`` were imported. ``run.py`` runs the same rounds (``--process-repeat`` of them) on every
graph it measures, beside its whole-process ``query``.
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

WATCHED = ("typer", "click", "rich", "cm_graph.fleet", "re", "hashlib", "shutil", "urllib")


def bin_path(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else name


def commands(cm_graph: str, repo: Path, state: Path, auth: Path, packet: Path, query_target: str,
             context_target: str | None = None, symbols_path: str | None = None,
             tables: bool = True) -> dict[str, list[str]]:
    """The commands timed, by name: ``query`` (packet written) and the question commands beside it
    on the same graph and target (``symbols`` when a file is named; ``tables``: also a person's
    table of ``status`` and ``ask``, which load rich)."""
    where = ["--state-dir", str(state), "--repo-path", str(repo)]
    table = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "query": [cm_graph, "query", "--question", "impact", "--target", query_target,
                  "--authorization", str(auth), "--packet-out", str(packet), "--json", *where],
        "ask --json": [cm_graph, "ask", "impact", query_target, "--json", *where],
        "context usage --json": [cm_graph, "context", "usage", context_target or query_target, "--json", *where],
        "symbols --json": [cm_graph, "symbols", symbols_path or "", "--json", *where],
        "status --json": [cm_graph, "status", "--json", *where],
        "status": [cm_graph, "status", *where],
        "ask (table)": [cm_graph, "ask", "impact", query_target, *where],
    }
    if symbols_path is None:
        del table["symbols --json"]
    if not tables:
        del table["status"], table["ask (table)"]
    return table


def run_once(command: list[str]) -> tuple[float, float, int]:
    """(cpu ms, wall ms, exit code) of one whole process and the children it waited for."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    child.returncode = os.waitstatus_to_exitcode(status)
    return (usage.ru_utime + usage.ru_stime) * 1000, wall, child.returncode


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def imported(command: list[str]) -> dict[str, bool]:
    """Which of ``WATCHED`` the command imported (``-X importtime``'s tree, read from stderr)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command[1:]] if command[0] == sys.executable
                          else [sys.executable, "-X", "importtime", command[0], *command[1:]],
                          capture_output=True, check=False)
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode(errors="replace").splitlines()
             if line.startswith("import time:")}
    return {name: any(n == name or n.startswith(name + ".") for n in names) for name in WATCHED}


def mint_authorization(cm_graph: str, repo: Path, state: Path, out: Path) -> Path:
    """An authorization file for ``query`` on ``repo``'s current generation (valid for an hour)."""
    minted = subprocess.run(
        [cm_graph, "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
         "--recipient", "claude:builder", "--max-documents", "16", "--state-dir", str(state),
         "--repo-path", str(repo)], capture_output=True, check=True)
    out.write_bytes(minted.stdout)
    return out


def rounds(table: dict[str, list[str]], count: int, modules: bool = False) -> dict[str, Any]:
    """Each command run once to warm up, then ``count`` rounds of one run each, in order: cpu and
    wall spreads, the exit code, the ratio of each cpu median to ``query``'s, the 1-minute load
    before and after (and with ``modules``, the watched imports of each)."""
    codes = {name: run_once(command)[2] for name, command in table.items()}
    load_before = os.getloadavg()[0]
    cpu: dict[str, list[float]] = {name: [] for name in table}
    wall: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(count):
        for name, command in table.items():
            used, took, _ = run_once(command)
            cpu[name].append(used)
            wall[name].append(took)
    load_after = os.getloadavg()[0]
    query = statistics.median(cpu["query"])
    rows: dict[str, Any] = {name: {"cpu_ms": spread(cpu[name]), "wall_ms": spread(wall[name]), "exit": codes[name],
                                   "cpu_over_query": statistics.median(cpu[name]) / query} for name in table}
    if modules:
        for name, command in table.items():
            rows[name]["imported"] = imported(command)
    return {"rounds": count, "load_1min_before": load_before, "load_1min_after": load_after,
            "nproc": os.cpu_count(), "rows": rows}


def measure(opts: argparse.Namespace) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="cm-graph-question-cpu-"))
    cm_graph = str(opts.cm_graph) if opts.cm_graph is not None else bin_path("cm-graph")
    auth = mint_authorization(cm_graph, opts.repo, opts.state, scratch / "auth.json")
    table = commands(cm_graph, opts.repo, opts.state, auth, scratch / "packet.json", opts.query_target,
                     opts.context_target, opts.symbols_path)
    return {"repo": str(opts.repo), "cm_graph": cm_graph, **rounds(table, opts.rounds, opts.modules)}


def markdown(result: dict[str, Any]) -> str:
    modules = "imported" in next(iter(result["rows"].values()))
    lines = [f"{result['rounds']} rounds; 1-minute load {result['load_1min_before']:.2f} before, "
             f"{result['load_1min_after']:.2f} after ({result['nproc']} cores).", "",
             "| command | exit | cpu ms min / median / max (n) | × `query` cpu (medians) | wall ms median |"
             + (" typer | rich | fleet | re |" if modules else ""),
             "|---|--:|--:|--:|--:|" + ("---|---|---|---|" if modules else "")]
    for name, row in result["rows"].items():
        c = row["cpu_ms"]
        line = (f"| `{name}` | {row['exit']} | {c['min']:.1f} / {c['median']:.1f} / {c['max']:.1f} ({c['n']}) "
                f"| {row['cpu_over_query']:.2f}× | {row['wall_ms']['median']:.1f} |")
        if "imported" in row:
            seen = row["imported"]
            line += "".join(f" {'yes' if seen[key] else 'no'} |" for key in ("typer", "rich", "cm_graph.fleet", "re"))
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--state", type=Path)
    parser.add_argument("--query-target", help="impact's target for query and ask (a label as the graph has it)")
    parser.add_argument("--context-target", help="context usage's target (default: --query-target)")
    parser.add_argument("--symbols-path", help="a file for symbols (default: symbols is not timed)")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--cm-graph", type=Path, help="the console script to time (default: this venv's)")
    parser.add_argument("--modules", action="store_true", help="also list the watched imports of each command")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--markdown", type=Path, help="render an earlier --json-out as a table")
    opts = parser.parse_args(argv)
    if opts.markdown is not None:
        sys.stdout.write(markdown(json.loads(opts.markdown.read_text())))
        return 0
    result = measure(opts)
    if opts.json_out is not None:
        opts.json_out.write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
