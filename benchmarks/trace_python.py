"""A dynamic trace of a Python project's own test suite: which definitions each test executes, and
which call site called which definition. The binding truth for calls no static walk can bind
(``schema.load(...)`` on a fixture, a callback, a registry) and the "which tests execute X" truth.

The suite runs in a **scratch copy** of the bound commit (``git archive``: tracked files only; the
checkout is never touched), installed editable into a virtualenv of its own, inside a network
namespace with only a loopback interface (``unshare -n``, else ``bwrap --unshare-net``; with
neither the trace refuses rather than run the project's code on the network). A pytest plugin
(written here at run time, loaded with ``-p``) sets ``sys.setprofile`` around each test's whole
run protocol (setup, call, teardown: fixtures count, as coverage.py's test contexts count them)
and records, for every ``call`` event of a code object under the scratch copy:

* the code executed: ``(path, co_firstlineno, co_name)`` — the first line is the first
  decorator's for a decorated function, else its ``def``/``class`` line (bindings.py maps it to
  a definition of truth_python.py);
* the call edge ``(caller path, caller line, callee path, callee first line, callee name)`` when the calling
  frame is in the scratch copy too (the caller line is ``f_back.f_lineno``: the line of the
  instruction making the call, inside the call expression's span).

Limits: import-time execution (collection) belongs to no test; C code calling back into Python
(``map(f, xs)``) shows the Python frame that called the C function as the caller; a generator's
resumption is a ``call`` from whoever resumed it; tests of other threads are traced through
``threading.setprofile`` only for threads started during the test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Log = Callable[[str], None]
TRACE_FORMAT = 2  # bumped whenever the plugin records something else: a cached trace is then made again

PLUGIN = r'''
import json, os, sys, threading
import pytest

ROOT = os.path.realpath(os.environ["EVAL_TRACE_ROOT"]) + os.sep
OUT = os.environ["EVAL_TRACE_OUT"]
_relative = {}
_tests = {}
_edges = set()
_current = set()


def _rel(filename):
    found = _relative.get(filename)
    if found is None:
        real = os.path.realpath(filename)
        found = real[len(ROOT):] if real.startswith(ROOT) else ""
        _relative[filename] = found
    return found


def _profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    path = _rel(code.co_filename)
    if not path:
        return
    _current.add((path, code.co_firstlineno, code.co_name))
    back = frame.f_back
    if back is not None:
        caller = _rel(back.f_code.co_filename)
        if caller:
            _edges.add((caller, back.f_lineno, path, code.co_firstlineno, code.co_name))


def _test_location(item):
    obj = getattr(item, "obj", None)
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    if code is None:
        return None
    path = _rel(code.co_filename)
    return [path, code.co_firstlineno] if path else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _current.clear()
    threading.setprofile(_profile)
    sys.setprofile(_profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        entry = _tests.setdefault(item.nodeid, {"outcome": "passed"})
        entry["function"] = _test_location(item)
        entry["executed"] = sorted(_current)


def pytest_runtest_logreport(report):
    if report.failed:
        _tests.setdefault(report.nodeid, {})["outcome"] = "failed"
    elif report.skipped and report.when in ("setup", "call"):
        _tests.setdefault(report.nodeid, {})["outcome"] = "skipped"


def pytest_sessionfinish(session, exitstatus):
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump({"exit": int(exitstatus), "tests": _tests, "edges": sorted(_edges)}, out)
'''


@dataclass(frozen=True)
class Trace:
    """What the traced suite executed."""

    # node id -> {"outcome", "function": [path, first] | None, "executed": {(path, first, name)}}
    tests: dict[str, dict[str, Any]]
    edges: tuple[tuple[str, int, str, int, str], ...]
    exit_status: int
    seconds: float

    def executing(self, path: str, first: int, name: str) -> set[str]:
        """Node ids of the tests that executed the code object ``name`` starting at ``path:first``."""
        return {node for node, entry in self.tests.items() if (path, first, name) in entry["executed"]}


def isolation() -> list[str]:
    """A command prefix that runs a process without network (loopback only), or a refusal."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n", "--"]
    bwrap = shutil.which("bwrap")
    if bwrap and subprocess.run([bwrap, "--dev-bind", "/", "/", "--unshare-net", "true"],
                                capture_output=True).returncode == 0:
        return [bwrap, "--dev-bind", "/", "/", "--unshare-net", "--"]
    raise SystemExit("no network namespace (unshare -n or bwrap --unshare-net): the test suite is not run")


def _venv(home: Path, requirements: tuple[str, ...], backends: tuple[str, ...], log: Log,
          name: str = "testenv") -> Path:
    """The test virtualenv ``home/name`` (pinned requirements from PyPI, installed once, with network)."""
    venv = home / name
    python = venv / "bin" / "python"
    marker = venv / "eval-requirements.json"
    wanted = sorted((*requirements, *backends))
    if marker.is_file() and json.loads(marker.read_text()) == wanted and python.is_file():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    log(f"[trace] virtualenv {venv}: {' '.join(wanted)}")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *wanted], check=True)
    marker.write_text(json.dumps(wanted))
    return python


def run_trace(repo: Path, home: Path, tests: tuple[str, ...], requirements: tuple[str, ...],
              backends: tuple[str, ...], log: Log, timeout: float = 1800) -> Trace:
    """Trace the suite of ``repo``'s HEAD (cached in ``home/trace.json`` by commit)."""
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    cached = home / "trace.json"
    if cached.is_file():
        found = json.loads(cached.read_text())
        if found.get("commit") == commit and found.get("format") == TRACE_FORMAT and found.get("paths") == list(tests):
            return as_trace(found)
    prefix = isolation()
    python = _venv(home, requirements, backends, log)
    scratch = scratch_copy(repo, commit, home / "scratch")
    log(f"[trace] editable install of the scratch copy, no network: {' '.join(prefix)}")
    install_scratch(python, scratch, home, prefix)
    log(f"[trace] pytest {' '.join(tests)} under sys.setprofile, no network")
    found = trace_suite(scratch, python, tests, home, prefix, timeout=timeout)
    found.update(commit=commit, format=TRACE_FORMAT, paths=list(tests))
    cached.write_text(json.dumps(found))
    return as_trace(found)


def scratch_copy(repo: Path, commit: str, scratch: Path) -> Path:
    """The tracked files of ``commit`` in a fresh directory (``git archive``): the project's code
    runs there, never in the checkout."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    return scratch


def install_scratch(python: Path, scratch: Path, home: Path, prefix: list[str]) -> None:
    """``scratch`` installed editable into ``python``'s venv, behind ``prefix`` (no network, no
    build isolation: the backends are in the venv already)."""
    subprocess.run([*prefix, str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--no-build-isolation", "-e", str(scratch)], cwd=scratch, env=_environment(python, home),
                   check=True, stdout=subprocess.DEVNULL)


def _environment(python: Path, home: Path) -> dict[str, str]:
    private = home / "home"
    private.mkdir(parents=True, exist_ok=True)
    return {"PATH": f"{python.parent}:/usr/bin:/bin", "HOME": str(private), "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def trace_suite(scratch: Path, python: Path, tests: tuple[str, ...], home: Path, prefix: list[str],
                extra_path: tuple[Path, ...] = (), timeout: float = 1800) -> dict[str, Any]:
    """Run ``python -m pytest TESTS`` in ``scratch`` under the tracing plugin, behind ``prefix``
    (the network isolation); ``extra_path`` goes on PYTHONPATH after the plugin (a project that
    is not installed). The raw trace, with the suite's wall time."""
    plugin_dir = home / "plugin"
    plugin_dir.mkdir(parents=True, exist_ok=True)
    (plugin_dir / "eval_trace_plugin.py").write_text(PLUGIN, encoding="utf-8")
    out = home / "trace-raw.json"
    out.unlink(missing_ok=True)
    env = _environment(python, home)
    env.update(PYTHONPATH=":".join(str(p) for p in (plugin_dir, *extra_path)), EVAL_TRACE_ROOT=str(scratch),
               EVAL_TRACE_OUT=str(out))
    started = time.perf_counter()
    with open(home / "pytest.log", "wb") as pytest_log:
        subprocess.run([*prefix, str(python), "-m", "pytest", "-p", "eval_trace_plugin", "-p", "no:cacheprovider",
                        "-q", "-o", "addopts=", *tests], cwd=scratch, env=env, stdout=pytest_log,
                       stderr=subprocess.STDOUT, timeout=timeout)
    seconds = time.perf_counter() - started
    if not out.is_file():
        raise SystemExit(f"[trace] pytest wrote no trace (see {home / 'pytest.log'})")
    found: dict[str, Any] = json.loads(out.read_text())
    found["seconds"] = round(seconds, 2)
    return found


def as_trace(found: dict[str, Any]) -> Trace:
    edges = tuple((a, int(b), c, int(d), e) for a, b, c, d, e in found["edges"])
    tests = {node: {**entry, "executed": frozenset((p, int(n), c) for p, n, c in entry.get("executed", ()))}
             for node, entry in found["tests"].items()}
    return Trace(tests, edges, int(found["exit"]), float(found.get("seconds", 0.0)))
