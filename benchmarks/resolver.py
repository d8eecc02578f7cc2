"""How good the resolved layer is (issue 28): callers against a dynamic-trace truth, and its cost.

    python benchmarks/resolver.py                          # the four held-out subjects
    python benchmarks/resolver.py --engines ast,jedi --subjects click,jinja2   # the engine comparison
    python benchmarks/resolver.py --cost                   # sympy: resolver vs provider, index bytes

Subjects and truth are ``resolver_truth.py``'s (each subject's own test suite, traced without a
network). From the trace only the edges a static reader could see are kept: the callee is a
function or method (not a class body, module, lambda or comprehension), and its name — for a
constructor, ``__init__``/``__new__``, its class's name — is written in the calling span. An edge
is a (caller definition, callee definition) pair, the caller being the code object the call ran
in (a lambda's or comprehension's lexical parent); a call made while a definition's decorator
lines run is credited to that definition, as the index's ranges include decorators.

Figures, each for test callers (a caller in a test file: under ``tests``/``test``/``testing``,
``test_*.py``, ``*_test.py``, ``conftest.py``) and non-test callers apart:

- **recall**: true (caller, callee) pairs an engine has, as a bound reference (call, reference or
  decorate) of that callee enclosed by that caller (``graph``: a provider edge between their
  nodes; ``graph+resolved``: either);
- **precision**: of an engine's bound call references at sites the trace ran a same-named callee
  from, those whose callee the trace ran from there (sites never run are not judged);
- **bound accuracy**: of true edges with a same-named bound reference in their span, those bound
  to the callee that ran; **caller accuracy**: of true edges an engine binds at their site, those
  it credits to the right caller;
- ``unbound``: true pairs left as an unbound reference of the callee's name in the right caller
  (the "may be one of N" a later stage can offer).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import resolver_truth as truth  # noqa: E402
from resolver_index import Index, Ref  # noqa: E402

CACHE = Path("/tmp/cm-graph-bench")
TEST_DIRS = {"tests", "test", "testing"}
CALL_ROLES = ("call",)
PAIR_ROLES = ("call", "reference", "decorate")
TARGETS = {"non_test_recall": 0.95, "test_recall": 0.90, "precision": 0.97, "bound_accuracy": 0.98,
           "caller_accuracy": 0.98}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    base = parts[-1]
    return (bool(TEST_DIRS.intersection(parts[:-1])) or base.startswith("test_") or base.endswith("_test.py")
            or base == "conftest.py")


@dataclass
class Edge:
    caller: int
    callee: int
    path: str
    start: int
    end: int
    test: bool


def true_edges(index: Index, repo: Path, traced: list[list[Any]]) -> tuple[list[Edge], dict[tuple[str, int], set[int]],
                                                                             dict[str, int]]:
    """The visible true edges; every traced callee by (path, line) for precision; tallies."""
    lines: dict[str, list[str]] = {}

    def text(path: str, start: int, end: int) -> str:
        if path not in lines:
            try:
                lines[path] = (repo / path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines[path] = []
        return "\n".join(lines[path][start - 1:end])

    ran: dict[tuple[str, int], set[int]] = defaultdict(set)
    edges: list[Edge] = []
    tally = {"traced": len(traced), "unmapped": 0, "invisible": 0, "not_callable": 0}
    seen: set[tuple[int, int, str, int]] = set()
    for caller_path, caller_q, caller_first, start, end, callee_path, callee_q, callee_first, callee_name in traced:
        if callee_name.startswith("<"):
            tally["not_callable"] += 1
            continue
        callee = index.code(callee_path, callee_q, callee_first)
        caller = index.code(caller_path, caller_q, caller_first)
        if callee is None or caller is None:
            tally["unmapped"] += 1
            continue
        if callee.kind not in ("function", "method"):
            tally["not_callable"] += 1
            continue
        for line in range(start, end + 1):
            ran[(caller_path, line)].add(callee.number)
        span = text(caller_path, start, end)
        names = [callee.name]
        if callee.name in ("__init__", "__new__") and callee.parent is not None:
            names.append(index.definitions[callee.parent].name)
        if not any(re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", span) for name in names):
            tally["invisible"] += 1
            continue
        decorated = index.decorated_at(caller_path, start, caller.number)
        if decorated is not None:
            caller = index.definitions[decorated]
        key = (caller.number, callee.number, caller_path, start)
        if key not in seen:
            seen.add(key)
            edges.append(Edge(caller.number, callee.number, caller_path, start, end, is_test_path(caller_path)))
    tally["visible"] = len(edges)
    return edges, ran, tally


def score(index: Index, edges: list[Edge], ran: dict[tuple[str, int], set[int]], refs: list[Ref],
          also: list[Ref] | None = None) -> dict[str, Any]:
    """The figures of one engine's references (``also``: a second engine's, united for recall),
    exactly and with dispatch: a reference bound to a method the callee overrides counts too."""
    exact = _score(index, edges, ran, refs, also, {})
    dispatch = _score(index, edges, ran, refs, also, index.overridden())
    for split in ("non_test", "test"):
        exact[split]["recall_dispatch"] = dispatch[split]["recall"]
        exact[split]["bound_accuracy_dispatch"] = dispatch[split]["bound_accuracy"]
    exact["precision_dispatch"] = dispatch["precision"]
    return exact


def _score(index: Index, edges: list[Edge], ran: dict[tuple[str, int], set[int]], refs: list[Ref],
           also: list[Ref] | None, bases: dict[int, set[int]]) -> dict[str, Any]:
    def binds(bound: int | None, callee: int) -> bool:
        return bound == callee or bound in bases.get(callee, ())

    pairs = {(r[5], r[3]) for r in refs if r[3] is not None and r[2] in PAIR_ROLES}
    if also is not None:
        pairs |= {(r[5], r[3]) for r in also if r[3] is not None and r[2] in PAIR_ROLES}
    unbound = {(r[5], r[4]) for r in refs if r[3] is None}
    by_site: dict[tuple[str, int], list[Ref]] = defaultdict(list)
    for ref in refs:
        if ref[3] is not None and ref[2] in PAIR_ROLES:
            by_site[(ref[0], ref[1])].append(ref)
    result: dict[str, Any] = {}
    for split, test in (("non_test", False), ("test", True)):
        chosen = [e for e in edges if e.test == test]
        true_pairs = {(e.caller, e.callee) for e in chosen}
        found = {(c, d) for c, d in true_pairs if (c, d) in pairs or any((c, b) in pairs for b in bases.get(d, ()))}
        maybe = {(c, d) for c, d in true_pairs - found if (c, index.definitions[d].name) in unbound}
        bound_n = bound_ok = caller_n = caller_ok = 0
        for edge in chosen:
            callee = index.definitions[edge.callee]
            at = [r for line in range(edge.start, edge.end + 1) for r in by_site.get((edge.path, line), ())
                  if index.definitions[r[3]].name == callee.name]  # type: ignore[index]
            if at:
                bound_n += 1
                bound_ok += any(binds(r[3], edge.callee) for r in at)
            hits = [r for r in at if binds(r[3], edge.callee)]
            if hits:
                caller_n += 1
                caller_ok += any(r[5] == edge.caller for r in hits)
        result[split] = {
            "pairs": len(true_pairs), "recall": _ratio(len(found), len(true_pairs)),
            "unbound_candidates": len(maybe), "bound_accuracy": _ratio(bound_ok, bound_n),
            "caller_accuracy": _ratio(caller_ok, caller_n), "edges": len(chosen),
        }
    judged = right = 0
    for ref in refs:
        if ref[3] is None or ref[2] not in CALL_ROLES:
            continue
        callees = ran.get((ref[0], ref[1]))
        if not callees:
            continue
        name = index.definitions[ref[3]].name
        if not any(index.definitions[c].name == name for c in callees):
            continue
        judged += 1
        right += any(binds(ref[3], callee) for callee in callees)
    result["precision"] = _ratio(right, judged)
    result["judged_sites"] = judged
    return result


def misses(index: Index, edges: list[Edge], refs: list[Ref], repo: Path, limit: int) -> list[str]:
    """The first ``limit`` true pairs an engine lacks (even with dispatch), each with its call
    span's first line."""
    pairs = {(r[5], r[3]) for r in refs if r[3] is not None and r[2] in PAIR_ROLES}
    bases = index.overridden()
    out: list[str] = []
    shown: set[tuple[int, int]] = set()
    for edge in edges:
        if (edge.caller, edge.callee) in pairs or (edge.caller, edge.callee) in shown or any(
                (edge.caller, base) in pairs for base in bases.get(edge.callee, ())):
            continue
        shown.add((edge.caller, edge.callee))
        line = (repo / edge.path).read_text(errors="replace").splitlines()[edge.start - 1].strip()
        out.append(f"{edge.path}:{edge.start} {index.definitions[edge.caller].qualname} -> "
                   f"{index.definitions[edge.callee].qualname} | {line[:110]}")
        if len(out) >= limit:
            break
    return out


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def ast_cost(repo: Path, paths: Iterable[str]) -> dict[str, float]:
    """The ast resolver alone over ``paths``, in a fresh process: wall seconds and peak RSS."""
    child = (
        "import json, resource, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from cm_graph.index.pyresolve import resolve_python\n"
        "repo, paths = sys.argv[1], json.loads(sys.argv[2])\n"
        "blobs = [(p, open(f'{repo}/{p}', 'rb').read()) for p in paths]\n"
        "started = time.perf_counter()\n"
        "layer = resolve_python(blobs)\n"
        "print(json.dumps({'seconds': round(time.perf_counter() - started, 2),"
        " 'peak_rss_mib': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),"
        " 'references': len(layer.references)}))\n"
    )
    done = subprocess.run([sys.executable, "-c", child, str(repo), json.dumps(sorted(paths))],
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def index_of(meta: dict[str, Any], *, rebuild: bool = False) -> Path:
    from cm_graph.generation.layout import Workspace
    from cm_graph.index.ensure import ensure_index

    return ensure_index(Workspace.locate(Path(meta["repo"]), Path(meta["state"])), rebuild=rebuild).path


def derived_twice(meta: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The subject's index derived afresh twice by this checkout's code (a cached index may be an
    older resolver's): its path, whether the two derivations are byte-identical, and its
    resolved counts with the two match rates."""
    import hashlib

    digests = []
    for _ in range(2):
        path = index_of(meta, rebuild=True)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    import apsw

    connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    counts = dict(connection.execute("SELECT name, value FROM counts WHERE name LIKE 'resolved%'").fetchall())
    connection.close()
    counts["definitions_matched"] = _ratio(counts["resolved_definitions_on_nodes"], counts["resolved_definitions"])
    counts["nodes_matched"] = _ratio(counts["resolved_nodes_with_definitions"], counts["resolved_nodes"])
    return path, {"byte_identical_rederivation": digests[0] == digests[1], "index_bytes": path.stat().st_size,
                  **counts}


def measure(subject: truth.Subject, engines: list[str], cache: Path, show_misses: int = 0) -> dict[str, Any]:
    meta = truth.prepare(subject, cache, log)
    traced = truth.trace(subject, cache, log)
    repo = Path(meta["repo"])
    path, counts = derived_twice(meta)
    index = Index(path)
    edges, ran, tally = true_edges(index, repo, traced)
    result: dict[str, Any] = {"subject": f"{subject.name} {subject.version}", "truth": tally, "resolved": counts}
    result["graph"] = score(index, edges, ran, index.graph)
    if "ast" in engines:
        result["ast"] = score(index, edges, ran, index.references)
        result["graph+ast"] = score(index, edges, ran, index.references, also=index.graph)
        result["ast"]["cost"] = ast_cost(repo, index.modules)
        if show_misses:
            result["ast"]["misses"] = misses(index, [e for e in edges if not e.test], index.references, repo,
                                             show_misses)
            result["ast"]["test_misses"] = misses(index, [e for e in edges if e.test], index.references, repo,
                                                  show_misses)
    if "jedi" in engines:  # in a fresh process, so its time and peak memory are its own
        done = subprocess.run([sys.executable, str(HERE / "resolver_engines.py"), "jedi", str(path),
                               str(repo)],
                              capture_output=True, text=True, check=True)
        answer = json.loads(done.stdout)
        result["jedi"] = score(index, edges, ran, [tuple(ref) for ref in answer["refs"]])  # type: ignore[misc]
        result["jedi"]["cost"] = answer["cost"]
    if "scip" in engines:
        import resolver_engines

        refs, spent = resolver_engines.scip_references(index, repo, cache / "scip")
        result["scip"] = score(index, edges, ran, refs)
        result["scip"]["cost"] = spent
    return result


BUILD_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
root, mode, repo, state, out = sys.argv[1:6]
sys.path.insert(0, root)
from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import require_current
from cm_graph.index import importer, resolved_index
from cm_graph.index.resolved import ResolvedLayer
if mode == "graph-only":  # the same importer with the resolved layer taken out
    resolved_index.WORKER_FROM_GRAPH_BYTES = 1 << 62
    resolved_index.Resolution.layer = lambda self, census, checkout: ResolvedLayer()
generation = require_current(Workspace.locate(Path(repo), Path(state)))
started = time.perf_counter()
report = importer.build_index(generation, Path(out), seal=False)
print(json.dumps({"seconds": round(time.perf_counter() - started, 2), "bytes": report.bytes,
                  "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  "children_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
                  "counts": {k: v for k, v in report.counts.items() if k.startswith("resolved")}}))
"""


def cost(cache: Path, spec: str, runs: int) -> dict[str, Any]:
    """The resolver against the provider on ``spec`` (sympy): the provider's own extraction (its
    time from the corpus run), the resolver alone, and the index build with and without the
    resolved layer (fresh processes, alternating, medians), with the index bytes."""
    import statistics

    import import_memory

    meta = import_memory.prepare_corpus(spec, cache, log)
    repo, out = Path(meta["repo"]), Path(meta["graphify_out"])
    state = cache / "resolver" / f"{meta['package']}-{meta['version']}-state"
    if not state.is_dir():
        subprocess.run([*truth.cm_graph_command(), "build", "--from-graph", str(out), "--repo-path", str(repo),
                        "--state-dir", str(state), "--json"], check=True, capture_output=True)
    index = index_of({"repo": str(repo), "state": str(state)})
    paths = Index(index).modules
    alone = [ast_cost(repo, paths) for _ in range(runs)]
    builds: dict[str, list[dict[str, Any]]] = {"graph-only": [], "graph+resolved": []}
    for number in range(runs):
        for mode in builds:
            target = cache / "resolver" / f"cost-{mode}-{number}.sqlite"
            target.unlink(missing_ok=True)
            done = subprocess.run([sys.executable, "-c", BUILD_CHILD, str(ROOT), mode, str(repo), str(state),
                                   str(target)], capture_output=True, text=True, check=True)
            builds[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
            target.unlink(missing_ok=True)

    def median(rows: list[dict[str, Any]], key: str) -> float:
        return float(statistics.median(row[key] for row in rows))

    result: dict[str, Any] = {
        "subject": spec, "python_files": len(paths), "provider_seconds": round(meta["provider_seconds"], 1),
        "resolver_alone": {"seconds": median(alone, "seconds"), "peak_rss_mib": median(alone, "peak_rss_mib"),
                           "references": alone[0]["references"]},
        "runs": runs,
    }
    for mode, rows in builds.items():
        result[mode] = {"seconds": median(rows, "seconds"), "peak_rss_mib": median(rows, "peak_rss_mib"),
                        "children_peak_rss_mib": median(rows, "children_peak_rss_mib"), "bytes": rows[0]["bytes"]}
    result["graph+resolved"]["counts"] = builds["graph+resolved"][0]["counts"]
    result["resolver_over_provider"] = round(result["resolver_alone"]["seconds"] / meta["provider_seconds"], 3)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subjects", default=",".join(s.name for s in truth.HELD_OUT))
    parser.add_argument("--engines", default="ast")
    parser.add_argument("--cache-dir", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--misses", type=int, default=0, help="list this many true pairs the ast engine lacks")
    parser.add_argument("--cost", default=None, metavar="SPEC", help="measure cost on this PyPI release instead")
    parser.add_argument("--runs", type=int, default=3, help="runs per build mode for --cost (medians)")
    args = parser.parse_args()
    if args.cost:
        text = json.dumps(cost(args.cache_dir, args.cost, args.runs), indent=1)
        if args.out is not None:
            args.out.write_text(text)
        print(text)
        return
    known = {s.name: s for s in (*truth.HELD_OUT, *truth.ENGINE_SUBJECTS)}
    engines = args.engines.split(",")
    results = [measure(known[name], engines, args.cache_dir, args.misses) for name in args.subjects.split(",")]
    text = json.dumps({"targets": TARGETS, "results": results}, indent=1)
    if args.out is not None:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
