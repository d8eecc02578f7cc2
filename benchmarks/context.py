"""Benchmarks for code_context (issue 16): latency per intent, caller recall/precision, coupling.

    python benchmarks/context.py [--packages requests,axios,rxjs,sympy] [--targets 200] [--out DIR]

1. latency: for each prepared corpus package (``corpus.prepare_real``, cached under
   /tmp/cm-graph-bench), publish its provider output, open the index once and time
   ``compose()`` in-process for every intent over ``--targets`` targets (every k-th symbol that
   resolves to one definition, in node order) plus the ten most-called ones; p50/p95/max.
2. callers vs ground truth: for the ten most-called functions whose name is defined once in the
   commit (so a name-based truth is about them), a parser independent of the provider (Python:
   an ``ast`` walk of the commit's files; JavaScript/TypeScript: acorn and @babel/parser, see
   js_truth.py) lists the
   definitions that call the name or pass it as an argument (a callback); the composed ``usage``
   callers and the seed's ``impact`` (hop 1, its ``calls`` relations) are scored against it
   (recall, precision).
3. change coupling: a synthetic repository of 5,000 commits (git fast-import), history built
   from scratch; seconds.
4. text mentions (issue 20): for the same ten targets, recall of graph callers alone and of graph
   callers + textual mentions against the same truth, test and non-test callers apart; the
   mentions' precision against that (call-only) truth, and a seeded sample of mention lines to
   check by hand; the text index's bytes (SQLite's dbstat) and the index build time.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import js_truth  # noqa: E402

FIXED_BUILT_AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
INTENTS = ("how", "usage", "impact", "tests")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def publish(meta: dict[str, Any], out: Path) -> Any:
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.status import graph_status
    from cm_graph.provider.publish import publish_provider_output

    state = out / "state" / f"{meta['package']}-{meta['version']}"
    if state.is_dir():
        workspace = Workspace.locate(Path(meta["repo"]), state)
        if graph_status(workspace).usable:
            return workspace  # published by an earlier run of this script: reuse it and its index
    shutil.rmtree(state, ignore_errors=True)
    state.parent.mkdir(parents=True, exist_ok=True)
    workspace = Workspace.locate(Path(meta["repo"]), state)
    publish_provider_output(workspace, Path(meta["graphify_out"]), revision="HEAD", built_at=FIXED_BUILT_AT)
    return workspace


def _targets(connection: Any, wanted: int) -> tuple[list[str], list[tuple[str, str, int]]]:
    """(latency targets, the ten most-called uniquely labelled functions as (label, path, node))."""
    rows = connection.execute(
        "SELECT n.node, n.label, n.path, count(e.edge) AS callers FROM nodes AS n "
        "LEFT JOIN edges AS e ON e.target = n.node AND e.relation = 'calls' "
        "WHERE n.kind = 'symbol' AND n.path <> '' AND n.callable_base IS NOT NULL "
        "AND (SELECT count(*) FROM nodes AS o WHERE o.label = n.label) = 1 "
        "GROUP BY n.node ORDER BY n.node"
    ).fetchall()
    step = max(1, len(rows) // wanted)
    sample = [row[1] for row in rows[::step]][:wanted]
    top = sorted(rows, key=lambda r: (-r[3], r[0]))[:60]
    return sample + [r[1] for r in top[:10]], [(r[1], r[2], r[0]) for r in top]


def latency(workspace: Any, wanted: int) -> dict[str, Any]:
    from cm_graph.context.compose import compose
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for

    generation = require_current(workspace)
    connection = open_index_for(generation)
    graph = {"generation": generation.id, "commit": generation.manifest.commit, "tree": generation.manifest.tree,
             "provider": "graphifyy==0.9.58", "built_at": generation.manifest.built_at}
    fresh = {"state": "current", "head": generation.manifest.commit}
    try:
        targets, top = _targets(connection, wanted)
        result: dict[str, Any] = {"targets": len(targets)}
        for intent in INTENTS:
            times = []
            for target in targets:
                compose(connection, intent, target, graph, fresh, 8000)  # warm the page cache
                started = time.perf_counter()
                compose(connection, intent, target, graph, fresh, 8000)
                times.append((time.perf_counter() - started) * 1000)
            result[intent] = {"p50_ms": round(statistics.median(times), 3),
                              "p95_ms": round(_percentile(times, 0.95), 3), "max_ms": round(max(times), 3)}
        result["budget"] = _budget_on_hubs(connection, top[:5], graph, fresh)
        return {"latency": result, "top": top}
    finally:
        connection.close()


def _budget_on_hubs(connection: Any, hubs: list[tuple[str, str, int]], graph: dict[str, Any],
                    fresh: dict[str, Any]) -> dict[str, Any]:
    """The largest hubs at several budgets: every answer fits, and shown never exceeds total."""
    from cm_graph.base.jsonio import dumps_wire
    from cm_graph.context.compose import compose

    checked, largest = 0, 0
    for label, _, _ in hubs:
        for intent in INTENTS:
            for max_chars in (5000, 8000, 16000, 64000):
                document = compose(connection, intent, label, graph, fresh, max_chars)
                size = len(dumps_wire(document))
                assert size <= max_chars, (label, intent, max_chars, size)
                assert all(s.get("shown", 0) <= s.get("total", 0) for s in document["sections"].values())
                checked, largest = checked + 1, max(largest, size)
    return {"answers_checked": checked, "hubs": [h[0] for h in hubs], "largest_chars": largest,
            "callers_of_top_hub": connection.execute(
                "SELECT count(*) FROM edges WHERE target = ? AND relation = 'calls'", (hubs[0][2],)).fetchone()[0]
            if hubs else 0}


def _ast_callers(repo: Path, name: str) -> set[tuple[str, str]]:
    """(path, enclosing definition) of every call of ``name`` (``name(...)`` or ``x.name(...)``) and
    every argument passing ``name`` itself, in the commit's Python files (top level: ``<module>``)."""
    found: set[tuple[str, str]] = set()
    for path, tree in _parsed(repo):

        def visit(node: ast.AST, owner: str, path: str = path) -> None:
            for child in ast.iter_child_nodes(node):
                inner = owner
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = child.name
                if isinstance(child, ast.Call):
                    func = child.func
                    called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(
                        func, ast.Attribute) else None
                    passed = any(isinstance(a, ast.Name) and a.id == name for a in child.args)
                    if called == name or passed:
                        found.add((path, owner))
                visit(child, inner)

        visit(tree, js_truth.MODULE_OWNER)
    return found


@functools.cache
def _parsed(repo: Path) -> tuple[tuple[str, ast.Module], ...]:
    """Every tracked Python file of the (clean, one-commit) checkout, parsed once."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "*.py"], capture_output=True, text=True,
                            check=True).stdout.split()
    parsed = []
    for path in listed:
        try:
            parsed.append((path, ast.parse((repo / path).read_text(encoding="utf-8"))))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
    return tuple(parsed)


def _ast_definitions(repo: Path) -> dict[str, int]:
    """How many times each function or class name is defined in the commit's Python files."""
    counts: dict[str, int] = {}
    for _, tree in _parsed(repo):
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                counts[node.name] = counts.get(node.name, 0) + 1
    return counts


def _unit(label: str, path: str) -> tuple[str, str]:
    """(path, definition name) of a node, as the ground truths name a caller: a module's own node
    (labelled by its file name or its path, depending on the language) is ``<module>``."""
    if label in (path, path.rsplit("/", 1)[-1]):
        return path, js_truth.MODULE_OWNER
    base = label.lstrip(".")
    base = base[: base.index("(")] if "(" in base else base
    return path, base


@dataclass(frozen=True)
class GroundTruth:
    """An independent (provider-free) account of one checkout: how often each name is defined,
    and who calls a name."""

    parser: str
    definitions: dict[str, int]
    callers: Callable[[str], set[tuple[str, str]]]
    sites: Callable[[str], set[tuple[str, tuple[str, ...]]]] | None = None  # for the lenient score


def _lenient(sites: set[tuple[str, tuple[str, ...]]], claims: set[tuple[str, str]]) -> tuple[int, int]:
    """(true callers found, claims right) when a claim may name any named definition enclosing a
    call site (``<module>`` only for a top-level site)."""
    found, right = set(), set()
    for path, chain in sites:
        accepted = {(path, owner) for owner in chain[1:]} or {(path, chain[0])}
        if accepted & claims:
            found.add((path, chain[-1]))
            right |= accepted & claims
    return len(found), len(right)


def ground_truth(registry: str, repo: Path, cache: Path) -> GroundTruth:
    """Python's ``ast`` for a PyPI package, acorn/@babel/parser (js_truth.py) for an npm one."""
    if registry == "pypi":
        return GroundTruth("ast", _ast_definitions(repo), functools.partial(_ast_callers, repo))
    parsed = js_truth.parse_checkout(repo, cache)
    return GroundTruth(f"{js_truth.ACORN} + {js_truth.BABEL} ({parsed.parsed} files, {len(parsed.unparsed)} unparsed)",
                       parsed.definitions, parsed.callers, parsed.sites)


def callers_vs_truth(workspace: Any, top: list[tuple[str, str, int]], truth_of: GroundTruth) -> dict[str, Any]:
    from cm_graph.context.relations import INCOMING, WalkSpec
    from cm_graph.context.section_table import BY_NAME
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for
    from cm_graph.query.answer import answer
    from cm_graph.query.questions import QUESTIONS

    defined = truth_of.definitions
    # A name-based truth is only independent evidence for a name defined once in the commit.
    top = [t for t in top if defined.get(_unit(t[0], t[1])[1], 0) == 1][:10]
    totals = {"truth": 0, "composed": 0, "composed_hit": 0, "seed": 0, "seed_hit": 0, "calls_only": 0,
              "calls_only_hit": 0}
    rows = []
    connection = open_index_for(require_current(workspace))
    try:
        for label, path, node in top:
            name = _unit(label, path)[1]
            truth = truth_of.callers(name)
            # Every caller the composed walk reaches (the section shows 12 of them; all are claims).
            composed = _reached(connection, node, BY_NAME["callers"].walk)
            # The same walk over the seed's word alone (`calls`): what the richer map adds.
            calls_only = _reached(connection, node, WalkSpec(INCOMING, ("calls",), 1))
            seed_answer = answer(connection, QUESTIONS["impact"], label, 1, 200)
            seed = {_unit(r.reached.label, r.reached.path) for r in seed_answer.relations if r.edge.kind == "calls"}
            row = {"target": label, "path": path, "truth": len(truth),
                   "composed": len(composed), "composed_hit": len(composed & truth),
                   "seed": len(seed), "seed_hit": len(seed & truth),
                   "calls_only": len(calls_only), "calls_only_hit": len(calls_only & truth),
                   "composed_only": sorted(f"{p}::{n}" for p, n in composed - seed)[:5],
                   "missed": sorted(f"{p}::{n}" for p, n in truth - composed)[:5],
                   "wrong": sorted(f"{p}::{n}" for p, n in composed - truth)[:5]}
            if truth_of.sites is not None:
                sites = truth_of.sites(name)
                row["lenient_composed_found"], row["lenient_composed_right"] = _lenient(sites, composed)
                row["lenient_seed_found"], row["lenient_seed_right"] = _lenient(sites, seed)
                for key in ("lenient_composed_found", "lenient_composed_right", "lenient_seed_found",
                            "lenient_seed_right"):
                    totals[key] = totals.get(key, 0) + row[key]
            rows.append(row)
            for key in ("truth", "composed", "composed_hit", "seed", "seed_hit", "calls_only", "calls_only_hit"):
                totals[key] += row[key]
    finally:
        connection.close()

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 3) if b else None

    return {"truth": truth_of.parser, "targets": rows,
            "recall_composed": ratio(totals["composed_hit"], totals["truth"]),
            "precision_composed": ratio(totals["composed_hit"], totals["composed"]),
            "recall_seed": ratio(totals["seed_hit"], totals["truth"]),
            "precision_seed": ratio(totals["seed_hit"], totals["seed"]),
            "recall_calls_only": ratio(totals["calls_only_hit"], totals["truth"]),
            "precision_calls_only": ratio(totals["calls_only_hit"], totals["calls_only"]),
            **({"lenient": {
                "recall_composed": ratio(totals["lenient_composed_found"], totals["truth"]),
                "precision_composed": ratio(totals["lenient_composed_right"], totals["composed"]),
                "recall_seed": ratio(totals["lenient_seed_found"], totals["truth"]),
                "precision_seed": ratio(totals["lenient_seed_right"], totals["seed"])}}
               if "lenient_seed_found" in totals else {}),
            "totals": totals}


def mentions_vs_truth(workspace: Any, top: list[tuple[str, str, int]], truth_of: GroundTruth,
                      sample: int = 20) -> dict[str, Any]:
    """Graph callers alone, graph + resolved (``resolved_callers``' walk: its call, instantiation
    and reference uses; issue 28 item 4), and graph + resolved + textual mentions (the mentions
    now hold only what neither has), against the independent truth, for test and non-test callers
    apart (the truth's own path says which)."""
    from cm_graph.context.section_table import BY_NAME
    from cm_graph.context.textual import mention_facts
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for
    from cm_graph.index.graphmodel import is_test_path

    defined = truth_of.definitions
    top = [t for t in top if defined.get(_unit(t[0], t[1])[1], 0) == 1][:10]
    keys = ("truth", "graph_hit", "resolved_hit", "both_hit")
    totals = {f"{side}_{key}": 0 for side in ("test", "code") for key in keys}
    totals.update(mentions=0, mentions_hit=0, common=0, resolved=0, resolved_right=0)
    rows, lines = [], []
    connection = open_index_for(require_current(workspace))
    try:
        for label, path, node in top:
            name = _unit(label, path)[1]
            truth = truth_of.callers(name)
            graph = _reached(connection, node, BY_NAME["callers"].walk)
            resolved = _resolved_users(connection, node) - graph
            facts = mention_facts(connection, label, node)
            claims = {_unit(*_enclosing(connection, p, n)) for p, n, _ in facts["rows"]}
            lines.extend((label, p, n, form) for p, n, form in facts["rows"])
            row: dict[str, Any] = {"target": label, "common_name": facts["common"], "mention_lines": len(facts["rows"]),
                                   "mention_claims": len(claims), "mention_claims_right": len(claims & truth),
                                   # what the resolved layer adds that the truth does not name, and
                                   # what neither graph nor resolver finds (a sample of each, by hand)
                                   "resolved_wrong": sorted(f"{p}::{n}" for p, n in resolved - truth)[:5],
                                   "missed_with_resolved": sorted(f"{p}::{n}" for p, n in truth - graph - resolved)[:5]}
            for side, wanted in (("test", True), ("code", False)):
                part = {t for t in truth if is_test_path(t[0]) == wanted}
                row[f"{side}_truth"], row[f"{side}_graph_hit"] = len(part), len(graph & part)
                row[f"{side}_resolved_hit"] = len((graph | resolved) & part)
                row[f"{side}_both_hit"] = len((graph | resolved | claims) & part)
                for key in keys:
                    totals[f"{side}_{key}"] += row[f"{side}_{key}"]
            if truth_of.sites is not None:  # a claim may name any named definition enclosing a site
                sites = truth_of.sites(name)
                row["lenient_graph_found"] = _lenient(sites, graph)[0]
                row["lenient_both_found"] = _lenient(sites, graph | claims)[0]
                row["lenient_mentions_right"] = _lenient(sites, claims)[1]
                for key in ("lenient_graph_found", "lenient_both_found", "lenient_mentions_right"):
                    totals[key] = totals.get(key, 0) + row[key]
            totals["resolved"] += len(resolved)
            totals["resolved_right"] += len(resolved & truth)
            totals["mentions"] += len(claims)
            totals["mentions_hit"] += len(claims & truth)
            totals["common"] += int(facts["common"])
            rows.append(row)
        picked = random.Random(20).sample(lines, min(sample, len(lines)))
        checkout = workspace.checkout
        hand = [{"target": t, "at": f"{p}#L{n}", "form": form,
                 "text": (checkout / p).read_text(encoding="utf-8", errors="replace").split("\n")[n - 1].strip()[:120]}
                for t, p, n, form in sorted(picked, key=lambda x: (x[1], x[2]))]
    finally:
        connection.close()

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 3) if b else None

    everyone = totals["test_truth"] + totals["code_truth"]
    return {"targets": rows, "totals": totals,
            "recall_test_graph": ratio(totals["test_graph_hit"], totals["test_truth"]),
            "recall_test_with_resolved": ratio(totals["test_resolved_hit"], totals["test_truth"]),
            "recall_test_with_mentions": ratio(totals["test_both_hit"], totals["test_truth"]),
            "recall_code_graph": ratio(totals["code_graph_hit"], totals["code_truth"]),
            "recall_code_with_resolved": ratio(totals["code_resolved_hit"], totals["code_truth"]),
            "recall_code_with_mentions": ratio(totals["code_both_hit"], totals["code_truth"]),
            "resolved_precision_vs_call_truth": ratio(totals["resolved_right"], totals["resolved"]),
            "mention_precision_vs_call_truth": ratio(totals["mentions_hit"], totals["mentions"]),
            **({"lenient": {
                "recall_graph": ratio(totals["lenient_graph_found"], everyone),
                "recall_with_mentions": ratio(totals["lenient_both_found"], everyone),
                "mention_precision": ratio(totals["lenient_mentions_right"], totals["mentions"])}}
               if "lenient_graph_found" in totals else {}),
            "hand_sample": hand}


def _enclosing(connection: Any, path: str, line: int) -> tuple[str, str]:
    """(label, path) of the definition a mention is named by (its file's node when none)."""
    found = connection.execute(
        "SELECT label FROM nodes WHERE path = ? AND line IS NOT NULL AND line <= ? AND kind <> 'file' "
        "ORDER BY line DESC, node LIMIT 1", (path, line)).fetchall()
    return (found[0][0] if found else path.rsplit("/", 1)[-1]), path


def text_index_cost(workspace: Any, runs: int = 3) -> dict[str, Any]:
    """The index's bytes, the text index's share of them (dbstat), and the build's median time."""
    import apsw

    from cm_graph.generation.status import require_current
    from cm_graph.index.importer import build_index

    generation = require_current(workspace)
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(runs):
            report = build_index(generation, Path(scratch) / f"i{run}.sqlite", seal=False)
            times.append(report.seconds)
        connection = apsw.Connection(str(report.path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            text_bytes = connection.execute(
                "SELECT sum(pgsize) FROM dbstat WHERE name IN ('text_files', 'mention_names', 'mentions') "
                "OR name LIKE 'sqlite_autoindex_mention%'").fetchone()[0] or 0
            counts = {table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                      for table in ("text_files", "mention_names", "mentions")}
            common = connection.execute("SELECT count(*) FROM mention_names WHERE kept = 0").fetchone()[0]
        finally:
            connection.close()
    return {"index_bytes": report.bytes, "text_index_bytes": text_bytes,
            "text_share_of_graph_index": round(text_bytes / max(1, report.bytes - text_bytes), 3),
            "build_seconds_median": round(statistics.median(times), 3), "rows": counts, "common_names": common}


def _resolved_users(connection: Any, node: int) -> set[tuple[str, str]]:
    """The callers ``resolved_callers`` adds, as the truths name them: the definitions whose
    resolved call, instantiation or reference binds to ``node`` (imports and subclassing are
    uses the call truth does not count)."""
    from cm_graph.context import resolved
    from cm_graph.context.section_table import BY_NAME

    row = BY_NAME["resolved_callers"]
    assert row.walk is not None
    reach = resolved.walk(connection, node, row.walk, ("call", "instantiate", "reference"))
    keys = [s.reached for s in reach.steps if s.evidence == resolved.RESOLVED]
    heads = resolved.describe_keys(connection, keys)
    return {_unit(heads[key]["label"], heads[key]["path"]) for key in keys}


def _reached(connection: Any, node: int, spec: Any) -> set[tuple[str, str]]:
    from cm_graph.context.walks import walk

    reach = walk(connection, (node,), spec)
    described = connection.execute(
        "SELECT label, path FROM nodes WHERE node IN (SELECT value FROM json_each(?))",
        (json.dumps([s.reached for s in reach.steps]),)).fetchall()
    return {_unit(label, path) for label, path in described}


def coupling_speed(commits: int, scratch: Path) -> dict[str, Any]:
    """Build the change-coupling history of a synthetic repository of ``commits`` commits."""
    import apsw

    from cm_graph.context.coupling import build_history

    repo = scratch / "history-repo"
    shutil.rmtree(repo, ignore_errors=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    rng = random.Random(16)
    files = [f"src/module_{i:03d}.py" for i in range(400)]
    stream = []
    for n in range(commits):
        changed = rng.sample(files, rng.choice((1, 1, 2, 3, 4, 6, 8, 40)))
        stream.append(f"commit refs/heads/main\nmark :{n + 1}\ncommitter A <a@example.invalid> {1700000000 + n} +0000\n"
                      f"data 3\nc{n % 10}\n" + ("" if n == 0 else f"from :{n}\n"))
        for path in changed:
            body = f"{n}\n"
            stream.append(f"M 100644 inline {path}\ndata {len(body)}\n{body}")
        stream.append("\n")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input="".join(stream).encode(), check=True)
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "main"], check=True)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    census = apsw.Connection(":memory:")
    census.execute("CREATE TABLE census (path TEXT PRIMARY KEY)")
    census.executemany("INSERT INTO census VALUES (?)", [(f,) for f in files])
    destination = scratch / "synthetic.history.sqlite"
    destination.unlink(missing_ok=True)
    started = time.perf_counter()
    report = build_history(repo, head, census, destination)
    seconds = time.perf_counter() - started
    return {"commits": report.commits, "dropped": report.dropped, "seconds": round(seconds, 3),
            "history_bytes": destination.stat().st_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", default="requests,axios,rxjs,sympy")
    parser.add_argument("--targets", type=int, default=200)
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--callers-only", action="store_true", help="skip coupling and latency")
    parser.add_argument("--text-cost", action="store_true", help="also time index builds (text index cost)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "context")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench")
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    if not opts.callers_only:
        results["coupling"] = coupling_speed(opts.commits, opts.out)
        log(f"coupling: {results['coupling']}")
    wanted = set(opts.packages.split(","))
    for package in corpus.REAL_PACKAGES:
        if package.name not in wanted:
            continue
        meta = corpus.prepare_real(package, opts.cache, log)
        workspace = publish(meta, opts.out)
        if opts.callers_only:
            from cm_graph.generation.status import require_current
            from cm_graph.index.ensure import open_index_for

            connection = open_index_for(require_current(workspace))
            measured = {"latency": None, "top": _targets(connection, opts.targets)[1]}
            connection.close()
        else:
            measured = latency(workspace, opts.targets)
        entry: dict[str, Any] = {"language": package.language, "latency": measured["latency"]}
        truth = ground_truth(package.registry, workspace.checkout, opts.cache)
        entry["callers"] = callers_vs_truth(workspace, measured["top"], truth)
        entry["mentions"] = mentions_vs_truth(workspace, measured["top"], truth)
        if opts.text_cost:
            entry["text_index"] = text_index_cost(workspace)
        results[f"{package.name} {package.version}"] = entry
        log(f"{package.name}: {json.dumps(entry)[:600]}")
    (opts.out / "results.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
