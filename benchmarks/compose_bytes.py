"""Every answer ``compose`` gives on a graph's hubs and sampled definitions, byte for byte, so two
source trees can be shown to answer alike (issue 31: a faster compose must not change one byte).

    PYTHONPATH=/tmp/main-tree python benchmarks/compose_bytes.py --repo R --state S --out before.json
    python benchmarks/compose_bytes.py --repo R --state S --out after.json
    python benchmarks/compose_bytes.py --compare before.json after.json

The targets are ``hub_compose.targets`` (the ``--hubs`` most-called definitions and ``--sample``
every-k-th callable ones); each is composed for every intent at every ``--budgets`` character
budget, and at the smallest budget with a two-item bound too (``--max-items 2``), and
its answer kept as the wire's bytes (``dumps_wire``: what ``--json``, MCP and REST send). Which
tree runs is whichever ``cm_graph`` Python imports (PYTHONPATH first): the file records its path.
``--compare`` exits 1 when any answer differs, naming the first ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hub_compose  # noqa: E402  (beside this file)

BUDGETS = (5000, 8000, 20000, 100000)


def answers(repo: Path, state: Path, hubs: int, sample: int, budgets: tuple[int, ...]) -> dict[str, Any]:
    import cm_graph
    from cm_graph.base.errors import InvalidInput
    from cm_graph.base.jsonio import dumps_wire
    from cm_graph.context.compose import compose
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for

    generation = require_current(Workspace.locate(repo, state))
    connection = open_index_for(generation)
    graph = {"generation": generation.id, "commit": generation.manifest.commit, "tree": generation.manifest.tree,
             "built_at": generation.manifest.built_at, **hub_compose.GRAPH_FIELDS}
    fresh = {"state": "current", "head": generation.manifest.commit}
    top, every = hub_compose.targets(connection, hubs, sample)
    documents: dict[str, str] = {}
    started = time.process_time()
    for name in (*top, *every):
        for intent in hub_compose.INTENTS:
            for budget, items in [(budget, 50) for budget in budgets] + [(min(budgets), 2)]:
                try:
                    text = dumps_wire(compose(connection, intent, name, graph, fresh, budget, max_items=items))
                except InvalidInput as refused:  # a refusal is an answer too: its reason and sentence
                    text = f"refused {refused.reason}: {refused}"
                documents[f"{intent} {name} {budget} {items}"] = text
    connection.close()
    return {"tree": str(Path(cm_graph.__file__).resolve().parent.parent), "generation": generation.id,
            "hubs": top, "sample": every, "cpu_seconds": round(time.process_time() - started, 1),
            "digest": hashlib.sha256("\n".join(f"{k}\n{v}" for k, v in sorted(documents.items())).encode()).hexdigest(),
            "documents": documents}


def compare(before_path: Path, after_path: Path) -> int:
    before, after = json.loads(before_path.read_text()), json.loads(after_path.read_text())
    keys = sorted(set(before["documents"]) | set(after["documents"]))
    differ = [key for key in keys if before["documents"].get(key) != after["documents"].get(key)]
    print(f"before: {before['tree']} ({before['cpu_seconds']} s cpu)\nafter:  {after['tree']} "
          f"({after['cpu_seconds']} s cpu)")
    print(f"answers compared: {len(keys)} ({len(after['hubs'])} hubs, {len(after['sample'])} sampled, "
          f"every intent and budget); byte-identical: {len(keys) - len(differ)}; differ: {len(differ)}")
    for key in differ[:20]:
        print(f"  differs: {key}")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--state", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--hubs", type=int, default=20)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not (args.repo and args.state and args.out):
        parser.error("--repo, --state and --out are needed to compose")
    result = answers(args.repo, args.state, args.hubs, args.sample, tuple(args.budgets))
    args.out.write_text(json.dumps(result, sort_keys=True, indent=1))
    print(f"{result['tree']}: {len(result['documents'])} answers in {result['cpu_seconds']} s cpu, digest "
          f"{result['digest'][:16]} -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
