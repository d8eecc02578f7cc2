"""Benchmarks for the fleet (issue 17): a synthetic fleet of many members, and the real case.

    python benchmarks/fleet.py [--members 120] [--queries 300] [--out DIR]
    python benchmarks/fleet.py --real [--out DIR]

Synthetic: ``--members`` real git repositories (one commit each, fixed dates), each declaring the
package ``pkg<i>`` in pyproject.toml, with five modules of real Python import statements into
two other members' packages and provider-shaped graphs (file, class, method and function nodes,
the unbound import edges the pinned provider writes, a base class it only names). Each is
published as a complete generation (which derives its own index). Measured: the fleet index
build (twice, from the members' indexes) with its size and the reuse of an existing one;
``cross_repo_usages`` latency over ``--queries`` names (a unique class, a unique function, a
name every member defines, an unknown name) on the open index, p50/p95/max; ``doctor --fleet``
over 20 members.

Real (``--real``): requests 2.32.3, urllib3 2.2.3, idna 3.10 and charset-normalizer 3.4.0 from
their PyPI sdists (``pip download --no-binary :all: --no-deps``), each unpacked and committed to
its own git repository, built with the pinned provider through ``cm-graph refresh``, joined in
one fleet; ``cross_repo_usages`` for urllib3 names requests imports, and an ambiguous name.
Every cited line is read back from the bound commit and must contain the name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FIXED_BUILT_AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
FIXED_DATE = "2026-01-01T12:00:00+00:00"
MODULES = 5
CLASSES_PER_MODULE = 12
METHODS_PER_CLASS = 4
SDISTS = ("requests==2.32.3", "urllib3==2.2.3", "idna==3.10", "charset-normalizer==3.4.0")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, check=True,
                          text=True).stdout.strip()


def _commit(repo: Path) -> None:
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "import")


def sdist_repo(sdist: Path, out: Path) -> Path:
    """``sdist`` unpacked under ``out/real`` and committed as one commit (done once: reused after)."""
    repo = out / "real" / sdist.name.removesuffix(".tar.gz")
    if not (repo / ".git").is_dir():
        shutil.rmtree(repo, ignore_errors=True)
        with tarfile.open(sdist) as archive:
            top = archive.getnames()[0].split("/")[0]
            archive.extractall(out / "real" / "unpack", filter="data")
        shutil.move(out / "real" / "unpack" / top, repo)
        _commit(repo)
    return repo


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


# -- synthetic ------------------------------------------------------------------------------

def _member_files(i: int, count: int) -> tuple[dict[str, str], dict[str, Any]]:
    """One member's files and its provider-shaped graph."""
    rng = random.Random(i)
    targets = sorted({(i + 1) % count, rng.randrange(count)} - {i}) or [(i + 1) % count]
    files = {"pyproject.toml": f'[project]\nname = "pkg{i}"\nversion = "1.0"\n', f"pkg{i}/__init__.py": ""}
    nodes: list[dict[str, Any]] = [{"id": "base", "label": "Base", "file_type": "code", "source_file": "",
                                    "source_location": ""}]
    edges: list[dict[str, Any]] = []
    for m in range(MODULES):
        path = f"pkg{i}/mod{m}.py"
        fid = f"pkg{i}_mod{m}"
        lines = [f"from pkg{t}.mod0 import Widget, helper_{t}, Class{t}_0_0" for t in targets]
        lines += ["", ""]
        nodes.append({"id": fid, "label": f"mod{m}.py", "file_type": "code", "source_file": path,
                      "source_location": "L1"})
        for n, t in enumerate(targets, start=1):
            edges.append({"source": fid, "target": f"pkg{t}_mod0", "relation": "imports_from",
                          "confidence": "EXTRACTED", "source_file": path, "source_location": f"L{n}", "weight": 1.0})
        classes = [("Widget" if m == 0 and c == 0 else f"Class{i}_{m}_{c}") for c in range(CLASSES_PER_MODULE)]
        for c, name in enumerate(classes):
            line = len(lines) + 1
            cid = f"{fid}_{name.lower()}"
            lines += [f"class {name}(Base):", "    pass"]
            nodes.append({"id": cid, "label": name, "file_type": "code", "source_file": path,
                          "source_location": f"L{line}", "_callable": True, "_callable_class": True})
            edges.append({"source": fid, "target": cid, "relation": "contains", "confidence": "EXTRACTED",
                          "source_file": path, "source_location": f"L{line}", "weight": 1.0})
            edges.append({"source": cid, "target": "base", "relation": "inherits", "confidence": "EXTRACTED",
                          "source_file": path, "source_location": f"L{line}", "weight": 1.0})
            for k in range(METHODS_PER_CLASS):
                mline = len(lines) + 1
                method = ("get", "run", "close", f"op{c}_{k}")[k]
                lines += [f"    def {method}(self):", "        return 1"]
                mid = f"{cid}_{method}"
                nodes.append({"id": mid, "label": f".{method}()", "file_type": "code", "source_file": path,
                              "source_location": f"L{mline}", "_callable": True})
                edges.append({"source": cid, "target": mid, "relation": "method", "confidence": "EXTRACTED",
                              "source_file": path, "source_location": f"L{mline}", "weight": 1.0})
        if m == 0:
            line = len(lines) + 1
            lines += [f"def helper_{i}():", "    return 2"]
            nodes.append({"id": f"{fid}_helper", "label": f"helper_{i}()", "file_type": "code", "source_file": path,
                          "source_location": f"L{line}", "_callable": True})
        files[path] = "\n".join(lines) + "\n"
    graph = {"nodes": nodes, "edges": edges, "hyperedges": [], "input_tokens": 0, "output_tokens": 0,
             "extracted_sources": []}
    return files, graph


def make_synthetic_fleet(out: Path, count: int) -> tuple[Path, list[Path]]:
    from cm_graph.generation.layout import Workspace
    from cm_graph.provider.publish import publish_provider_output

    state = out / "state"
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    repos = []
    for i in range(count):
        repo = out / "repos" / f"member{i:03d}"
        files, graph = _member_files(i, count)
        if not (repo / ".git").is_dir():
            for name, text in files.items():
                (repo / name).parent.mkdir(parents=True, exist_ok=True)
                (repo / name).write_text(text)
            _commit(repo)
            graphify = out / "graphify" / f"member{i:03d}"
            graphify.mkdir(parents=True, exist_ok=True)
            (graphify / "graph.json").write_text(json.dumps(graph))
            digests = {name: hashlib.md5(text.encode()).hexdigest() for name, text in files.items()}
            inventory = {name: {"mtime": 0.0, "seen": 0.0, "ast_hash": digest, "semantic_hash": digest}
                         for name, digest in digests.items()}
            (graphify / "manifest.json").write_text(json.dumps(inventory))
            publish_provider_output(Workspace.locate(repo, state), graphify, revision="HEAD", built_at=FIXED_BUILT_AT)
        repos.append(repo)
    return state, repos


def synthetic(out: Path, count: int, queries: int) -> dict[str, Any]:
    from cm_graph.fleet.build import open_fleet
    from cm_graph.fleet.doctor import fleet_doctor
    from cm_graph.fleet.members import add_member, member_from
    from cm_graph.fleet.usages import cross_repo_usages

    started = time.perf_counter()
    state, repos = make_synthetic_fleet(out, count)
    log(f"{count} members published in {time.perf_counter() - started:.1f} s")
    shutil.rmtree(state / "fleet", ignore_errors=True)
    for repo in repos:
        add_member(state, "bench", member_from(state, connection=None, repo_path=repo, repository=None))
    for repo in repos[:20]:
        add_member(state, "twenty", member_from(state, connection=None, repo_path=repo, repository=None))
    timings: dict[str, Any] = {"build_s": []}  # two derivations of the fleet file from the members' indexes
    for run in range(2):
        for old in (state / "fleet" / "bench").glob("*.sqlite"):
            old.unlink()
        t = time.perf_counter()
        fleet = open_fleet(state, "bench")
        timings["build_s"].append(round(time.perf_counter() - t, 2))
        if run == 0:
            fleet.close()
    t = time.perf_counter()
    open_fleet(state, "bench").close()
    timings["open_reuse_s"] = round(time.perf_counter() - t, 3)
    size = fleet.path.stat().st_size
    counts = {table: fleet.connection.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
              for table in ("members", "symbols", "references_out")}
    rng = random.Random(7)
    names = []
    for _ in range(queries):
        i = rng.randrange(count)
        names.append(rng.choice([f"Class{i}_{rng.randrange(MODULES)}_{rng.randrange(1, CLASSES_PER_MODULE)}",
                                 f"helper_{i}", f"pkg{i}.mod0.Widget", "Widget", "nowhere_defined"]))
    latencies: dict[str, list[float]] = {}
    for name in names:
        t = time.perf_counter()
        answer = cross_repo_usages(fleet, name)
        latencies.setdefault(answer["status"], []).append((time.perf_counter() - t) * 1000)
    everything = [v for values in latencies.values() for v in values]
    fleet.close()
    doctor_runs = []
    for _ in range(3):
        t = time.perf_counter()
        report = fleet_doctor(state, "twenty")
        doctor_runs.append(time.perf_counter() - t)
    return {
        "members": count, "fleet_index_bytes": size, "rows": counts, **timings,
        "usages_ms": {"queries": len(everything), "p50": round(statistics.median(everything), 3),
                      "p95": round(_percentile(everything, 0.95), 3), "max": round(max(everything), 3),
                      "by_status": {k: {"n": len(v), "p50": round(statistics.median(v), 3)}
                                    for k, v in sorted(latencies.items())}},
        "doctor_20_members_s": {"median": round(statistics.median(doctor_runs), 3), "verdict": report["verdict"]},
    }


# -- real ------------------------------------------------------------------------------------

def real(out: Path) -> dict[str, Any]:
    from cm_graph.fleet.build import open_fleet
    from cm_graph.fleet.members import add_member, member_from
    from cm_graph.fleet.usages import cross_repo_usages

    downloads = out / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    if len(list(downloads.glob("*.tar.gz"))) < len(SDISTS):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                        "-d", str(downloads), *SDISTS], check=True)
    state = out / "real-state"
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    cm_graph = Path(sys.executable).parent / "cm-graph"
    builds = {}
    repos = {}
    for sdist in sorted(downloads.glob("*.tar.gz")):
        repo = sdist_repo(sdist, out)
        t = time.perf_counter()
        done = subprocess.run([str(cm_graph), "refresh", "--repo-path", str(repo), "--state-dir", str(state), "--json"],
                              capture_output=True, text=True, check=False)
        summary = json.loads(done.stdout) if done.stdout.strip() else {"stderr": done.stderr}
        name = repo.name.rsplit("-", 1)[0]
        builds[name] = {"seconds": round(time.perf_counter() - t, 1), "code_nodes": summary.get("code_nodes"),
                        "completeness": summary.get("completeness"), "contained": summary.get("contained")}
        repos[name] = repo
    shutil.rmtree(state / "fleet", ignore_errors=True)
    for name, repo in sorted(repos.items()):
        add_member(state, "deps", member_from(state, connection=None, repo_path=repo, repository=name))
    t = time.perf_counter()
    fleet = open_fleet(state, "deps")
    build_seconds = round(time.perf_counter() - t, 2)
    answers = {}
    for symbol in ("PoolManager", "parse_url", "Retry", "HTTPError", "urllib3.exceptions.HTTPError"):
        answer = cross_repo_usages(fleet, symbol)
        name = answer["name"]
        checked = []
        for key in ("usages_by_repository", "name_matches_by_repository"):
            for repository, group in answer[key].items():
                commit = _git(repos[repository], "rev-parse", "HEAD")
                for item in group["items"]:
                    text = _git(repos[repository], "show", f"{commit}:{item['path']}").splitlines()
                    statement = "\n".join(text[item["line"] - 1:item["line"] + 8])  # a parenthesised import
                    checked.append(name in statement)
        answers[symbol] = {
            "status": answer["status"],
            "definitions": [f"{d['repository']}:{d['citation']}" for d in answer["definitions"]],
            "usages": {r: [f"{i['citation']} [{i['anchor']}] -> {i.get('definition') or i.get('candidates')}"
                           for i in g["items"]] for r, g in answer["usages_by_repository"].items()},
            "citations_read_back": f"{sum(checked)}/{len(checked)}",
        }
    coverage = cross_repo_usages(fleet, "PoolManager")["coverage"]
    fleet.close()
    return {"builds": builds, "fleet_index_seconds": build_seconds, "fleet_index_bytes": fleet.path.stat().st_size,
            "coverage": coverage, "answers": answers}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--members", type=int, default=120)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--real", action="store_true", help="the requests/urllib3/idna/charset-normalizer fleet")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "fleet")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    result = real(args.out) if args.real else synthetic(args.out, args.members, args.queries)
    print(json.dumps(result, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
