"""Import benchmark: wall time and peak memory of deriving an index from a real, large graph.

For each ``--package NAME[==VERSION]`` the script

1. downloads the package's wheel from PyPI with pip (a wheel is a zip of the sources), unpacks
   its top-level packages into a git repository under the cache directory and commits them;
2. runs the pinned provider there (``graphify extract . --code-only --no-cluster``) and moves
   ``graphify-out/`` out of the checkout, so the checkout stays clean;
3. publishes that output with cm-graph into a fresh state directory (not measured);
4. measures, each in a fresh child interpreter so its memory is its own:
   * ``import``: ``ensure_index(..., rebuild=True)``, its modules loaded first (stream graph.json into scratch
     tables, sort and number inside SQLite, count lines of cited blobs);
   * ``json.load``: a plain ``json.load`` of the same graph.json, for comparison.

Steps 1 and 2 are cached under ``--cache-dir`` (default ``/tmp/cm-graph-bench``) and reused:
the provider needs minutes on a large package. Peak RSS is the child's own ``VmHWM`` from
``/proc/self/status`` (the ``git`` helpers the importer spawns are separate processes and not
included); ``baseline`` is the child's high-water mark after its imports and before the
measured work.

    python benchmarks/import_memory.py --package rich==15.0.0 --package sympy==1.13.3

prints a Markdown table and writes the results as JSON (``--json-out``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

FIXED_DATE = "2026-01-01T12:00:00+00:00"
MIB = 1024 * 1024


# ---------------------------------------------------------------------------------------------
# Children: each runs in its own interpreter and prints one JSON object on stdout.


def _vm_hwm_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def child_import(repo: str, state: str, profile: str | None) -> dict[str, Any]:
    import apsw

    import cm_graph.index.importer  # noqa: F401 - loaded before the clock, as child_json's json is
    from cm_graph.generation.layout import Workspace
    from cm_graph.index.ensure import ensure_index

    workspace = Workspace.locate(Path(repo), Path(state))
    baseline = _vm_hwm_bytes()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    started = time.perf_counter()
    report = ensure_index(workspace, rebuild=True)
    seconds = time.perf_counter() - started
    if profiler is not None and profile:
        import pstats

        profiler.disable()
        with open(profile, "w", encoding="utf-8") as out:
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
    return {
        "seconds": seconds,
        "peak_rss_bytes": _vm_hwm_bytes(),
        "baseline_rss_bytes": baseline,
        # what SQLite itself allocated at most (page caches, sorter): the part of the peak
        # the PRAGMA cache_size settings bound, apart from the Python heap
        "sqlite_memory_high_water_bytes": apsw.memory_high_water(),
        "index_bytes": report.bytes,
        "counts": report.counts,
        "reused": report.reused,
    }


def child_json(graph: str) -> dict[str, Any]:
    baseline = _vm_hwm_bytes()
    started = time.perf_counter()
    with open(graph, "rb") as handle:
        document = json.load(handle)
    seconds = time.perf_counter() - started
    peak = _vm_hwm_bytes()
    return {
        "seconds": seconds,
        "peak_rss_bytes": peak,
        "baseline_rss_bytes": baseline,
        "nodes": len(document.get("nodes", [])),
        "edges": len(document.get("edges", document.get("links", []))),
    }


# ---------------------------------------------------------------------------------------------
# Parent: prepare the corpus, publish it, run and collect the children.


def _git(repo: Path, *args: str) -> str:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo.parent / "home"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE,
    }
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _split_spec(spec: str) -> tuple[str, str | None]:
    name, _, version = spec.partition("==")
    return name.strip(), (version.strip() or None)


def _download_wheel(spec: str, downloads: Path) -> Path:
    name, version = _split_spec(spec)
    downloads.mkdir(parents=True, exist_ok=True)
    before = set(downloads.glob("*.whl"))
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
         "-d", str(downloads), spec],
        check=True,
    )
    normal = name.lower().replace("-", "_")
    wheels = [
        w for w in downloads.glob("*.whl")
        if w.name.lower().startswith(f"{normal}-") and (version is None or f"-{version}-" in w.name)
    ]
    if not wheels:
        fresh = sorted(str(w.name) for w in set(downloads.glob("*.whl")) - before)
        raise SystemExit(f"pip downloaded no wheel for {spec} (new files: {fresh})")
    return max(wheels, key=lambda w: w.stat().st_mtime)


def _unpack_sources(wheel: Path, repo: Path) -> list[str]:
    """Unpack the wheel's top-level packages and modules (never its .dist-info/.data)."""
    tops: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            top = member.filename.split("/", 1)[0]
            if top.endswith((".dist-info", ".data")) or member.is_dir():
                continue
            if "__pycache__" in member.filename.split("/"):
                continue
            tops.add(top)
            archive.extract(member, repo)
    return sorted(tops)


def cached_meta(meta_path: Path, repo: Path, out: Path, name: str, log: Any) -> dict[str, Any] | None:
    """The recorded facts of a corpus entry made earlier, or None when it must be made again
    (missing output, or a checkout that no longer has the recorded commit)."""
    if not (meta_path.is_file() and (out / "graph.json").is_file()):
        return None
    meta: dict[str, Any] = json.loads(meta_path.read_text())
    if _git(repo, "rev-parse", "HEAD") != meta["commit"]:
        return None
    log(f"[{name}] reusing cached output in {meta_path.parent}")
    return meta


def checkout_facts(repo: Path, out: Path) -> dict[str, Any]:
    """What every corpus entry records about its checkout and its graph.json."""
    return {
        "commit": _git(repo, "rev-parse", "HEAD"),
        "repo": str(repo),
        "graphify_out": str(out),
        "graph_json_bytes": (out / "graph.json").stat().st_size,
    }


def provider_command() -> list[str]:
    beside = Path(sys.executable).parent / "graphify"
    return [str(beside)] if beside.is_file() else [shutil.which("graphify") or "graphify"]


def run_provider(home: Path, repo: Path, log: Any, name: str) -> float:
    """Run the pinned provider in ``repo``, move its output to ``home/graphify-out``, and say how
    many seconds it took; the checkout must be left clean."""
    command = [*provider_command(), "extract", ".", "--code-only", "--no-cluster"]
    log(f"[{name}] running the provider: {' '.join(command)}")
    private = home / "home"
    private.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(private), "XDG_CACHE_HOME": str(private / ".cache")}
    started = time.perf_counter()
    with open(home / "provider.log", "wb") as provider_log:
        subprocess.run(command, cwd=repo, env=env, stdout=provider_log, stderr=subprocess.STDOUT, check=True)
    seconds = time.perf_counter() - started
    shutil.move(str(repo / "graphify-out"), str(home / "graphify-out"))
    if _git(repo, "status", "--porcelain", "--untracked-files=all"):
        raise SystemExit(f"[{name}] the provider left files in the checkout")
    return seconds


def prepare_corpus(spec: str, cache: Path, log: Any) -> dict[str, Any]:
    """The checkout and the provider's output for ``spec``, made once and then reused."""
    name, version = _split_spec(spec)
    wheel = _download_wheel(spec, cache / "downloads") if version is None else None
    if wheel is not None:
        version = wheel.name.split("-")[1]
    home = cache / f"{name}-{version}"
    repo = home / "repo"
    out = home / "graphify-out"
    meta_path = home / "provider.json"
    cached = cached_meta(meta_path, repo, out, name, log)
    if cached is not None:
        return cached
    shutil.rmtree(home, ignore_errors=True)
    (home / "home").mkdir(parents=True)
    wheel = wheel or _download_wheel(f"{name}=={version}", cache / "downloads")
    log(f"[{name}] unpacking {wheel.name} into {repo}")
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    tops = _unpack_sources(wheel, repo)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"{name} {version} from its wheel")
    provider_seconds = run_provider(home, repo, log, name)
    meta = {
        "package": name,
        "version": version,
        "wheel": wheel.name,
        "top_level": tops,
        "tracked_files": len(_git(repo, "ls-files").splitlines()),
        **checkout_facts(repo, out),
        "provider_seconds": provider_seconds,
    }
    meta_path.write_text(json.dumps(meta, indent=2))
    return meta


def _run_child(args: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), *args], capture_output=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"child {args[0]} failed:\n{done.stderr.decode(errors='replace')}")
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def measure(
    meta: dict[str, Any], repeat: int, profile_dir: Path | None, log: Any
) -> dict[str, Any]:
    from cm_graph.generation.layout import Workspace
    from cm_graph.provider.publish import publish_provider_output

    name = meta["package"]
    with tempfile.TemporaryDirectory(prefix="cm-graph-bench-state-") as state:
        workspace = Workspace.locate(Path(meta["repo"]), Path(state))
        started = time.perf_counter()
        manifest, _coverage = publish_provider_output(workspace, Path(meta["graphify_out"]))
        publish_seconds = time.perf_counter() - started
        log(f"[{name}] published generation {manifest.generation} ({manifest.completeness}) "
            f"in {publish_seconds:.2f} s")
        imports = []
        for attempt in range(repeat):
            imports.append(_run_child(["child-import", meta["repo"], state]))
            log(f"[{name}] import {attempt + 1}/{repeat}: {imports[-1]['seconds']:.2f} s, "
                f"peak {imports[-1]['peak_rss_bytes'] / MIB:.1f} MiB")
        if profile_dir is not None:
            profile_dir.mkdir(parents=True, exist_ok=True)
            profile = profile_dir / f"{name}-{meta['version']}.import.prof.txt"
            _run_child(["child-import", meta["repo"], state, str(profile)])
            log(f"[{name}] cProfile of one import: {profile}")
    loads = []
    for attempt in range(repeat):
        loads.append(_run_child(["child-json", str(Path(meta["graphify_out"]) / "graph.json")]))
        log(f"[{name}] json.load {attempt + 1}/{repeat}: {loads[-1]['seconds']:.2f} s, "
            f"peak {loads[-1]['peak_rss_bytes'] / MIB:.1f} MiB")
    return {**meta, **summarise_builds(manifest.completeness, publish_seconds, imports, loads)}


def summarise_builds(
    completeness: str, publish_seconds: float, imports: list[dict[str, Any]], loads: list[dict[str, Any]]
) -> dict[str, Any]:
    """The measurement record of one graph's index builds and json.load runs (medians of time,
    largest peak RSS), shared by this script and run.py."""
    counts = imports[0]["counts"]
    return {
        "completeness": completeness,
        "raw_nodes": counts["raw_nodes"],
        "raw_edges": counts["raw_edges"],
        "code_nodes": counts["code_nodes"],
        "kept_edges": counts["edges"],
        "counts": counts,
        "publish_seconds": publish_seconds,
        "index_bytes": imports[0]["index_bytes"],
        "import": {
            "runs": imports,
            "median_seconds": statistics.median(r["seconds"] for r in imports),
            "peak_rss_bytes": max(r["peak_rss_bytes"] for r in imports),
            "baseline_rss_bytes": max(r["baseline_rss_bytes"] for r in imports),
            "sqlite_memory_high_water_bytes": max(
                r["sqlite_memory_high_water_bytes"] for r in imports
            ),
        },
        "json_load": {
            "runs": loads,
            "median_seconds": statistics.median(r["seconds"] for r in loads),
            "peak_rss_bytes": max(r["peak_rss_bytes"] for r in loads),
            "baseline_rss_bytes": max(r["baseline_rss_bytes"] for r in loads),
        },
    }


def machine_facts() -> dict[str, Any]:
    import apsw
    import ijson

    mem_total = 0
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                mem_total = int(line.split()[1]) * 1024

    def version(dist: str) -> str | None:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None

    return {
        "nproc": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)),
        "mem_total_bytes": mem_total,
        "kernel": platform.release(),
        "python": sys.version.split()[0],
        "apsw": apsw.apswversion(),
        "sqlite": apsw.sqlite_lib_version(),
        "ijson": version("ijson"),
        "ijson_backend": ijson.backend,
        "graphifyy": version("graphifyy"),
        "cm_graph": version("cm-graph"),
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
    }


def markdown_table(results: list[dict[str, Any]]) -> str:
    header = (
        "| package | files | raw nodes | raw edges | code nodes | kept edges | graph.json MiB "
        "| import s | import peak RSS MiB | import baseline MiB | SQLite high water MiB "
        "| json.load s | json.load peak RSS MiB | json.load baseline MiB | index MiB "
        "| provider s |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    )
    rows = []
    for r in results:
        imp, load = r["import"], r["json_load"]
        rows.append(
            f"| {r['package']} {r['version']} | {r['tracked_files']:,} | {r['raw_nodes']:,} "
            f"| {r['raw_edges']:,} | {r['code_nodes']:,} | {r['kept_edges']:,} "
            f"| {r['graph_json_bytes'] / MIB:.1f} | {imp['median_seconds']:.2f} "
            f"| {imp['peak_rss_bytes'] / MIB:.1f} | {imp['baseline_rss_bytes'] / MIB:.1f} "
            f"| {imp['sqlite_memory_high_water_bytes'] / MIB:.1f} "
            f"| {load['median_seconds']:.2f} "
            f"| {load['peak_rss_bytes'] / MIB:.1f} | {load['baseline_rss_bytes'] / MIB:.1f} "
            f"| {r['index_bytes'] / MIB:.1f} | {r['provider_seconds']:.0f} |"
        )
    return "\n".join([header, *rows])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "child-import":
        print(json.dumps(child_import(argv[1], argv[2], argv[3] if len(argv) > 3 else None)))
        return 0
    if argv and argv[0] == "child-json":
        print(json.dumps(child_json(argv[1])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--package", action="append", required=True,
                        help="NAME or NAME==VERSION of a PyPI package with a wheel (repeatable)")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement")
    parser.add_argument("--json-out", type=Path, default=None,
                        help="where to write the results (default: CACHE_DIR/results.json)")
    parser.add_argument("--profile", action="store_true",
                        help="also run one import under cProfile; stats go to CACHE_DIR/profiles/")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    cache = args.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    facts = machine_facts()
    log(f"machine: {json.dumps(facts)}")
    results = []
    for spec in args.package:
        meta = prepare_corpus(spec, cache, log)
        profiles = cache / "profiles" if args.profile else None
        results.append(measure(meta, args.repeat, profiles, log))
    table = markdown_table(results)
    print(table)
    out = args.json_out or cache / "results.json"
    out.write_text(json.dumps({"machine": facts, "results": results}, indent=2))
    log(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
