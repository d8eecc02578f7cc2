"""Fault detection on real test suites (issue 29, first "Must show"): which tests each strategy
selects for a broken function, against the tests that really fail.

For each held-out Python package (heldout.py: a pinned sdist that ships its tests, one commit, a
real ``cm-graph build``), the functions and methods outside the test paths that the traced suite
executes (trace_python.py; fault_inject.py says which count) are taken in a seeded order
(``--seed``); each gets a fault (its body replaced by ``raise AssertionError``) in a scratch copy,
and the whole suite is run with it (fault_suite.py: no network, cached by content hash). The
tests that fail with the fault and pass without it are the truth. A fault that breaks collection
(the function runs at import time) or that no test fails is counted apart and the next one is
taken, until ``--faults`` are scored per package.

Every strategy is asked on the same faults, side by side (``STRATEGIES``, one row each):

* **cm-graph static**: ``cm-graph changes --format pytest-args`` on the faulted working tree of a
  clone of the checkout, built by ``cm-graph build`` (the whole process, timed);
* **pytest-testmon**: its own database recorded by one ``pytest --testmon`` run, then
  ``pytest --testmon --collect-only`` with the fault (the whole process, timed);
* **name in test file**: the test files whose text has the function's name as a word;
* **whole suite**: every test.

* **cm-graph recorded**: the same ``changes`` on a copy of the clone's state into which ``cm-graph
  tests record`` recorded the suite once (the suite's own venv, ``--python``): the observed tests
  first, then the static ones; Scores (fault_score.py): detection, safety, share of the suite, time to
select; the table gives n, the detection rate and min / median / max of the rest.

    nice -n 10 python benchmarks/faults.py [--cache /tmp/cm-graph-bench] [--faults 30] [--seed 29]
        [--packages marshmallow-3.23.2,markdown-3.7,toolz-1.0.0] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fault_inject  # noqa: E402
import fault_score  # noqa: E402
import fault_suite  # noqa: E402
import heldout  # noqa: E402
import trace_python  # noqa: E402

PACKAGES = ("marshmallow-3.23.2", "markdown-3.7", "toolz-1.0.0")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Project:
    """What the strategies of one package read: the clone cm-graph built, the suite, its files."""

    key: str
    work: Path  # a clone of the checkout (same commit) with its own cm-graph state
    state: Path
    suite: fault_suite.Suite
    recorded: Path  # a copy of ``state`` holding the map ``cm-graph tests record`` made
    node_ids: set[str]
    test_files: list[str]


@dataclass(frozen=True)
class Fault:
    candidate: fault_inject.Candidate
    data: bytes  # the faulted file


Select = Callable[[Project, Fault], tuple[list[str], float]]


@dataclass(frozen=True)
class Strategy:
    name: str
    how: str
    select: Select


def _select_cm_graph_changes(project: Project, fault: Fault) -> tuple[list[str], float]:
    return _changes(project, fault, project.state)


def _select_cm_graph_recorded(project: Project, fault: Fault) -> tuple[list[str], float]:
    return _changes(project, fault, project.recorded)


def _changes(project: Project, fault: Fault, state: Path) -> tuple[list[str], float]:
    target = project.work / fault.candidate.path
    own = target.read_bytes()
    target.write_bytes(fault.data)
    try:
        started = time.perf_counter()
        done = subprocess.run([*heldout.cm_graph_command(), "changes", "--format", "pytest-args", "--repo-path",
                               str(project.work), "--state-dir", str(state)], capture_output=True, text=True)
        seconds = time.perf_counter() - started
    finally:
        target.write_bytes(own)
    if done.returncode != 0:
        raise SystemExit(f"[{project.key}] cm-graph changes failed ({done.returncode}): {done.stderr[-400:]}")
    return [part for line in done.stdout.splitlines() for part in shlex.split(line)], seconds


def _select_testmon(project: Project, fault: Fault) -> tuple[list[str], float]:
    return fault_suite.select_testmon(project.suite, fault.candidate.path, fault.data)


def _select_mention(project: Project, fault: Fault) -> tuple[list[str], float]:
    started = time.perf_counter()
    word = re.compile(rf"\b{re.escape(fault.candidate.name)}\b")
    chosen = [path for path in project.test_files
              if word.search((project.work / path).read_text(encoding="utf-8", errors="replace"))]
    return chosen, time.perf_counter() - started


def _select_all(project: Project, fault: Fault) -> tuple[list[str], float]:
    return sorted(project.node_ids), 0.0


# One row per strategy.
STRATEGIES: tuple[Strategy, ...] = (
    Strategy("cm-graph static", "cm-graph changes --format pytest-args", _select_cm_graph_changes),
    Strategy("cm-graph recorded", "cm-graph changes --format pytest-args, after one cm-graph tests record",
             _select_cm_graph_recorded),
    Strategy("pytest-testmon", "pytest --testmon --testmon-nocollect --collect-only (its recorded database)",
             _select_testmon),
    Strategy("name in test file", "test files with the function's name as a word", _select_mention),
    Strategy("whole suite", "every test", _select_all),
)


def _recorded_state(work: Path, state: Path, suite: fault_suite.Suite, home: Path) -> tuple[Path, float]:
    """A copy of the clone's state with the suite recorded into it by ``cm-graph tests record`` (the
    suite's own venv, its test paths, modules that do not collect here left out), cached by commit."""
    recorded, marker = home / "recorded-state", home / "recorded.json"
    if marker.is_file() and recorded.is_dir():
        return recorded, float(json.loads(marker.read_text())["seconds"])
    subprocess.run(["rm", "-rf", str(recorded)], check=True)
    subprocess.run(["cp", "-a", str(state), str(recorded)], check=True)
    started = time.perf_counter()
    done = subprocess.run([*heldout.cm_graph_command(), "tests", "record", "--python", str(suite.python),
                           "--repo-path", str(work), "--state-dir", str(recorded), "--json", "--", *suite.tests,
                           "--continue-on-collection-errors"], capture_output=True, text=True)
    seconds = round(time.perf_counter() - started, 2)
    if done.returncode != 0:
        raise SystemExit(f"cm-graph tests record failed ({done.returncode}): {done.stderr[-400:]}")
    marker.write_text(json.dumps({"seconds": seconds, "summary": json.loads(done.stdout)["summary"]}))
    return recorded, seconds


def _work_clone(meta: dict[str, Any], home: Path) -> tuple[Path, Path, float]:
    """A clone of the checkout and a ``cm-graph build`` of it, cached by commit."""
    work, state, marker = home / "work", home / "state", home / "build.json"
    if marker.is_file() and json.loads(marker.read_text()).get("commit") == meta["commit"] and state.is_dir():
        return work, state, float(json.loads(marker.read_text())["seconds"])
    subprocess.run(["rm", "-rf", str(work), str(state)], check=True)
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", meta["repo"], str(work)], check=True)
    log(f"[{meta['package']}] cm-graph build of the clone")
    started = time.perf_counter()
    subprocess.run([*heldout.cm_graph_command(), "build", "--repo-path", str(work), "--state-dir", str(state)],
                   check=True, capture_output=True)
    seconds = round(time.perf_counter() - started, 2)
    marker.write_text(json.dumps({"commit": meta["commit"], "seconds": seconds}))
    return work, state, seconds


def measure(package: heldout.HeldOut, cache: Path, wanted: int, seed: int) -> dict[str, Any]:
    meta = heldout.prepare(package, cache, log)
    repo = Path(meta["repo"])
    trace = trace_python.run_trace(repo, cache / "heldout" / package.key, package.tests, package.test_requirements,
                                   heldout.BUILD_BACKENDS, log)
    home = cache / "heldout" / package.key / "faults"
    home.mkdir(parents=True, exist_ok=True)
    work, state, build_seconds = _work_clone(meta, home)
    suite = fault_suite.prepare(package.key, repo, meta["commit"], home, package.tests, package.test_requirements,
                                heldout.BUILD_BACKENDS, log)
    baseline = fault_suite.run_suite(suite)
    passing = {node for node, outcome in baseline["tests"].items() if outcome == "passed"}
    node_ids = set(baseline["tests"])
    testmon = fault_suite.record_testmon(suite)
    recorded, record_seconds = _recorded_state(work, state, suite, home)
    project = Project(package.key, work, state, suite, recorded, node_ids,
                      sorted({n.split("::", 1)[0] for n in node_ids}))
    executed = {key for entry in trace.tests.values() for key in entry["executed"]}
    files = heldout.git(repo, "ls-files").splitlines()
    found = fault_inject.candidates(repo, files, executed)
    faults: list[dict[str, Any]] = []
    skipped = {"broke_collection": 0, "no_failing_test": 0}
    for candidate in fault_inject.seeded_order(found, seed):
        if len(faults) >= wanted:
            break
        data = fault_inject.inject((repo / candidate.path).read_bytes(), candidate)
        truth = fault_suite.run_suite(suite, candidate.path, data)
        if truth["collection_errors"]:
            skipped["broke_collection"] += 1
            continue
        failing = {node for node in passing if truth["tests"].get(node, "failed") == "failed"}
        if not failing:
            skipped["no_failing_test"] += 1
            continue
        fault = Fault(candidate, data)
        row: dict[str, Any] = {"fault": candidate.key, "failing": len(failing), "strategies": {}}
        for strategy in STRATEGIES:
            selection, seconds = strategy.select(project, fault)
            scored = fault_score.score(selection, seconds, failing, node_ids)
            if strategy.name == "cm-graph static" and not scored["detected"]:
                scored["missed"] = {"failing_sample": sorted(failing)[:3], "selected_sample": selection[:3]}
            row["strategies"][strategy.name] = scored
        faults.append(row)
        log(f"[{package.key}] {len(faults)}/{wanted} {candidate.key}: {len(failing)} failing; " + ", ".join(
            f"{name} {'hit' if s['detected'] else 'MISS'} {s['share']:.2f}" for name, s in row["strategies"].items()))
    summary = {s.name: fault_score.summarise([f["strategies"][s.name] for f in faults]) for s in STRATEGIES}
    return {"package": package.key, "commit": meta["commit"], "suite": len(node_ids), "baseline_passing": len(passing),
            "baseline_seconds": baseline["seconds"], "candidates": len(found), "skipped": skipped,
            "cm_graph_build_seconds": build_seconds, "testmon_record_seconds": testmon["seconds"],
            "cm_graph_record_seconds": record_seconds,
            "faults": faults, "summary": summary}


def _fmt(spread: dict[str, float | None], digits: int = 2) -> str:
    if spread["min"] is None:
        return "-"
    return " / ".join(f"{spread[k]:.{digits}f}" for k in ("min", "median", "max"))


def markdown(results: list[dict[str, Any]]) -> str:
    out = ["| package (tests; faults scored, skipped) | strategy | n | detection | safety min / med / max | "
           "share of suite min / med / max | seconds to select min / med / max |", "|---|---|---|---|---|---|---|"]
    pooled: dict[str, list[dict[str, Any]]] = {s.name: [] for s in STRATEGIES}
    for result in results:
        skipped = result["skipped"]
        label = (f"{result['package']} ({result['suite']}; {len(result['faults'])}, "
                 f"{skipped['broke_collection']} broke collection + {skipped['no_failing_test']} no failing test)")
        for strategy in STRATEGIES:
            pooled[strategy.name] += [f["strategies"][strategy.name] for f in result["faults"]]
            out.append(_row(label, strategy.name, result["summary"][strategy.name]))
    for strategy in STRATEGIES:
        out.append(_row("**all**", strategy.name, fault_score.summarise(pooled[strategy.name])))
    return "\n".join(out) + "\n"


def _row(label: str, name: str, summary: dict[str, Any]) -> str:
    detection = "-" if summary["detection"] is None else f"{summary['detection']:.2f}"
    return (f"| {label} | {name} | {summary['n']} | {detection} | {_fmt(summary['safety'])} | "
            f"{_fmt(summary['share'], 3)} | {_fmt(summary['seconds'], 3)} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--faults", type=int, default=30)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--packages", default=",".join(PACKAGES))
    parser.add_argument("--json", type=Path, default=None)
    opts = parser.parse_args(argv)
    by_key = {p.key: p for p in heldout.HELDOUT if p.language == "Python"}
    wanted = opts.packages.split(",")
    unknown = [k for k in wanted if k not in by_key]
    if unknown:
        raise SystemExit(f"unknown package(s): {', '.join(unknown)} (known: {', '.join(by_key)})")
    load_before = os.getloadavg()
    started = time.perf_counter()
    results = [measure(by_key[key], opts.cache, opts.faults, opts.seed) for key in wanted]
    report = {"seed": opts.seed, "faults": opts.faults, "strategies": [[s.name, s.how] for s in STRATEGIES],
              "load_before": load_before, "load_after": os.getloadavg(), "cpus": os.cpu_count(),
              "seconds": round(time.perf_counter() - started, 1), "results": results}
    if opts.json:
        opts.json.write_text(json.dumps(report, indent=1, sort_keys=True))
    print(markdown(results))
    print(f"load average before {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f}, after "
          f"{report['load_after'][0]:.2f} / {report['load_after'][1]:.2f} / {report['load_after'][2]:.2f} "
          f"({report['cpus']} cpus); {report['seconds']} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
