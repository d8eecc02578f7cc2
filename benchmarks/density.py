"""How many callers the default budget carries (issue 27 item 1): "the default budget carries
every caller of a target with up to 50 callers".

    python benchmarks/density.py [--packages requests,rich,axios,sympy] [--per-bucket 60] [--max-chars 8000]

For each prepared corpus package (``corpus.prepare_real``, published as ``context.py`` does), the
targets are symbols (asked as ``path::label``), sampled by their graph callers (incoming
``calls``/``indirect_call`` edges: 1-5, 6-15, 16-30, 31-50), up to ``--per-bucket`` of each in node
order (every k-th). ``usage`` is composed in-process at ``--max-chars``, and each target is counted
in the bucket of its callers as the answer totals them: the graph's (``callers``) and the ones
the resolver adds (``resolved_callers``); one with more than 50 is past the item bound, paged by
design, and left out. A target is *whole* when both sections show every caller they hold. Only
``shown``/``total`` of the sections are read, which every wire version has, so the same script
measures an older checkout (``PYTHONPATH=<old checkout> python benchmarks/density.py``) for the
before/after figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import context  # noqa: E402
import corpus  # noqa: E402

BUCKETS = ((1, 5), (6, 15), (16, 30), (31, 50))
CALLERS = ("callers", "resolved_callers")  # a target's callers: the graph's and those the resolver adds


def _targets(connection: Any, per_bucket: int) -> dict[str, list[str]]:
    rows = connection.execute(
        "SELECT n.node, n.path || '::' || n.label, count(e.edge) FROM nodes AS n "
        "JOIN edges AS e ON e.target = n.node AND e.relation IN ('calls', 'indirect_call') "
        "WHERE n.kind = 'symbol' AND n.path <> '' AND n.callable_base IS NOT NULL "
        "GROUP BY n.node ORDER BY n.node").fetchall()
    chosen = {}
    for low, high in BUCKETS:
        labels = [target for _, target, callers in rows if low <= callers <= high]
        step = max(1, len(labels) // per_bucket)
        chosen[f"{low}-{high}"] = labels[::step][:per_bucket]
    return chosen


def measure(workspace: Any, per_bucket: int, max_chars: int) -> dict[str, Any]:
    from cm_graph.context.compose import compose
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for

    generation = require_current(workspace)
    connection = open_index_for(generation)
    graph = {"generation": generation.id, "commit": generation.manifest.commit, "tree": generation.manifest.tree,
             "provider": "graphifyy==0.9.58", "built_at": generation.manifest.built_at}
    fresh = {"state": "current", "head": generation.manifest.commit}
    found: dict[str, Any] = {}
    outcomes: dict[str, list[float]] = {f"{low}-{high}": [] for low, high in BUCKETS}
    try:
        asked = [label for labels in _targets(connection, per_bucket).values() for label in labels]
        for label in asked:
            document = compose(connection, "usage", label, graph, fresh, max_chars)
            sections = document.get("sections") or {}
            total = sum((sections.get(name) or {}).get("total", 0) for name in CALLERS)
            shown = sum((sections.get(name) or {}).get("shown", 0) for name in CALLERS)
            bucket = next((f"{low}-{high}" for low, high in BUCKETS if low <= total <= high), None)
            if bucket is not None:  # more than 50 callers: past the item bound, paged by design
                outcomes[bucket].append(shown / total)
        for bucket, ratios in outcomes.items():
            whole = sum(1 for ratio in ratios if ratio == 1)
            found[bucket] = {"targets": len(ratios), "whole": whole,
                             "whole_share": round(whole / len(ratios), 3) if ratios else None,
                             "mean_shown_share": round(statistics.fmean(ratios), 3) if ratios else None,
                             "min_shown_share": round(min(ratios), 3) if ratios else None}
    finally:
        connection.close()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", default="requests,rich,axios,sympy")
    parser.add_argument("--per-bucket", type=int, default=60)
    parser.add_argument("--max-chars", type=int, default=8000)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "context")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench")
    opts = parser.parse_args(argv)
    wanted = set(opts.packages.split(","))
    results = {}
    for package in corpus.REAL_PACKAGES:
        if package.name in wanted:
            workspace = context.publish(corpus.prepare_real(package, opts.cache, context.log), opts.out)
            results[package.key] = measure(workspace, opts.per_bucket, opts.max_chars)
            context.log(f"{package.key}: {json.dumps(results[package.key])}")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
