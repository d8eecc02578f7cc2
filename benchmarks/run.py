"""Benchmarks against real graphs and the provider's own query commands (issue 8).

    python benchmarks/run.py [--quick] [--out DIR]

For every graph of the corpus (real releases from PyPI and npm, extracted with the pinned provider;
synthetic graphs at the reader's limits and adversarial shapes), in one run:

1. publish the provider output as a generation of its one-commit repository (not measured);
2. index build: ``ensure_index(..., rebuild=True)`` in a fresh child interpreter, ``--repeat``
   times (wall time, peak RSS = the child's VmHWM, index bytes; ``import_memory.py``'s child);
3. the floor: ``json.load`` of the same graph.json in a fresh child, ``--repeat`` times;
4. in-process question latency, in a child with the index open: ``answer()`` +
   ``build_documents()`` for every question, at default bounds and at maximum bounds (depth 4,
   budget 200), over ``--targets`` targets drawn deterministically (every k-th node label in
   node-id order), each timed ``--latency-repeat`` times (per-target median), reported as
   p50/p95/max over the targets; named adversarial targets are timed on their own;
5. whole-process ``cm-graph query`` (impact, default bounds, packet written) on one comparison
   target, median of ``--process-repeat`` runs; beside it ``python -c pass``, ``cm-graph --help``
   and a query's start cost (a ``cm-graph query`` that stops at its first check, a missing
   authorization file, after loading everything a question needs), with cm_graph's bytecode
   written first as an installed package has it; and, in cpu (``question_cpu.py``: rounds of
   ``--process-repeat`` runs, one of each command per round), ``ask --json``, ``context usage
   --json`` and ``status --json`` on the same graph and target beside ``query``;
6. side by side, the provider's own commands on the same graph.json and target (``graphify
   affected T``, ``graphify explain T``, ``graphify query "what calls T"``), median of
   ``--provider-repeat`` runs;
7. the guard: packets for a sample of targets (every question) are computed in-process, then
   again after the index is rebuilt in another process, and must be byte-identical; the CLI's
   packet must equal the in-process one (apart from the clock and the generation id); with
   ``--baseline OLD.json`` the normalised packets must also equal those of an earlier run (before
   and after an optimisation).

The comparison target is a node the provider's resolvers pick uniquely and whose casefolded label
no other node carries, with the most incoming edges both impact walks follow (calls, references,
imports).

Results go to ``OUT/results.json``; a full run also writes ``docs/benchmarks.md`` and
``docs/benchmarks.png`` (``report.py``; needs matplotlib from the ``bench`` extra). ``--quick``
uses only the small graphs (the two small real packages and three adversarial shapes at 2%
scale), fewer repeats and targets, and writes no docs unless ``--write-docs`` is given: it exists
so CI can check that the harness completes and its answers match.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import import_memory  # noqa: E402
import question_cpu  # noqa: E402
import synthetic  # noqa: E402

MIB = 1024 * 1024
FIXED_BUILT_AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
# relation words both `graphify affected` and our impact follow (affected also follows
# indirect_call and imports_from, which this reader files under `related`)
SHARED_IMPACT_RELATIONS = ("calls", "references", "imports")
PACKET_VOLATILE = ("retrieved_at", "source_built_at")
BINDING_VOLATILE = ("expires_at", "generation")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _digest(value: Any) -> str:
    return hashlib.sha256(_canonical(value)).hexdigest()


def normalise_packet(packet: dict[str, Any]) -> dict[str, Any]:
    """The packet without what legitimately differs between runs: the clock and the generation id."""
    out = {k: v for k, v in packet.items() if k not in PACKET_VOLATILE}
    out["binding"] = {k: v for k, v in packet["binding"].items() if k not in BINDING_VOLATILE}
    return out


# ---------------------------------------------------------------------------------------------
# Children (each in its own interpreter; prints one JSON object as its last stdout line)


def child_pick(graph_json: str) -> dict[str, Any]:
    """The comparison target: a node the provider's own resolvers pick uniquely (``affected``'s
    ``resolve_seed`` and ``explain``'s ``_find_node`` with no ambiguity), whose label no other node
    carries (so ours seeds that one node too), with the most incoming edges both impact walks follow
    (``calls``, ``references``, ``imports``)."""
    from graphify.affected import load_graph, resolve_seed
    from graphify.serve import _find_node, find_node_ambiguity

    with open(graph_json, "rb") as handle:
        document = json.load(handle)
    nodes = document["nodes"]
    edges = document.get("edges", document.get("links", []))

    def norm(label: str) -> str:
        return unicodedata.normalize("NFC", label).casefold()

    counts: dict[str, int] = {}
    for node in nodes:
        key = norm(str(node.get("label", "")))
        counts[key] = counts.get(key, 0) + 1
    incoming: dict[str, int] = {}
    for edge in edges:
        if edge.get("relation") in SHARED_IMPACT_RELATIONS:
            incoming[str(edge["target"])] = incoming.get(str(edge["target"]), 0) + 1
    candidates = sorted(
        (-incoming.get(str(node["id"]), 0), str(node["id"]), str(node["label"]))
        for node in nodes
        if node.get("file_type") == "code" and node.get("source_file")
        and isinstance(node.get("label"), str) and node["label"].strip() and "\n" not in node["label"]
        and counts[norm(node["label"])] == 1
    )
    del document
    graph = load_graph(Path(graph_json))
    rejected = 0
    for negative, node_id, label in candidates:
        found = _find_node(graph, label)
        if (resolve_seed(graph, label) == node_id and found and found[0] == node_id
                and not find_node_ambiguity(graph, label)):
            return {"target": label, "node_id": node_id, "incoming": -negative, "raw_nodes": len(nodes),
                    "raw_edges": len(edges), "rejected": rejected}
        rejected += 1
    raise SystemExit("no node the provider resolves uniquely")


def _prime_step(count: int, wanted: int) -> int:
    """The largest prime <= count // wanted (1 when that is below 2): a prime step does not alias
    with the regular periods of generated graphs (a file node every 100 nodes, say)."""
    limit = count // max(1, wanted)
    for k in range(limit, 1, -1):
        if all(k % d for d in range(2, math.isqrt(k) + 1)):
            return k
    return 1


def child_latency(spec_json: str) -> dict[str, Any]:
    from cm_graph.evidence.documents import CitationChecker, build_documents
    from cm_graph.generation.layout import Workspace
    from cm_graph.index.ensure import ensure_index
    from cm_graph.index.format import open_index
    from cm_graph.query.answer import answer
    from cm_graph.query.questions import DEFAULT_NODE_BUDGET, MAX_DEPTH, MAX_NODE_BUDGET, QUESTIONS

    spec = json.loads(spec_json)
    workspace = Workspace.locate(Path(spec["repo"]), Path(spec["state"]))
    report = ensure_index(workspace)
    connection = open_index(report.path)
    labels = [row[0] for row in connection.execute("SELECT label FROM nodes ORDER BY node")]
    step = _prime_step(len(labels), spec["targets"])
    targets = labels[::step][: spec["targets"]]
    repeats = spec["repeats"]
    bounds = {
        "default": (lambda q: q.default_depth, DEFAULT_NODE_BUDGET),
        "max": (lambda q: MAX_DEPTH, MAX_NODE_BUDGET),
    }

    def run_one(question: Any, target: str, depth: int, budget: int) -> tuple[float, Any, Any]:
        started = time.perf_counter()
        result = answer(connection, question, target, depth, budget)
        documents = build_documents(result, CitationChecker(connection), 16)
        return time.perf_counter() - started, result, documents

    latency: dict[str, Any] = {}
    for bound_name, (depth_of, budget) in bounds.items():
        pooled: list[float] = []
        per_question: dict[str, Any] = {}
        for name, question in QUESTIONS.items():
            depth = depth_of(question)
            samples: list[list[float]] = [[] for _ in targets]
            shapes: list[tuple[int, int, bool, bool]] = []
            for attempt in range(repeats):
                for index, target in enumerate(targets):
                    seconds, result, documents = run_one(question, target, depth, budget)
                    samples[index].append(seconds)
                    if attempt == 0:
                        shapes.append((len(result.relations), len(documents.items), result.resolved,
                                       result.truncated))
            per_target = [statistics.median(s) * 1000 for s in samples]
            pooled.extend(per_target)
            slowest = max(range(len(targets)), key=lambda i: per_target[i])
            per_question[name] = {
                "depth": depth, "budget": budget, "targets": len(targets),
                "p50_ms": _percentile(per_target, 0.50), "p95_ms": _percentile(per_target, 0.95),
                "max_ms": max(per_target), "mean_ms": statistics.fmean(per_target),
                "slowest_target": targets[slowest],
                "relations_mean": statistics.fmean(s[0] for s in shapes),
                "relations_max": max(s[0] for s in shapes),
                "documents_mean": statistics.fmean(s[1] for s in shapes),
                "resolved": sum(1 for s in shapes if s[2]),
                "truncated": sum(1 for s in shapes if s[3]),
            }
        latency[bound_name] = {
            "questions": per_question,
            "pooled": {"p50_ms": _percentile(pooled, 0.50), "p95_ms": _percentile(pooled, 0.95),
                       "max_ms": max(pooled), "samples": len(pooled)},
        }

    named: dict[str, Any] = {}
    for target in spec["named"]:
        rows: dict[str, Any] = {}
        for bound_name, (depth_of, budget) in bounds.items():
            for name, question in QUESTIONS.items():
                runs = [run_one(question, target, depth_of(question), budget) for _ in range(max(5, repeats))]
                result, documents = runs[0][1], runs[0][2]
                rows[f"{bound_name}/{name}"] = {
                    "ms": statistics.median(r[0] for r in runs) * 1000,
                    "seeds": len(result.seeds), "relations": len(result.relations),
                    "documents": len(documents.items), "truncated": result.truncated,
                }
        named[target] = rows
    connection.close()

    sample_step = max(1, len(targets) // spec["packet_sample"])
    sample = list(dict.fromkeys(targets[::sample_step][: spec["packet_sample"]] + spec["named"]))
    packets, ask_ms = _packets(workspace, spec, sample)
    return {
        "index_path": str(report.path), "code_nodes": len(labels), "target_step": step,
        "targets": targets, "latency": latency, "named": named, "packet_sample": sample,
        "packets": packets, "ask_ms": ask_ms,
    }


def _packets(workspace: Any, spec: dict[str, Any], sample: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Packets (raw and normalised digests) for every question on ``sample``, through ``ask``."""
    from cm_graph.evidence.ask import ask
    from cm_graph.evidence.authorization import parse_authorization
    from cm_graph.query.questions import QUESTIONS

    authorization = parse_authorization(Path(spec["authorization"]).read_bytes())
    now = datetime.fromisoformat(spec["now"])
    packets: dict[str, Any] = {}
    ask_seconds: list[float] = []
    for target in sample:
        for name in QUESTIONS:
            started = time.perf_counter()
            outcome = ask(workspace, name, target, authorization, now=now)
            if name == "impact":
                ask_seconds.append(time.perf_counter() - started)
            if outcome.packet is not None:
                entry = {"raw": _digest(outcome.packet), "normalised": _digest(normalise_packet(outcome.packet)),
                         "documents": len(outcome.packet["documents"])}
            else:
                entry = {"raw": _digest(outcome.summary), "normalised": _digest(outcome.summary),
                         "documents": 0, "reason": outcome.summary.get("reason")}
            packets[f"{name}\t{target}"] = entry
    ask_ms = {"p50_ms": statistics.median(ask_seconds) * 1000, "max_ms": max(ask_seconds) * 1000,
              "calls": len(ask_seconds)} if ask_seconds else {}
    return packets, ask_ms


def child_guard(spec_json: str) -> dict[str, Any]:
    """Rebuild the index in this process, then compute the same packets again."""
    from cm_graph.generation.layout import Workspace
    from cm_graph.index.ensure import ensure_index

    spec = json.loads(spec_json)
    workspace = Workspace.locate(Path(spec["repo"]), Path(spec["state"]))
    report = ensure_index(workspace, rebuild=True)
    packets, _ = _packets(workspace, spec, spec["sample"])
    return {"packets": packets, "index_bytes": report.bytes}


CHILDREN = {"child-pick": child_pick, "child-latency": child_latency, "child-guard": child_guard}


def _run_child(args: list[str], timeout: float | None = None) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args],
                          capture_output=True, check=False, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"child {args[0]} failed:\n{done.stderr.decode(errors='replace')[-4000:]}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Whole-process timings


def _timed(command: list[str], repeat: int, *, env: dict[str, str] | None = None,
           cwd: str | None = None, check: bool = True) -> dict[str, Any]:
    seconds: list[float] = []
    last: subprocess.CompletedProcess[bytes] | None = None
    for _ in range(repeat):
        started = time.perf_counter()
        last = subprocess.run(command, capture_output=True, env=env, cwd=cwd, check=False)
        seconds.append(time.perf_counter() - started)
        if check and last.returncode != 0:
            raise SystemExit(f"{command[:3]} exited {last.returncode}:\n"
                             f"{last.stderr.decode(errors='replace')[-2000:]}")
    assert last is not None
    return {
        "median_s": statistics.median(seconds), "min_s": min(seconds), "runs_s": seconds,
        "returncode": last.returncode, "stdout_head": last.stdout.decode(errors="replace")[:4000],
    }


def bin_path(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else (shutil.which(name) or name)


def _compile_package() -> None:
    """Write cm_graph's bytecode first, as ``pip install`` does: a process that compiles our
    sources on every start (an editable install under PYTHONDONTWRITEBYTECODE) is not what a
    user runs."""
    import compileall

    import cm_graph

    compileall.compile_dir(str(Path(cm_graph.__file__).parent), quiet=1)


def startup_costs(repeat: int, scratch: Path) -> dict[str, Any]:
    _compile_package()
    cm_graph = bin_path("cm-graph")
    # A query process that stops at its first check, once everything a question needs is loaded
    # and its arguments are parsed: the start cost every query pays before any work.
    missing = scratch / "no-such-authorization.json"
    query_start = [cm_graph, "query", "--question", "impact", "--target", "t", "--authorization", str(missing)]
    return {
        "python_pass": _timed([sys.executable, "-c", "pass"], repeat),
        "cm_graph_help": _timed([cm_graph, "--help"], repeat),
        "cm_graph_version": _timed([cm_graph, "version"], repeat),
        "query_start": _timed([*query_start, "--json"], repeat, check=False),
        # what the start is made of: the question path's imports, and the typer CLI's (other commands)
        "import_question_path": _timed([sys.executable, "-c", "import cm_graph.cli.query"], repeat),
        "import_cli": _timed([sys.executable, "-c", "import cm_graph.cli.app"], repeat),
    }


def provider_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIFY_")}
    env.update({"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "GRAPHIFY_QUERY_LOG_DISABLE": "1"})
    return env


def provider_commands(graph_json: str, target: str, repeat: int, home: Path) -> dict[str, Any]:
    graphify = import_memory.provider_command()
    bare = target[:-2] if target.endswith("()") else target
    env = provider_env(home)
    commands = {
        "affected": [*graphify, "affected", target, "--graph", graph_json],
        "explain": [*graphify, "explain", target, "--graph", graph_json],
        "query": [*graphify, "query", f"what calls {bare}", "--graph", graph_json],
    }
    out: dict[str, Any] = {}
    for name, command in commands.items():
        timing = _timed(command, repeat, env=env, cwd=str(home), check=False)
        head = timing["stdout_head"]
        if name == "affected":
            timing["resolved"] = head.startswith("Affected nodes for")
        elif name == "explain":
            timing["resolved"] = head.startswith("Node:")
        else:
            timing["resolved"] = "No matching nodes" not in head
        timing["command"] = " ".join(f'"{c}"' if " " in c else c for c in command[len(graphify):])
        out[name] = timing
    return out


# ---------------------------------------------------------------------------------------------
# One graph


def measure_graph(meta: dict[str, Any], named: tuple[str, ...], opts: argparse.Namespace,
                  now: datetime) -> dict[str, Any]:
    from cm_graph.generation.layout import Workspace
    from cm_graph.provider.publish import publish_provider_output

    name = meta["package"]
    label = f"{name} {meta['version']}"
    state = opts.out / "state" / f"{name}-{meta['version']}"
    shutil.rmtree(state, ignore_errors=True)
    state.parent.mkdir(parents=True, exist_ok=True)
    repo, graph_json = meta["repo"], str(Path(meta["graphify_out"]) / "graph.json")

    workspace = Workspace.locate(Path(repo), state)
    started = time.perf_counter()
    manifest, _ = publish_provider_output(workspace, Path(meta["graphify_out"]), revision="HEAD",
                                          built_at=FIXED_BUILT_AT)
    publish_seconds = time.perf_counter() - started
    log(f"[{label}] published ({manifest.completeness}) in {publish_seconds:.2f} s")

    imports = []
    for attempt in range(opts.repeat):
        imports.append(import_memory._run_child(["child-import", repo, str(state)]))
        log(f"[{label}] index build {attempt + 1}/{opts.repeat}: {imports[-1]['seconds']:.2f} s, "
            f"peak {imports[-1]['peak_rss_bytes'] / MIB:.1f} MiB")
    loads = []
    for _ in range(opts.repeat):
        loads.append(import_memory._run_child(["child-json", graph_json]))
    log(f"[{label}] json.load median {statistics.median(r['seconds'] for r in loads):.3f} s")

    cm_graph = bin_path("cm-graph")
    auth = opts.out / "auth" / f"{name}.json"
    auth.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [cm_graph, "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
         "--recipient", "claude:builder", "--max-documents", "16", "--state-dir", str(state),
         "--repo-path", repo], capture_output=True, check=True,
    )
    auth.write_bytes(done.stdout)

    pick = _run_child(["child-pick", graph_json])
    target = pick["target"]
    log(f"[{label}] comparison target {target!r} ({pick['incoming']} incoming edges)")

    spec = {
        "repo": repo, "state": str(state), "authorization": str(auth), "now": now.isoformat(),
        "targets": opts.targets, "repeats": opts.latency_repeat, "packet_sample": opts.packet_sample,
        "named": list(dict.fromkeys([*named, target])),
    }
    latency = _run_child(["child-latency", json.dumps(spec)])
    default = latency["latency"]["default"]["pooled"]
    log(f"[{label}] in-process default bounds p50 {default['p50_ms']:.2f} ms, p95 {default['p95_ms']:.2f} ms")

    packet_out = opts.out / "packets" / f"{name}.json"
    packet_out.parent.mkdir(parents=True, exist_ok=True)
    query = _timed(
        [cm_graph, "query", "--question", "impact", "--target", target, "--authorization", str(auth),
         "--packet-out", str(packet_out), "--json", "--state-dir", str(state), "--repo-path", repo],
        opts.process_repeat,
    )
    summary = json.loads(query["stdout_head"])
    cli_packet = json.loads(packet_out.read_text())
    in_process = latency["packets"][f"impact\t{target}"]
    cli_matches = _digest(normalise_packet(cli_packet)) == in_process["normalised"]
    log(f"[{label}] cm-graph query median {query['median_s'] * 1000:.0f} ms "
        f"(packet {'matches' if cli_matches else 'DIFFERS FROM'} the in-process one)")
    # The other question commands beside query, in cpu (issue 31 item 3): rounds of one run each.
    questions = question_cpu.rounds(question_cpu.commands(
        cm_graph, Path(repo), state, auth, opts.out / "packets" / f"{name}-cpu.json", target, tables=False),
        opts.process_repeat)
    log(f"[{label}] cpu medians: " + ", ".join(
        f"{command} {row['cpu_ms']['median']:.0f} ms" for command, row in questions["rows"].items()))

    provider = provider_commands(graph_json, target, opts.provider_repeat, opts.out / "provider-home")
    log(f"[{label}] graphify affected median {provider['affected']['median_s']:.2f} s, "
        f"explain {provider['explain']['median_s']:.2f} s, query {provider['query']['median_s']:.2f} s")

    guard = _run_child(["child-guard", json.dumps({**spec, "sample": latency["packet_sample"]})])
    mismatches = sorted(
        key for key, entry in latency["packets"].items()
        if guard["packets"].get(key, {}).get("raw") != entry["raw"]
    )
    log(f"[{label}] guard: {len(latency['packets'])} packets, {len(mismatches)} differ after a rebuild")

    return {
        **meta,
        "name": name,
        **import_memory.summarise_builds(manifest.completeness, publish_seconds, imports, loads),
        "compare_target": pick,
        "latency": latency["latency"], "named": latency["named"], "target_step": latency["target_step"],
        "targets_drawn": len(latency["targets"]), "ask_ms": latency["ask_ms"],
        "query": {**query, "summary_status": summary.get("status"), "relations": summary.get("relations"),
                  "documents": summary.get("documents"), "packet_matches_in_process": cli_matches},
        "questions_cpu": questions,
        "provider": provider,
        "guard": {"packets": latency["packets"], "mismatches": mismatches,
                  "rebuilt_index_bytes": guard["index_bytes"]},
    }


# ---------------------------------------------------------------------------------------------


def compare_baseline(results: list[dict[str, Any]], baseline: Path) -> list[str]:
    old = {r["name"]: r for r in json.loads(baseline.read_text())["results"]}
    problems = []
    for result in results:
        before = old.get(result["name"])
        if before is None:
            continue
        for key, entry in result["guard"]["packets"].items():
            previous = before["guard"]["packets"].get(key)
            if previous is not None and previous["normalised"] != entry["normalised"]:
                problems.append(f"{result['name']}: {key.replace(chr(9), ' ')}")
    return problems


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in CHILDREN:
        print(json.dumps(CHILDREN[argv[0]](argv[1])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="small graphs only, few repeats (CI)")
    parser.add_argument("--out", type=Path, default=None,
                        help="results directory (default CACHE_DIR/run or CACHE_DIR/run-quick)")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--only", action="append", default=[], help="measure only graphs with this name")
    parser.add_argument("--repeat", type=int, default=None, help="index builds and json.load runs")
    parser.add_argument("--targets", type=int, default=None, help="targets drawn per graph")
    parser.add_argument("--latency-repeat", type=int, default=None, help="timings per in-process target")
    parser.add_argument("--process-repeat", type=int, default=None, help="cm-graph query runs")
    parser.add_argument("--provider-repeat", type=int, default=None, help="runs of each provider command")
    parser.add_argument("--packet-sample", type=int, default=8, help="drawn targets in the packet guard")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="an earlier results.json whose normalised packets must be equal")
    parser.add_argument("--write-docs", action=argparse.BooleanOptionalAction, default=None,
                        help="write docs/benchmarks.md and .png (default: on for a full run)")
    opts = parser.parse_args(argv)
    quick = opts.quick
    opts.repeat = opts.repeat or (1 if quick else 3)
    opts.targets = opts.targets or (40 if quick else 200)
    opts.latency_repeat = opts.latency_repeat or (1 if quick else 3)
    opts.process_repeat = opts.process_repeat or (2 if quick else 10)
    opts.provider_repeat = opts.provider_repeat or (1 if quick else 3)
    write_docs = (not quick) if opts.write_docs is None else opts.write_docs
    cache = opts.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    opts.out = (opts.out or cache / ("run-quick" if quick else "run")).resolve()
    opts.out.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC).replace(microsecond=0)
    started = time.perf_counter()

    plan: list[tuple[dict[str, Any], tuple[str, ...]]] = []
    for package in corpus.REAL_PACKAGES:
        if (quick and not package.quick) or (opts.only and package.name not in opts.only):
            continue
        plan.append((corpus.prepare_real(package, cache, log), ()))
    for shape in synthetic.SYNTHETIC:
        if (quick and shape.quick_scale is None) or (opts.only and shape.name not in opts.only):
            continue
        scale = shape.quick_scale if quick and shape.quick_scale is not None else 1.0
        meta = synthetic.prepare_synthetic(shape, scale, cache, log)
        plan.append((meta, shape.named_targets if not quick else ()))
    if not plan:
        raise SystemExit("nothing to measure")

    facts = import_memory.machine_facts()
    facts["matplotlib"] = _version("matplotlib")
    facts["networkx"] = _version("networkx")
    facts["cm_graph_commit"] = _git_head()
    log(f"machine: {json.dumps(facts)}")
    startup = startup_costs(opts.process_repeat, opts.out)
    log(f"startup: python -c pass {startup['python_pass']['median_s'] * 1000:.0f} ms, "
        f"cm-graph --help {startup['cm_graph_help']['median_s'] * 1000:.0f} ms")
    results = []
    for meta, named in plan:
        results.append(measure_graph(meta, named, opts, now))
        # a partial results file, so a long run can be inspected (and reported on) as it goes
        _write(opts.out / "results.json", facts, startup, results, opts, argv, time.perf_counter() - started)

    problems = [f"{r['name']}: packet differs after a rebuild: {m}" for r in results
                for m in r["guard"]["mismatches"]]
    problems += [f"{r['name']}: the CLI packet differs from the in-process one" for r in results
                 if not r["query"]["packet_matches_in_process"]]
    if opts.baseline is not None:
        problems += [f"differs from the baseline: {p}" for p in compare_baseline(results, opts.baseline)]
    path = _write(opts.out / "results.json", facts, startup, results, opts, argv,
                  time.perf_counter() - started, problems)
    log(f"results written to {path} ({time.perf_counter() - started:.0f} s)")
    if write_docs:
        import report

        report.write(json.loads(path.read_text()), HERE.parent / "docs")
        log("docs/benchmarks.md and docs/benchmarks.png written")
    if problems:
        for problem in problems:
            log(f"GUARD FAILED: {problem}")
        return 1
    log(f"guard: {sum(len(r['guard']['packets']) for r in results)} packets identical across runs")
    return 0


def _version(dist: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git_head() -> dict[str, Any]:
    root = HERE.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.rstrip("\n")
    except (OSError, subprocess.CalledProcessError):
        return {"head": None, "dirty": None}
    return {"head": head, "dirty": bool(dirty), "dirty_files": dirty.splitlines()}


def _write(path: Path, facts: dict[str, Any], startup: dict[str, Any], results: list[dict[str, Any]],
           opts: argparse.Namespace, argv: list[str], seconds: float,
           problems: list[str] | None = None) -> Path:
    document = {
        "machine": facts, "startup": startup, "results": results,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(opts).items()},
        "argv": argv, "seconds": seconds, "complete": problems is not None, "problems": problems or [],
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    path.write_text(json.dumps(document, indent=1))
    return path


if __name__ == "__main__":
    sys.exit(main())
