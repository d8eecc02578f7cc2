"""The pytest plugin ``cm-graph tests record`` loads into a project's own suite: which code each test runs.

Copied into the sandbox and loaded with ``-p cm_graph_observer``, never imported by the rest of
the package: it runs under the project's interpreter, which may not have cm-graph installed, so
it depends on nothing but the standard library and pytest.

Around each test's whole run protocol (setup, call and teardown: what its fixtures run counts, as
coverage.py's per-test contexts count it) it sets ``sys.setprofile`` (and ``threading.setprofile``
for threads the test starts) and keeps, for every ``call`` event of a code object under the
scratch copy, ``(path, co_firstlineno, co_name)``: the first line is the first decorator's for a
decorated function, else its ``def``/``class`` line, which is the index's ``start_line``. Why
``sys.setprofile`` and not ``sys.monitoring``: the latter is Python 3.12+, and the interpreter a
project's suite runs under may be 3.11; why not coverage.py: it would have to be installed in
that interpreter, and a line tracer costs more than a call profiler for what is kept here (which
code objects ran, not which lines).

Import-time execution (collection) belongs to no test. At the session's end it writes one JSON
file: each test's outcome, its own function's place, the code it executed (sorted), pytest's
exit status and the collection errors.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import pytest

_where: dict[str, str] = {}  # "root" and "out", from the environment once pytest configures the plugin
_relative: dict[str, str] = {}
_tests: dict[str, dict[str, object]] = {}
_current: set[tuple[str, int, str]] = set()
_collect_errors: list[str] = []


def _rel(filename: str) -> str:
    found = _relative.get(filename)
    if found is None:
        # "<frozen os>", "<string>": no file; realpath would put them under the working directory
        real = os.path.realpath(filename) if os.path.isabs(filename) else ""
        root = _where["root"]
        found = real[len(root):] if real.startswith(root) else ""
        _relative[filename] = found
    return found


def _profile(frame, event, arg):  # type: ignore[no-untyped-def]
    if event != "call":
        return
    code = frame.f_code
    path = _rel(code.co_filename)
    if path:
        _current.add((path, code.co_firstlineno, code.co_name))


def _location(item) -> list[object] | None:  # type: ignore[no-untyped-def]
    obj = getattr(item, "obj", None)
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    if code is None:
        return None
    path = _rel(code.co_filename)
    return [path, code.co_firstlineno] if path else None


def pytest_configure(config):  # type: ignore[no-untyped-def]
    _where["root"] = os.path.realpath(os.environ["CM_GRAPH_OBSERVE_ROOT"]) + os.sep
    _where["out"] = os.environ["CM_GRAPH_OBSERVE_OUT"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # type: ignore[no-untyped-def]
    _current.clear()
    threading.setprofile(_profile)
    sys.setprofile(_profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        entry = _tests.setdefault(item.nodeid, {"outcome": "passed"})
        entry["function"] = _location(item)
        entry["executed"] = sorted(_current)


def pytest_runtest_logreport(report):  # type: ignore[no-untyped-def]
    entry = _tests.setdefault(report.nodeid, {"outcome": "passed"})
    if report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
    elif report.skipped and report.when in ("setup", "call") and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"


def pytest_collectreport(report):  # type: ignore[no-untyped-def]
    if report.failed:
        _collect_errors.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):  # type: ignore[no-untyped-def]
    temporary = _where["out"] + ".partial"
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump({"exit": int(exitstatus), "tests": _tests, "collect_errors": sorted(_collect_errors),
                   "pytest": pytest.__version__, "python": sys.version.split()[0]}, out, sort_keys=True)
    os.replace(temporary, _where["out"])
