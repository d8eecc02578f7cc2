"""Running a project's whole test suite with one fault in it, and pytest-testmon beside it.

Everything runs as trace_python.py runs a suite: in a **scratch copy** of the bound commit (``git
archive``; the checkout is never touched), installed editable into a virtualenv of its own (the
package's pinned test requirements plus pytest-testmon and coverage.py, from PyPI, installed once
with network), behind a network namespace with only a loopback interface (``isolation()``). A
fault is written into the scratch copy for one run and the file's own bytes put back after it.

A suite run is cached by content hash (``runs/<sha256>.json``: the package, the commit, the test
paths, the faulted file and its bytes, ``RUN_FORMAT``), so a re-run of the benchmark only runs
what changed. A small pytest plugin (written at run time, loaded with ``-p``) records each node
id's outcome (failed in any phase is failed) and whether collection failed anywhere.

testmon is run as it documents: one ``pytest --testmon`` of the unfaulted suite records its
database (``TESTMON_DATAFILE``, outside the scratch copy); for each fault a fresh copy of that
database and ``pytest --testmon --testmon-nocollect --collect-only -q`` print the tests testmon
selects for the changed file (its whole-process time is its time to select).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trace_python

RUN_FORMAT = 1
TESTMON = ("pytest-testmon==2.2.0", "coverage==7.6.10")

PLUGIN = r'''
import json, os

OUT = os.environ["FAULT_OUTCOME_OUT"]
_tests = {}
_broken = []


def pytest_collectreport(report):
    if report.failed:
        _broken.append(report.nodeid)


def pytest_runtest_logreport(report):
    held = _tests.get(report.nodeid)
    if report.failed:
        _tests[report.nodeid] = "failed"
    elif report.skipped and held != "failed":
        _tests[report.nodeid] = "skipped"
    elif held is None:
        _tests[report.nodeid] = "passed"


def pytest_sessionfinish(session, exitstatus):
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump({"exit": int(exitstatus), "tests": _tests, "collection_errors": _broken}, out)
'''


@dataclass
class Suite:
    """One package's scratch copy, its venv and how its suite is run."""

    key: str
    commit: str
    scratch: Path
    python: Path
    home: Path
    tests: tuple[str, ...]
    prefix: list[str]

    def env(self) -> dict[str, str]:
        env = trace_python._environment(self.python, self.home)
        env["PYTHONPATH"] = str(self.home / "plugin")
        return env


def prepare(key: str, repo: Path, commit: str, home: Path, tests: tuple[str, ...], requirements: tuple[str, ...],
            backends: tuple[str, ...], log: trace_python.Log) -> Suite:
    """The scratch copy of ``commit``, installed into ``home/venv`` (with testmon), no network."""
    prefix = trace_python.isolation()
    python = trace_python._venv(home, (*requirements, *TESTMON), backends, log, name="venv")
    scratch = trace_python.scratch_copy(repo, commit, home / "scratch")
    trace_python.install_scratch(python, scratch, home, prefix)
    (home / "plugin").mkdir(parents=True, exist_ok=True)
    (home / "plugin" / "fault_outcome_plugin.py").write_text(PLUGIN, encoding="utf-8")
    (home / "runs").mkdir(exist_ok=True)
    return Suite(key, commit, scratch, python, home, tests, prefix)


class faulted:
    """``with faulted(suite, path, data):`` the scratch copy holds ``data`` at ``path``, then its own bytes."""

    def __init__(self, suite: Suite, path: str | None, data: bytes | None) -> None:
        self.target = suite.scratch / path if path else None
        self.data = data
        self.own: bytes | None = None

    def __enter__(self) -> None:
        if self.target is not None and self.data is not None:
            self.own = self.target.read_bytes()
            self.target.write_bytes(self.data)

    def __exit__(self, *_: object) -> None:
        if self.target is not None and self.own is not None:
            self.target.write_bytes(self.own)


def run_suite(suite: Suite, path: str | None = None, data: bytes | None = None, timeout: float = 900) -> dict[str, Any]:
    """The outcome of every test of the whole suite, with ``data`` at ``path`` (None: unfaulted); cached."""
    digest = hashlib.sha256(json.dumps([RUN_FORMAT, suite.key, suite.commit, list(suite.tests), path]).encode())
    digest.update(data or b"")
    cached = suite.home / "runs" / f"{digest.hexdigest()}.json"
    if cached.is_file():
        found: dict[str, Any] = json.loads(cached.read_text())
        return found
    out = suite.home / "outcome-raw.json"
    out.unlink(missing_ok=True)
    env = {**suite.env(), "FAULT_OUTCOME_OUT": str(out)}
    started = time.perf_counter()
    with faulted(suite, path, data), open(suite.home / "pytest.log", "wb") as log:
        done = subprocess.run([*suite.prefix, str(suite.python), "-m", "pytest", "-p", "fault_outcome_plugin",
                               "-p", "no:cacheprovider", "-q", "-o", "addopts=", *suite.tests], cwd=suite.scratch,
                              env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
    seconds = time.perf_counter() - started
    if out.is_file():
        found = json.loads(out.read_text())
    elif data is not None:  # pytest stopped before a session: the fault broke a conftest's import
        found = {"exit": done.returncode, "tests": {}, "collection_errors": ["(pytest startup)"]}
    else:
        raise SystemExit(f"[{suite.key}] pytest wrote no outcomes (see {suite.home / 'pytest.log'})")
    found["seconds"] = round(seconds, 2)
    cached.write_text(json.dumps(found, sort_keys=True))
    return found


def _testmon_cache(suite: Suite) -> list[str]:
    """testmon reads the cache plugin's options (``--lf``), so it stays on, its directory outside the scratch copy."""
    return ["-o", f"cache_dir={suite.home / 'pytest-cache'}"]


def record_testmon(suite: Suite, timeout: float = 1800) -> dict[str, Any]:
    """testmon's database of the unfaulted suite (one ``pytest --testmon`` run), cached by commit."""
    database = suite.home / "testmon.base"
    marker = suite.home / "testmon.json"
    if database.is_file() and marker.is_file() and json.loads(marker.read_text()).get("commit") == suite.commit:
        recorded: dict[str, Any] = json.loads(marker.read_text())
        return recorded
    database.unlink(missing_ok=True)
    env = {**suite.env(), "TESTMON_DATAFILE": str(database)}
    started = time.perf_counter()
    with open(suite.home / "testmon-record.log", "wb") as log:
        done = subprocess.run([*suite.prefix, str(suite.python), "-m", "pytest", "--testmon", *_testmon_cache(suite),
                               "-q", "-o", "addopts=", *suite.tests], cwd=suite.scratch, env=env, stdout=log,
                              stderr=subprocess.STDOUT, timeout=timeout)
    recorded = {"commit": suite.commit, "exit": done.returncode, "seconds": round(time.perf_counter() - started, 2)}
    if not database.is_file():
        raise SystemExit(f"[{suite.key}] testmon recorded no database (see {suite.home / 'testmon-record.log'})")
    marker.write_text(json.dumps(recorded))
    return recorded


def select_testmon(suite: Suite, path: str, data: bytes, timeout: float = 600) -> tuple[list[str], float]:
    """The node ids testmon selects with ``data`` at ``path``, and the seconds it took."""
    work = suite.home / "testmon.work"
    shutil.copyfile(suite.home / "testmon.base", work)
    env = {**suite.env(), "TESTMON_DATAFILE": str(work)}
    with faulted(suite, path, data):
        started = time.perf_counter()
        done = subprocess.run([*suite.prefix, str(suite.python), "-m", "pytest", "--testmon", "--testmon-nocollect",
                               "--collect-only", "-q", *_testmon_cache(suite), "-o", "addopts=", *suite.tests],
                              cwd=suite.scratch, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - started
    ids = [line.strip() for line in done.stdout.splitlines() if "::" in line and not line.startswith(" ")]
    return ids, seconds
