"""What the text index costs a build (issue 20: at most +30 % build time, +50 % index bytes).

For each subject (sympy's real provider output, and the largest synthetic graph), the same
published generation is indexed in fresh processes, alternating between this checkout's importer
and a baseline, ``--runs`` times each; the report gives medians of wall and CPU time (the
process's own plus its children's: the scan worker and git), the index bytes and the ratios.

Baselines (``--baseline``):
- ``graph-only`` (default): this checkout's importer with the text scan taken out (lines are
  still counted, in the thread they always were), so the ratio is the text index's own cost;
- a git revision, e.g. ``58e55c7`` (the last commit before the text index): that tree's importer,
  exported with ``git archive``, as it was.

    python benchmarks/text_cost.py                       # sympy and synthetic-500k, 7 runs each
    python benchmarks/text_cost.py --subjects sympy --runs 9 --baseline 58e55c7
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

FIXED_BUILT_AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import synthetic  # noqa: E402

# One build in a fresh process, as a command-line user pays for it; prints one JSON line.
CHILD = r"""
import hashlib, json, resource, sys, tempfile, time
from pathlib import Path
code_root, mode, repo, state = sys.argv[1:5]
sys.path.insert(0, code_root)
from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import require_current
from cm_graph.index import importer
if mode == "graph-only":
    from cm_graph.base.git import BlobReader
    from cm_graph.index import text_index
    from cm_graph.index.mentions import MentionTable
    text_index.WORKER_FROM_GRAPH_BYTES = 1 << 62
    def read(self, census, cited, checkout, labels):
        by_path = {entry.path: entry for entry in census.entries}
        lines, table = {}, MentionTable(())
        with BlobReader(checkout) as blobs:
            for path in cited:
                entry = by_path.get(path)
                if entry is not None:
                    lines[path] = blobs.line_count(entry.blob, entry.size)
                    table.add_file(path, [])
        return lines, table
    text_index.TextScan.read = read
generation = require_current(Workspace.locate(Path(repo), Path(state)), require_complete=False)
with tempfile.TemporaryDirectory() as scratch:
    cpu = time.process_time()
    report = importer.build_index(generation, Path(scratch) / "index.sqlite", seal=False)
    cpu = time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    digest = hashlib.sha256(report.path.read_bytes()).hexdigest()
print(json.dumps({"wall": report.seconds, "cpu": cpu, "children_cpu": children.ru_utime + children.ru_stime,
                  "bytes": report.bytes, "sha256": digest}))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _subject(name: str, cache: Path, out: Path) -> tuple[Path, Path]:
    """(repository, published state) of one subject, prepared and published once (cached)."""
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.status import graph_status
    from cm_graph.provider.publish import publish_provider_output

    if name.startswith("synthetic"):
        spec = next(spec for spec in synthetic.SYNTHETIC if spec.name == name)
        meta = synthetic.prepare_synthetic(spec, 1.0, cache, log)
    else:
        package = next(package for package in corpus.REAL_PACKAGES if package.name == name)
        meta = corpus.prepare_real(package, cache, log)
    repo, state = Path(meta["repo"]), out / "state" / name
    workspace = Workspace.locate(repo, state)
    if not (state.is_dir() and graph_status(workspace, require_complete=False).usable):
        state.parent.mkdir(parents=True, exist_ok=True)
        publish_provider_output(workspace, Path(meta["graphify_out"]), revision="HEAD", built_at=FIXED_BUILT_AT)
    return repo, state


def _baseline_tree(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _build(code_root: Path, mode: str, repo: Path, state: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", CHILD, str(code_root), mode, str(repo), str(state)],
                          check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.splitlines()[-1]))


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "wall_median": round(statistics.median(r["wall"] for r in runs), 3),
        "wall_min": round(min(r["wall"] for r in runs), 3),
        "cpu_median": round(statistics.median(r["cpu"] + r["children_cpu"] for r in runs), 3),
        "bytes": runs[0]["bytes"],
        "sha256": sorted({r["sha256"] for r in runs}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subjects", default="sympy,synthetic-500k")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", default="graph-only", help="graph-only, or a git revision")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "text-cost")
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"baseline": opts.baseline, "runs": opts.runs}
    with tempfile.TemporaryDirectory() as scratch:
        if opts.baseline == "graph-only":
            baseline_root, baseline_mode = ROOT, "graph-only"
        else:
            baseline_root, baseline_mode = _baseline_tree(opts.baseline, Path(scratch)), "as-is"
        for name in opts.subjects.split(","):
            repo, state = _subject(name, opts.cache, opts.out)
            _build(ROOT, "as-is", repo, state)  # warm the page cache for both sides alike
            current: list[dict[str, Any]] = []
            baseline: list[dict[str, Any]] = []
            for run in range(opts.runs):
                baseline.append(_build(baseline_root, baseline_mode, repo, state))
                current.append(_build(ROOT, "as-is", repo, state))
                log(f"{name} run {run + 1}: baseline {baseline[-1]['wall']:.3f} s, with text index "
                    f"{current[-1]['wall']:.3f} s")
            entry = {"baseline": _summary(baseline), "with_text_index": _summary(current)}
            entry["wall_ratio"] = round(entry["with_text_index"]["wall_median"] / entry["baseline"]["wall_median"], 3)
            entry["cpu_ratio"] = round(entry["with_text_index"]["cpu_median"] / entry["baseline"]["cpu_median"], 3)
            entry["bytes_ratio"] = round(entry["with_text_index"]["bytes"] / entry["baseline"]["bytes"], 3)
            results[name] = entry
            log(f"{name}: {json.dumps(entry)}")
    (opts.out / "results.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
