"""Cold build, same-tree refresh and one-file refresh with the real provider, byte-identity checked.

For each PyPI package (the one-commit wheel repositories of ``import_memory.prepare_corpus``,
cached under ``--cache-dir``) this clones the corpus repository into a temp dir and times the
installed ``cm-graph`` command, each step a whole process:

1. ``build`` of the commit into a fresh state dir (cold: no provider cache);
2. an empty commit (same tree), ``refresh`` (published from the current artifact);
3. a commit changing one module (a function appended), ``refresh`` (provider seeded with its
   private per-file cache);
4. ``build`` of that commit into a second fresh state dir (cold), and a byte comparison of the
   two ``graph.bin`` (warm against cold).

    python benchmarks/refresh.py sympy==1.13.3 requests==2.32.3 [--sandbox off] [--json-out F]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import import_memory  # noqa: E402

git = import_memory._git
CM_GRAPH = Path(sys.executable).parent / "cm-graph"


def timed_cm_graph(*args: str) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    done = subprocess.run([str(CM_GRAPH), *args, "--json"], capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"cm-graph {' '.join(args)} failed: {done.stderr.decode(errors='replace')}")
    return seconds, json.loads(done.stdout)


def artifact(state: Path) -> bytes:
    (current,) = state.glob("graph/*/current")
    generation = current.read_text().strip()
    return (current.parent / "generations" / generation / "graph.bin").read_bytes()


def one_module(repo: Path) -> str:
    """The largest tracked .py file (a realistic edit target, and the worst case to re-parse)."""
    sizes = git(repo, "ls-files", "-s", "--", "*.py").splitlines()
    paths = [line.split("\t", 1)[1] for line in sizes]
    return max(paths, key=lambda path: (repo / path).stat().st_size)


def measure(spec: str, cache: Path, sandbox: str, log: Any) -> dict[str, Any]:
    meta = import_memory.prepare_corpus(spec, cache, log)
    with tempfile.TemporaryDirectory(prefix="cm-graph-refresh-") as temp:
        work = Path(temp)
        repo = work / "repo"
        subprocess.run(["git", "clone", "-q", meta["repo"], str(repo)], check=True)
        for key, value in (("user.name", "bench"), ("user.email", "bench@example.invalid")):
            git(repo, "config", key, value)
        where = ["--repo-path", str(repo), "--sandbox", sandbox]
        log(f"[{spec}] cold build")
        cold, built = timed_cm_graph("build", *where, "--state-dir", str(work / "state"))
        git(repo, "commit", "-q", "--allow-empty", "-m", "same tree")
        log(f"[{spec}] same-tree refresh")
        same, same_out = timed_cm_graph("refresh", *where, "--state-dir", str(work / "state"))
        module = one_module(repo)
        with open(repo / module, "a", encoding="utf-8") as handle:
            handle.write("\n\ndef cm_graph_refresh_benchmark():\n    return 1\n")
        git(repo, "commit", "-q", "-am", "one file changed")
        log(f"[{spec}] one-file refresh ({module})")
        warm, warm_out = timed_cm_graph("refresh", *where, "--state-dir", str(work / "state"))
        log(f"[{spec}] cold build of the one-file commit")
        cold2, _ = timed_cm_graph("build", *where, "--state-dir", str(work / "cold"))
        identical = artifact(work / "state") == artifact(work / "cold")
    return {
        "package": spec, "tracked_files": meta["tracked_files"], "edges": built["edges"],
        "graph_bytes": built["graph_bytes"], "sandbox": sandbox, "changed_file": module,
        "cold_build_s": round(cold, 2), "same_tree_refresh_s": round(same, 2),
        "same_tree_extract_s": same_out["extract_seconds"],
        "one_file_refresh_s": round(warm, 2), "one_file_extract_s": warm_out["extract_seconds"],
        "cold_build_of_changed_commit_s": round(cold2, 2),
        "one_file_refresh_pct_of_cold": round(100 * warm / cold2, 1),
        "warm_graph_bin_identical_to_cold": identical,
        "completeness": warm_out["completeness"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--sandbox", default="off", choices=("auto", "required", "off"))
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    cache = args.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    results = [measure(spec, cache, args.sandbox, log) for spec in args.specs]
    text = json.dumps(results, indent=2)
    if args.json_out:
        args.json_out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
