"""Write docs/benchmarks.md and docs/benchmarks.png from a run.py results.json.

    python benchmarks/report.py /tmp/cm-graph-bench/run/results.json [--docs DIR]

Everything in the document is computed from the results file, except the hand-written notes
between ``<!-- notes:start -->`` and ``<!-- notes:end -->``, which are carried over from the
existing document.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

MIB = 1024 * 1024
QUESTIONS = ("impact", "dependency", "symbol", "related_tests")
NOTES_START, NOTES_END = "<!-- notes:start -->", "<!-- notes:end -->"


def _mib(value: float) -> str:
    return f"{value / MIB:.1f}"


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def _s(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _x(value: float) -> str:
    return f"{value:.1f}×" if value < 100 else f"{value:,.0f}×"


def _name(r: dict[str, Any]) -> str:
    return r["name"] if r["registry"] == "synthetic" else f"{r['name']} {r['version']}"


def _real(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if r["registry"] != "synthetic"]


def _by_edges(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(results, key=lambda r: r["raw_edges"])


def _ok(flag: bool) -> str:
    return "**met**" if flag else "**missed**"


# ---------------------------------------------------------------------------------------------
# Verdicts


def verdicts(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    results = doc["results"]
    rows: list[tuple[str, str, str]] = []
    real = _by_edges(_real(results))

    ratios = {r["name"]: r["provider"]["affected"]["median_s"] / r["query"]["median_s"] for r in results}
    if real:
        largest = real[-1]
        ratio = ratios[largest["name"]]
        rows.append((
            f"whole-process `cm-graph query` ≥ 20× faster than `graphify affected` on the largest real "
            f"graph ({_name(largest)}, {largest['raw_edges']:,} edges)",
            f"{_x(ratio)} ({_ms(largest['query']['median_s'] * 1000)} ms against "
            f"{_s(largest['provider']['affected']['median_s'])} s)",
            _ok(ratio >= 20),
        ))
    slowest = min(results, key=lambda r: ratios[r["name"]])
    rows.append((
        "… and faster on every graph",
        f"smallest ratio {_x(ratios[slowest['name']])} ({_name(slowest)}); largest "
        f"{_x(max(ratios.values()))}",
        _ok(all(v > 1 for v in ratios.values())),
    ))

    fails_p50, fails_p95 = [], []
    worst_p50 = max(((r, q, r["latency"]["default"]["questions"][q]["p50_ms"]) for r in results for q in QUESTIONS),
                    key=lambda t: t[2])
    worst_p95 = max(((r, q, r["latency"]["default"]["questions"][q]["p95_ms"]) for r in results for q in QUESTIONS),
                    key=lambda t: t[2])
    for r in results:
        for q in QUESTIONS:
            stats = r["latency"]["default"]["questions"][q]
            if stats["p50_ms"] > 5:
                fails_p50.append(f"{_name(r)} {q} {_ms(stats['p50_ms'])} ms")
            if stats["p95_ms"] > 25:
                fails_p95.append(f"{_name(r)} {q} {_ms(stats['p95_ms'])} ms")
    rows.append((
        "in-process p50 ≤ 5 ms at default bounds, every graph and question",
        f"worst p50 {_ms(worst_p50[2])} ms ({_name(worst_p50[0])}, {worst_p50[1]})"
        + (f"; over: {', '.join(fails_p50)}" if fails_p50 else ""),
        _ok(not fails_p50),
    ))
    rows.append((
        "in-process p95 ≤ 25 ms at default bounds, every graph and question",
        f"worst p95 {_ms(worst_p95[2])} ms ({_name(worst_p95[0])}, {worst_p95[1]})"
        + (f"; over: {', '.join(fails_p95)}" if fails_p95 else ""),
        _ok(not fails_p95),
    ))
    named_over = [
        f"{_name(r)} `{t}` {key} {_ms(v['ms'])} ms"
        for r in results for t, row in r["named"].items() for key, v in row.items()
        if key.startswith("default/") and v["ms"] > 25
    ]
    if any(r["named"] for r in results):
        rows.append((
            "(not a target) every named adversarial target ≤ 25 ms at default bounds",
            "all within" if not named_over else "; ".join(named_over[:6]),
            _ok(not named_over),
        ))

    everything = _by_edges(results)
    for group, label in ((real, "real"), (everything, "all")):
        if len(group) < 2:
            continue
        small, large = group[0], group[-1]
        a = small["latency"]["default"]["pooled"]["p50_ms"]
        b = large["latency"]["default"]["pooled"]["p50_ms"]
        rows.append((
            f"largest graph's p50 within 2× of the smallest's ({label} graphs: {_name(large)} vs "
            f"{_name(small)}; all four questions pooled)",
            f"{_ms(b)} ms vs {_ms(a)} ms = {b / a:.2f}×",
            _ok(b <= 2 * a),
        ))

    build = {r["name"]: r["import"]["median_seconds"] / r["json_load"]["median_seconds"] for r in results}
    over = [f"{_name(r)} {_x(build[r['name']])}" for r in results if build[r["name"]] > 4]
    rows.append((
        "index build ≤ 4× `json.load` of the same graph.json, every graph",
        f"from {_x(min(build.values()))} to {_x(max(build.values()))}"
        + (f"; over 4×: {', '.join(over)}" if over else ""),
        _ok(not over),
    ))
    by_name = {r["name"]: r for r in results}
    points = [by_name[n] for n in ("synthetic-100k", "synthetic-500k") if n in by_name]
    if len(points) == 2:
        a, b = points
        grow_a = a["import"]["peak_rss_bytes"] - a["import"]["baseline_rss_bytes"]
        grow_b = b["import"]["peak_rss_bytes"] - b["import"]["baseline_rss_bytes"]
        rows.append((
            "index build peak RSS does not grow with the graph (100k and 500k edges)",
            f"100k: {_mib(a['import']['peak_rss_bytes'])} MiB peak ({_mib(grow_a)} over baseline); "
            f"500k: {_mib(b['import']['peak_rss_bytes'])} MiB ({_mib(grow_b)} over baseline); "
            f"`json.load`: {_mib(a['json_load']['peak_rss_bytes'])} → {_mib(b['json_load']['peak_rss_bytes'])} MiB",
            _ok(grow_b <= 1.25 * grow_a + 4 * MIB),
        ))
    start = doc["startup"]
    base = start["python_pass"]["median_s"]
    help_ratio = start["cm_graph_help"]["median_s"] / base
    rows.append((
        "`cm-graph --help` start cost ≤ 4× `python -c pass`",
        f"{_ms(start['cm_graph_help']['median_s'] * 1000)} ms vs {_ms(base * 1000)} ms = {_x(help_ratio)}",
        _ok(help_ratio <= 4),
    ))
    start_ratio = start["query_start"]["median_s"] / base
    rows.append((
        "a query's process start cost ≤ 4× `python -c pass` (everything a question loads, arguments "
        "parsed, stopped at its first check)",
        f"{_ms(start['query_start']['median_s'] * 1000)} ms = {_x(start_ratio)}",
        _ok(start_ratio <= 4),
    ))
    smallest = _by_edges(results)[0]
    query_ratio = smallest["query"]["median_s"] / base
    rows.append((
        "(not a target) a whole `cm-graph query` that answers and writes its packet, smallest graph",
        f"{_ms(smallest['query']['median_s'] * 1000)} ms ({_name(smallest)}) = {_x(query_ratio)} "
        "`python -c pass`",
        "–",
    ))
    guard_total = sum(len(r["guard"]["packets"]) for r in results)
    rows.append((
        "guard: packets identical after an index rebuild; CLI packet = in-process packet",
        f"{guard_total} packets over {len(results)} graphs; problems: {len(doc['problems'])}",
        _ok(not doc["problems"] and doc.get("complete", False)),
    ))
    return rows


# ---------------------------------------------------------------------------------------------
# Tables


def corpus_table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| graph | source | language | tracked files | raw nodes | raw edges | code nodes | kept edges "
        "| graph.json MiB | generation | provider extract s |",
        "|---|---|---|--:|--:|--:|--:|--:|--:|---|--:|",
    ]
    for r in _by_edges(results):
        source = {"pypi": "PyPI wheel", "npm": "npm tarball", "synthetic": "synthetic"}[r["registry"]]
        if r["registry"] == "synthetic":
            source = f"synthetic: {r['description']}"
        lines.append(
            f"| {_name(r)} | {source} | {r['language']} | {r['tracked_files']:,} | {r['raw_nodes']:,} "
            f"| {r['raw_edges']:,} | {r['code_nodes']:,} | {r['kept_edges']:,} | {_mib(r['graph_json_bytes'])} "
            f"| {r['completeness']} | {_s(r['provider_seconds']) if r['provider_seconds'] else '–'} |"
        )
    return "\n".join(lines)


def build_table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| graph | raw edges | build s | edges/s | build peak RSS MiB | baseline MiB | SQLite high water MiB "
        "| `json.load` s | `json.load` peak RSS MiB | build / `json.load` | index MiB | index / graph.json |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in _by_edges(results):
        imp, load = r["import"], r["json_load"]
        lines.append(
            f"| {_name(r)} | {r['raw_edges']:,} | {_s(imp['median_seconds'])} "
            f"| {r['raw_edges'] / imp['median_seconds']:,.0f} | {_mib(imp['peak_rss_bytes'])} "
            f"| {_mib(imp['baseline_rss_bytes'])} | {_mib(imp['sqlite_memory_high_water_bytes'])} "
            f"| {_s(load['median_seconds'])} | {_mib(load['peak_rss_bytes'])} "
            f"| {_x(imp['median_seconds'] / load['median_seconds'])} | {_mib(r['index_bytes'])} "
            f"| {r['index_bytes'] / r['graph_json_bytes']:.2f} |"
        )
    return "\n".join(lines)


def process_table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| graph | target (incoming edges) | `cm-graph query` ms | `graphify affected` s | `graphify explain` s "
        "| `graphify query` s | affected / ours | explain / ours | query / ours | provider resolved |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for r in _by_edges(results):
        ours = r["query"]["median_s"]
        p = r["provider"]
        resolved = ", ".join(f"{k} {'yes' if v['resolved'] else 'NO'}" for k, v in p.items())
        lines.append(
            f"| {_name(r)} | `{r['compare_target']['target']}` ({r['compare_target']['incoming']:,}) "
            f"| {_ms(ours * 1000)} | {_s(p['affected']['median_s'])} | {_s(p['explain']['median_s'])} "
            f"| {_s(p['query']['median_s'])} | {_x(p['affected']['median_s'] / ours)} "
            f"| {_x(p['explain']['median_s'] / ours)} | {_x(p['query']['median_s'] / ours)} | {resolved} |"
        )
    return "\n".join(lines)


def questions_cpu_table(results: list[dict[str, Any]]) -> str:
    """The question commands' whole-process cpu beside ``query``'s (``question_cpu.rounds``)."""
    lines = [
        "| graph | load before / after | `query` cpu ms (min / median / max) | `ask --json` | `context usage --json` "
        "| `status --json` | n |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for r in _by_edges(results):
        q = r.get("questions_cpu")
        if q is None:
            continue
        rows = q["rows"]
        cells = [f"{rows[name]['cpu_ms']['median']:.1f} ms ({rows[name]['cpu_over_query']:.2f}×)"
                 for name in ("ask --json", "context usage --json", "status --json")]
        c = rows["query"]["cpu_ms"]
        lines.append(
            f"| {_name(r)} | {q['load_1min_before']:.1f} / {q['load_1min_after']:.1f} "
            f"| {c['min']:.1f} / {c['median']:.1f} / {c['max']:.1f} | {' | '.join(cells)} | {q['rounds']} |"
        )
    return "\n".join(lines)


def latency_summary_table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| graph | code nodes | targets (every k-th) | default p50 ms | default p95 ms | default max ms "
        "| max-bounds p50 ms | max-bounds p95 ms | max-bounds max ms | `ask()` p50 ms | `cm-graph query` ms |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in _by_edges(results):
        d, m = r["latency"]["default"]["pooled"], r["latency"]["max"]["pooled"]
        lines.append(
            f"| {_name(r)} | {r['code_nodes']:,} | {r['targets_drawn']} (k={r['target_step']:,}) "
            f"| {_ms(d['p50_ms'])} | {_ms(d['p95_ms'])} | {_ms(d['max_ms'])} "
            f"| {_ms(m['p50_ms'])} | {_ms(m['p95_ms'])} | {_ms(m['max_ms'])} "
            f"| {_ms(r['ask_ms'].get('p50_ms'))} | {_ms(r['query']['median_s'] * 1000)} |"
        )
    return "\n".join(lines)


def graph_section(r: dict[str, Any]) -> str:
    out = [f"### {_name(r)}", ""]
    imp, load = r["import"], r["json_load"]
    out.append(
        f"{r['raw_nodes']:,} raw nodes, {r['raw_edges']:,} raw edges ({r['code_nodes']:,} code nodes, "
        f"{r['kept_edges']:,} kept edges), graph.json {_mib(r['graph_json_bytes'])} MiB, index "
        f"{_mib(r['index_bytes'])} MiB. Build {_s(imp['median_seconds'])} s "
        f"({_x(imp['median_seconds'] / load['median_seconds'])} `json.load`'s {_s(load['median_seconds'])} s), "
        f"peak RSS {_mib(imp['peak_rss_bytes'])} MiB (`json.load`: {_mib(load['peak_rss_bytes'])} MiB). "
        f"Whole-process `cm-graph query --question impact --target '{r['compare_target']['target']}'`: "
        f"{_ms(r['query']['median_s'] * 1000)} ms; `graphify affected`: "
        f"{_s(r['provider']['affected']['median_s'])} s."
    )
    out.append("")
    out.append("| question | bounds | p50 ms | p95 ms | max ms | slowest target | mean relations | max relations "
               "| mean documents | resolved | truncated |")
    out.append("|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|")
    for bound in ("default", "max"):
        for q in QUESTIONS:
            s = r["latency"][bound]["questions"][q]
            slow = s["slowest_target"]
            slow = slow if len(slow) <= 40 else slow[:37] + "…"
            out.append(
                f"| {q} | {bound} (depth {s['depth']}, budget {s['budget']}) | {_ms(s['p50_ms'])} "
                f"| {_ms(s['p95_ms'])} | {_ms(s['max_ms'])} | `{slow}` | {s['relations_mean']:.1f} "
                f"| {s['relations_max']} | {s['documents_mean']:.1f} | {s['resolved']}/{s['targets']} "
                f"| {s['truncated']} |"
            )
    if r["named"]:
        out.append("")
        out.append("Named targets (median of at least 5 runs; ms / relations reported; `*` = truncated):")
        out.append("")
        header = "| target | seeds |" + "".join(f" {b} {q} |" for b in ("default", "max") for q in QUESTIONS)
        out.append(header)
        out.append("|---|--:|" + "--:|" * 8)
        for target, row in r["named"].items():
            seeds = row["default/impact"]["seeds"]
            cells = "".join(
                f" {_ms(row[f'{b}/{q}']['ms'])} / {row[f'{b}/{q}']['relations']}"
                f"{'*' if row[f'{b}/{q}']['truncated'] else ''} |"
                for b in ("default", "max") for q in QUESTIONS
            )
            out.append(f"| `{target}` | {seeds} |{cells}")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Plot


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ordered = _by_edges(results)
    x = [r["raw_edges"] for r in ordered]
    real = [r["registry"] != "synthetic" for r in ordered]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))

    def series(ax: Any, values: list[float], label: str, color: str) -> None:
        """Real graphs joined by a line (●), synthetic ones as loose markers (▲)."""
        rx = [a for a, k in zip(x, real, strict=True) if k]
        ry = [v for v, k in zip(values, real, strict=True) if k]
        ax.plot(rx, ry, color=color, alpha=0.6, linewidth=1.2, marker="o", label=label, zorder=3)
        sx = [a for a, k in zip(x, real, strict=True) if not k]
        sy = [v for v, k in zip(values, real, strict=True) if not k]
        ax.scatter(sx, sy, color=color, marker="^", zorder=3)

    ax = axes[0]
    pooled = [r["latency"]["default"]["pooled"] for r in ordered]
    series(ax, [p["p50_ms"] for p in pooled], "in-process p50 (default bounds)", "tab:blue")
    series(ax, [p["p95_ms"] for p in pooled], "in-process p95 (default bounds)", "tab:cyan")
    series(ax, [r["latency"]["max"]["pooled"]["p95_ms"] for r in ordered], "in-process p95 (depth 4, budget 200)",
           "tab:purple")
    series(ax, [r["query"]["median_s"] * 1000 for r in ordered], "whole-process cm-graph query", "tab:green")
    series(ax, [r["provider"]["affected"]["median_s"] * 1000 for r in ordered], "graphify affected", "tab:red")
    ax.axhline(5, color="tab:blue", linestyle=":", linewidth=1)
    ax.axhline(25, color="tab:cyan", linestyle=":", linewidth=1)
    ax.set_title("Question latency")
    ax.set_ylabel("ms (log)")

    ax = axes[1]
    series(ax, [r["import"]["median_seconds"] for r in ordered], "index build", "tab:orange")
    series(ax, [r["json_load"]["median_seconds"] for r in ordered], "json.load", "tab:gray")
    series(ax, [4 * r["json_load"]["median_seconds"] for r in ordered], "4 × json.load (target)", "black")
    ax.lines[-1].set_linestyle(":")
    ax.set_title("Index build time")
    ax.set_ylabel("s (log)")

    ax = axes[2]
    series(ax, [r["import"]["peak_rss_bytes"] / MIB for r in ordered], "index build peak RSS", "tab:orange")
    series(ax, [r["json_load"]["peak_rss_bytes"] / MIB for r in ordered], "json.load peak RSS", "tab:gray")
    ax.set_title("Peak RSS (child VmHWM)")
    ax.set_ylabel("MiB (log)")

    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("raw edges in graph.json (log); ● real, ▲ synthetic")
        ax.grid(True, which="both", alpha=0.2)
        ax.legend(fontsize=7.5, loc="best", framealpha=0.85)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------


def _notes(existing: Path) -> str:
    if existing.is_file():
        text = existing.read_text(encoding="utf-8")
        if NOTES_START in text and NOTES_END in text:
            return text[text.index(NOTES_START): text.index(NOTES_END) + len(NOTES_END)]
    return f"{NOTES_START}\n(No notes yet.)\n{NOTES_END}"


def render(doc: dict[str, Any], notes: str) -> str:
    m = doc["machine"]
    results = doc["results"]
    settings = doc["settings"]
    start = doc["startup"]
    commit = m.get("cm_graph_commit", {})
    dirty = " with uncommitted changes in: " + ", ".join(
        f"`{line.split(maxsplit=1)[-1]}`" for line in commit.get("dirty_files", [])
    ) if commit.get("dirty") else ""
    parts = [
        "# Benchmarks",
        "",
        "Speed is why the index exists: repeat questions against one generation without re-parsing "
        "the provider's graph.json. This page measures it on real graphs and on synthetic graphs at "
        "the reader's limits, side by side with the provider's own commands on the same graph and "
        "target. Everything below (except the notes) is generated by `benchmarks/run.py` from one run "
        f"on this machine (finished {doc['finished_at']}, {doc['seconds'] / 60:.0f} minutes).",
        "",
        "## Targets",
        "",
        "| target (issue 8) | measured | verdict |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in verdicts(doc)],
        "",
        "![latency, build time and peak RSS against graph size](benchmarks.png)",
        "",
        "## Notes",
        "",
        notes,
        "",
        "## Machine and versions",
        "",
        "| fact | value |",
        "| --- | --- |",
        f"| `nproc` (affinity) | {m['nproc']} ({m['affinity_cpus']}) |",
        f"| RAM (`MemTotal`) | {m['mem_total_bytes'] / 1024 ** 3:.1f} GiB |",
        f"| kernel | Linux {m['kernel']} |",
        f"| Python | {m['python']} |",
        f"| apsw / SQLite | apsw {m['apsw']}, SQLite {m['sqlite']} |",
        f"| ijson | {m['ijson']} (backend `{m['ijson_backend']}`) |",
        f"| provider | graphifyy {m['graphifyy']} (networkx {m.get('networkx')}) |",
        f"| git | {m['git']} |",
        f"| cm-graph | {m['cm_graph']} (working tree at commit {commit.get('head')}{dirty}) |",
        f"| matplotlib | {m.get('matplotlib')} |",
        "",
        "## Commands",
        "",
        "```sh",
        "pip install -e '.[provider,bench]'   # bench = matplotlib, for the plot",
        f"python benchmarks/run.py {' '.join(doc['argv'])}".rstrip(),
        "python benchmarks/run.py --quick     # CI: small graphs, checks the harness and the packet guard",
        "python benchmarks/report.py /tmp/cm-graph-bench/run/results.json   # re-render this page",
        "# one index build under cProfile (stats in /tmp/cm-graph-bench/profiles/)",
        "python benchmarks/import_memory.py --package sympy==1.13.3 --repeat 1 --profile",
        "```",
        "",
        f"Settings of this run: {settings['repeat']} index builds and `json.load`s per graph (median time, "
        f"largest peak RSS), {settings['targets']} drawn targets × {settings['latency_repeat']} timings "
        f"(per-target median) per question and bounds, {settings['process_repeat']} runs of "
        f"`cm-graph query` and of the start-up commands, {settings['provider_repeat']} runs of each "
        "provider command (medians).",
        "",
        "What each measurement runs:",
        "",
        "- **Corpus.** Real graphs: the pinned provider, `graphify extract . --code-only --no-cluster`, "
        "run on a one-commit git repository (fixed dates) holding a release's sources: the top-level "
        "packages of a PyPI wheel, or the `package/` tree of `npm pack NAME@VERSION`. Synthetic "
        "graphs: `benchmarks/synthetic.py` writes a provider-shaped graph.json and per-file inventory "
        "(manifest.json) over a real repository whose files are long enough for every cited line. "
        "Each is published with `publish_provider_output(..., revision=\"HEAD\")` into a fresh state "
        "directory; every generation below was `complete`.",
        "- **Index build.** `ensure_index(workspace, rebuild=True)` in a fresh child interpreter, its "
        "modules (`cm_graph.index.importer` and what it imports) loaded before the clock starts, as the "
        "other child's `json` is; peak RSS is the child's own `VmHWM` (the `git` helpers it spawns "
        "are not included), the baseline is its high-water mark after imports. `json.load` is a "
        "plain `json.load` of the same graph.json in a fresh child: the floor for anything that "
        "reads the file.",
        "- **In-process latency.** One child opens the index once and times `answer(connection, "
        "QUESTIONS[q], target, depth, budget)` + `build_documents(answer, CitationChecker(connection), "
        "16)` for every question. Targets: every k-th node label in node-id order, k the largest prime "
        "≤ code nodes / targets (a prime step does not alias with the generated graphs' periods). "
        "Default bounds are the question's default depth (impact, dependency, "
        "related_tests 2; symbol 1) and budget 40; maximum bounds are depth 4, budget 200. p50/p95 "
        "are nearest-rank over the targets of the per-target medians; \"pooled\" pools the four "
        "questions. `ask()` adds what a caller of the library pays per question: the graph status "
        "check (trusting the artifact's stat seal), opening the index, the packet.",
        "- **Whole process.** `cm-graph query --question impact --target T --authorization auth.json "
        "--packet-out P --json --state-dir S --repo-path R` on a built index (auth.json from "
        "`cm-graph auth init ... --max-documents 16`).",
        "- **Provider.** `graphify affected T --graph graph.json`, `graphify explain T --graph "
        "graph.json`, `graphify query \"what calls T\" --graph graph.json`, each a fresh process "
        "(each loads graph.json into networkx, then answers). T is a node that `affected`'s and "
        "`explain`'s own resolvers pick uniquely and whose casefolded label no other node carries (so "
        "ours seeds that one node too), with the most incoming edges both impact walks follow "
        "(`calls`, `references`, `imports`; `affected` also follows `indirect_call` and "
        "`imports_from`, which this reader files under `related`). Note the answers differ in "
        "kind: `affected` walks every caller to depth 2 without a budget; ours is bounded "
        "(budget 40) and cites every relationship against the bound commit.",
        "- **Guard.** For a sample of targets (8 drawn targets spread evenly, the named ones and the "
        "comparison target) the "
        "packets of all four questions, through `ask()` with a fixed clock, are computed once, then "
        "again in another process after the index is rebuilt; they must be byte-identical. The "
        "packet `cm-graph query` wrote must equal the in-process one apart from the clock and the "
        "generation id. `--baseline OLD/results.json` compares the same normalised packets with an "
        "earlier run (before and after an optimisation).",
        "",
        "Start-up: `python -c pass` "
        f"{_ms(start['python_pass']['median_s'] * 1000)} ms, `cm-graph --help` "
        f"{_ms(start['cm_graph_help']['median_s'] * 1000)} ms, `cm-graph version` "
        f"{_ms(start['cm_graph_version']['median_s'] * 1000)} ms, a query's start "
        f"{_ms(start['query_start']['median_s'] * 1000)} ms; `python -c 'import cm_graph.cli.query'` "
        f"(the question path) {_ms(start['import_question_path']['median_s'] * 1000)} ms, `python -c "
        f"'import cm_graph.cli.app'` (the typer CLI every other command loads) "
        f"{_ms(start['import_cli']['median_s'] * 1000)} ms (medians; cm_graph's bytecode written first).",
        "",
        "## Corpus",
        "",
        corpus_table(results),
        "",
        "## Whole process: `cm-graph query` against the provider's commands",
        "",
        process_table(results),
        "",
        "Beside it, in cpu (user + system of the whole process and its children, `os.wait4`), the other "
        "question commands on the same graph and target, in rounds of one run each "
        "(`benchmarks/question_cpu.py`); × is the ratio of medians to `query`'s:",
        "",
        questions_cpu_table(results),
        "",
        "## In-process question latency",
        "",
        latency_summary_table(results),
        "",
        "## Import: time and peak memory",
        "",
        build_table(results),
        "",
        "## Per graph",
        "",
        *[graph_section(r) + "\n" for r in _by_edges(results)],
    ]
    return "\n".join(parts).rstrip() + "\n"


def write(doc: dict[str, Any], docs: Path) -> None:
    target = docs / "benchmarks.md"
    notes = _notes(target)
    plot(doc["results"], docs / "benchmarks.png")
    target.write_text(render(doc, notes), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--docs", type=Path, default=Path(__file__).resolve().parent.parent / "docs")
    args = parser.parse_args()
    write(json.loads(args.results.read_text()), args.docs)


if __name__ == "__main__":
    main()
