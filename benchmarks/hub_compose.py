"""``compose``'s cpu on hubs, and the answers it gives, so two source trees can be compared (issue 31).

    python benchmarks/hub_compose.py --repo R --state S --out after.json [--repeats 5] [--sample 100]
    PYTHONPATH=/tmp/cm-graph-main python benchmarks/hub_compose.py --repo R --state S --out before.json
    python benchmarks/hub_compose.py --compare before.json after.json

``R`` is a checkout and ``S`` a state root holding its built generation (``cm-graph build
--state-dir S --repo-path R --from-graph …/graphify-out``: sympy's provider output is cached by
benchmarks/context.py under /tmp/cm-graph-bench). The index is opened once; the targets are
(a) the ``--hubs`` definitions with the most incoming ``calls`` edges and (b) ``--sample``
every-k-th callable definitions in node order (as benchmarks/context.py picks them), each spelt
so it resolves to that one definition. Every intent of every target is composed once to warm the
page cache, then ``--repeats`` times, each call timed in cpu (``time.process_time`` deltas: the
machine is shared, so wall time would measure the neighbours). The file written holds the
figures (min / median / p95 / max per group and intent, and per hub) and every composed
document, JSON with sorted keys, so ``--compare`` can say whether the answers are byte-identical
and print the before/after table. Which tree runs is whichever ``cm_graph`` Python imports
(PYTHONPATH first): the file records its path.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

INTENTS = ("how", "usage", "impact", "tests")
MAX_CHARS = 8000
GRAPH_FIELDS = {"provider": "graphifyy==0.9.58"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def spread(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values), 3), "median": round(statistics.median(values), 3),
            "p95": round(percentile(values, 0.95), 3), "max": round(max(values), 3), "n": len(values)}


def spelling(connection: Any, node: int, label: str, path: str, line: int | None) -> str | None:
    """The label when it resolves to ``node`` alone, else the shortest qualified spelling that does."""
    from cm_graph.context.resolve import followable, resolve

    found = resolve(connection, label)
    if found.status == "resolved" and found.anchors == (node,):
        return label
    return followable(connection, node, path, label, line)


def targets(connection: Any, hubs: int, sample: int) -> tuple[list[str], list[str]]:
    """(the ``hubs`` most-called definitions, ``sample`` every-k-th callable definitions), spelt to resolve."""
    rows = connection.execute(
        "SELECT n.node, n.label, n.path, n.line, (SELECT count(*) FROM edges AS e WHERE e.target = n.node "
        "AND e.relation = 'calls') AS callers FROM nodes AS n "
        "WHERE n.kind = 'symbol' AND n.path <> '' AND n.callable_base IS NOT NULL ORDER BY n.node"
    ).fetchall()
    top: list[str] = []
    for node, label, path, line, _ in sorted(rows, key=lambda r: (-r[4], r[0])):
        if len(top) == hubs:
            break
        if (name := spelling(connection, node, label, path, line)) is not None:
            top.append(name)
    step = max(1, len(rows) // sample)
    every: list[str] = []
    for node, label, path, line, _ in rows[::step]:
        if len(every) == sample:
            break
        if (name := spelling(connection, node, label, path, line)) is not None and name not in top:
            every.append(name)
    return top, every


def measure(repo: Path, state: Path, hubs: int, sample: int, repeats: int) -> dict[str, Any]:
    import cm_graph
    from cm_graph.base.jsonio import dumps_wire
    from cm_graph.context.compose import compose
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for

    generation = require_current(Workspace.locate(repo, state))
    connection = open_index_for(generation)
    graph = {"generation": generation.id, "commit": generation.manifest.commit, "tree": generation.manifest.tree,
             "built_at": generation.manifest.built_at, **GRAPH_FIELDS}
    fresh = {"state": "current", "head": generation.manifest.commit}
    top, every = targets(connection, hubs, sample)
    documents: dict[str, Any] = {}
    times: dict[str, dict[str, list[float]]] = {"hubs": {i: [] for i in INTENTS}, "sample": {i: [] for i in INTENTS}}
    per_hub: dict[str, dict[str, list[float]]] = {}
    started = time.perf_counter()
    for group, names in (("hubs", top), ("sample", every)):
        for name in names:
            for intent in INTENTS:
                document = compose(connection, intent, name, graph, fresh, MAX_CHARS)  # warm
                assert len(dumps_wire(document)) <= MAX_CHARS, (intent, name)
                documents[f"{intent} {name}"] = json.loads(json.dumps(document, sort_keys=True))
                deltas = []
                for _ in range(repeats):
                    before = time.process_time()
                    compose(connection, intent, name, graph, fresh, MAX_CHARS)
                    deltas.append((time.process_time() - before) * 1000)
                times[group][intent] += deltas
                if group == "hubs":
                    per_hub.setdefault(name, {})[intent] = deltas
    connection.close()
    return {
        "tree": str(Path(cm_graph.__file__).resolve().parent.parent),
        "generation": generation.id, "repeats": repeats, "max_chars": MAX_CHARS,
        "load_average": os.getloadavg(), "seconds": round(time.perf_counter() - started, 1),
        "hubs": top, "sample": every,
        "cpu_ms": {group: {intent: spread(values) for intent, values in by.items()} | {
            "all": spread([v for values in by.values() for v in values])} for group, by in times.items()},
        "per_hub_median_ms": {name: {intent: round(statistics.median(v), 3) for intent, v in by.items()}
                              for name, by in per_hub.items()},
        "documents": documents,
    }


def compare(before_path: Path, after_path: Path) -> int:
    before, after = json.loads(before_path.read_text()), json.loads(after_path.read_text())
    keys = sorted(set(before["documents"]) | set(after["documents"]))
    differ = [k for k in keys if json.dumps(before["documents"].get(k), sort_keys=True)
              != json.dumps(after["documents"].get(k), sort_keys=True)]
    print(f"before: {before['tree']}  load {before['load_average']}\nafter:  {after['tree']}  load "
          f"{after['load_average']}")
    print(f"documents compared: {len(keys)}; byte-identical (JSON, sorted keys): {len(keys) - len(differ)}; "
          f"differ: {len(differ)}")
    for key in differ[:20]:
        print(f"  differs: {key}")
    print("\n| group | intent | before min / median / p95 / max | after min / median / p95 / max | median × | "
          "p95 × | max × |\n|---|---|---|---|--:|--:|--:|")
    for group in ("hubs", "sample"):
        for intent in (*INTENTS, "all"):
            b, a = before["cpu_ms"][group][intent], after["cpu_ms"][group][intent]
            cells = [" / ".join(f"{s[k]:.2f}" for k in ("min", "median", "p95", "max")) for s in (b, a)]
            ratios = [f"{b[k] / a[k]:.1f}×" if a[k] else "-" for k in ("median", "p95", "max")]
            print(f"| {group} (n={a['n']}) | {intent} | {cells[0]} | {cells[1]} | {' | '.join(ratios)} |")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--state", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--hubs", type=int, default=20)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not (args.repo and args.state and args.out):
        parser.error("--repo, --state and --out are needed to measure")
    result = measure(args.repo, args.state, args.hubs, args.sample, args.repeats)
    args.out.write_text(json.dumps(result, sort_keys=True, indent=1))
    log(f"{result['tree']}: {len(result['documents'])} documents in {result['seconds']} s -> {args.out}")
    for group in ("hubs", "sample"):
        for intent, s in result["cpu_ms"][group].items():
            log(f"  {group:6} {intent:6} {s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
