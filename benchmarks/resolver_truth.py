"""The resolver benchmark's subjects and their truth: which call site called which definition.

A subject is a pinned PyPI release from its **sdist** (which ships the project's own test suite):
its files (less packaging metadata) are one commit of a git repository with fixed dates, built
with the real ``cm-graph build`` (the pinned provider, contained), so its index holds the graph
and the resolved layer of that commit.

The truth is a **dynamic trace of the project's own test suite**, independent of any static
resolver: the sdist unpacked again into a scratch directory (the repository is never touched),
installed editable into a virtualenv of its own with its test requirements (from PyPI, before
anything of the project runs), then pytest runs inside a network namespace whose only interface
is loopback (``unshare -n``; refused without it). A plugin written here sets ``sys.setprofile``
(and ``threading.setprofile``) from configuration to the end and records, for every ``call`` of a
code object under the scratch directory made from a frame under it, the caller's code (path,
``co_qualname``, ``co_firstlineno``), the lines the calling instruction spans (``co_positions``:
a call spread over lines is one span), and the callee's code. Collection (import time) counts,
so module-level and class-body callers are in it too.

Limits of the truth: only executed code is in it; a callee called from C (``map(f, xs)``,
operators, ``len``) shows the Python frame that called the C function; decorators that wrap a
function show the wrapper as the callee. ``resolver.py`` keeps only the edges a static reader
could see at all (the callee's name, or its class's for a constructor, is written in the span).

Cache layout, under ``<cache>/resolver/<key>``::

    repo/       the one-commit checkout        state/   cm-graph's state (cm-graph build)
    scratch/    the sdist unpacked for tests   venv/    the test virtualenv
    build.json  what the build reported        trace.json  the recorded edges
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import import_memory  # noqa: E402  (the fixed-date git runner every benchmark repository uses)

Log = Callable[[str], None]
git = import_memory._git
PYTEST = "pytest==8.3.4"
TRACE_FORMAT = 1
SDIST_SKIPPED = (".egg-info", "PKG-INFO")


@dataclass(frozen=True)
class Subject:
    name: str
    version: str
    tests: tuple[str, ...]
    requirements: tuple[str, ...] = (PYTEST,)
    pytest_args: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.name.lower()}-{self.version}"


# Held out: none of these is used anywhere else in this repository's benchmarks, docs or tests.
HELD_OUT: tuple[Subject, ...] = (
    Subject("pluggy", "1.5.0", ("testing",)),
    Subject("attrs", "24.2.0", ("tests",), (PYTEST, "hypothesis==6.112.1", "pympler==1.1", "cloudpickle==3.0.0"),
            ("-p", "no:mypy-plugins")),
    Subject("tomlkit", "0.13.2", ("tests",)),
    Subject("boltons", "24.1.0", ("tests",)),
)
# The engine comparison's subjects (docs/resolver.md): releases this project had measured before.
ENGINE_SUBJECTS: tuple[Subject, ...] = (
    Subject("click", "8.1.8", ("tests",)),
    Subject("jinja2", "3.1.4", ("tests",), (PYTEST, "MarkupSafe==2.1.5", "trio==0.27.0")),
)


def _sdist(subject: Subject, downloads: Path, log: Log) -> Path:
    downloads.mkdir(parents=True, exist_ok=True)
    wanted = f"{subject.name.lower()}-{subject.version}.tar.gz"
    for found in downloads.glob("*.tar.gz"):
        if found.name.lower() == wanted:
            return found
    log(f"[{subject.name}] pip download --no-binary :all: {subject.name}=={subject.version}")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "-d", str(downloads), f"{subject.name}=={subject.version}"], check=True)
    for found in downloads.glob("*.tar.gz"):
        if found.name.lower() == wanted:
            return found
    raise SystemExit(f"pip downloaded no {wanted}")


def _unpack(archive_path: Path, target: Path, *, metadata: bool) -> None:
    """The sdist's top directory into ``target`` (regular files only; packaging metadata only
    when ``metadata``: the test install needs PKG-INFO for its version, the repository does not)."""
    with tarfile.open(archive_path, "r:gz") as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if not member.isfile() or len(parts) < 2 or ".." in parts:
                continue
            if not metadata and any(part.endswith(SDIST_SKIPPED) for part in parts[1:]):
                continue
            destination = target.joinpath(*parts[1:])
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None
            destination.write_bytes(source.read())


def cm_graph_command() -> list[str]:
    beside = Path(sys.executable).parent / "cm-graph"
    return [str(beside)] if beside.is_file() else [shutil.which("cm-graph") or "cm-graph"]


def prepare(subject: Subject, cache: Path, log: Log) -> dict[str, Any]:
    """The subject's one-commit repository and a current generation of it, cached."""
    home = cache / "resolver" / subject.key
    repo = home / "repo"
    archive = _sdist(subject, cache / "downloads", log)
    if not (repo / ".git").is_dir():
        shutil.rmtree(home, ignore_errors=True)
        (home / "home").mkdir(parents=True)
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        _unpack(archive, repo, metadata=False)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{subject.name} {subject.version} from {archive.name}")
    commit = git(repo, "rev-parse", "HEAD")
    recorded = home / "build.json"
    if recorded.is_file():
        meta: dict[str, Any] = json.loads(recorded.read_text())
        if meta.get("commit") == commit and (home / "state").is_dir():
            return meta
    shutil.rmtree(home / "state", ignore_errors=True)
    log(f"[{subject.name}] cm-graph build (the pinned provider, contained)")
    started = time.perf_counter()
    done = subprocess.run([*cm_graph_command(), "build", "--repo-path", str(repo), "--state-dir",
                           str(home / "state"), "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"[{subject.name}] cm-graph build failed: {done.stderr[-800:]}")
    meta = {"name": subject.name, "version": subject.version, "commit": commit, "repo": str(repo),
            "state": str(home / "state"), "build_seconds": round(time.perf_counter() - started, 2),
            "build": json.loads(done.stdout)}
    recorded.write_text(json.dumps(meta, indent=1))
    return meta


PLUGIN = r'''
import json, os, sys, threading

ROOT = os.path.realpath(os.environ["RESOLVER_TRACE_ROOT"]) + os.sep
OUT = os.environ["RESOLVER_TRACE_OUT"]
_relative = {}
_seen = set()


def _rel(filename):
    found = _relative.get(filename)
    if found is None:
        real = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
        found = real[len(ROOT):] if real.startswith(ROOT) else ""
        _relative[filename] = found
    return found


def _profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    if not _rel(code.co_filename):
        return
    back = frame.f_back
    if back is None or not _rel(back.f_code.co_filename):
        return
    _seen.add((back.f_code, back.f_lasti, code))


def pytest_configure(config):
    sys.setprofile(_profile)
    threading.setprofile(_profile)


def pytest_unconfigure(config):
    sys.setprofile(None)
    threading.setprofile(None)
    positions = {}
    edges = set()
    for caller, lasti, callee in _seen:
        spans = positions.get(caller)
        if spans is None:
            spans = positions[caller] = list(caller.co_positions())
        start, end = (spans[lasti // 2][:2] if 0 <= lasti // 2 < len(spans) else (None, None))
        if start is None:
            continue
        edges.add((_rel(caller.co_filename), caller.co_qualname, caller.co_firstlineno, start, end or start,
                   _rel(callee.co_filename), callee.co_qualname, callee.co_firstlineno, callee.co_name))
    with open(OUT, "w") as handle:
        json.dump(sorted(edges), handle)
'''


def _isolated(command: list[str]) -> list[str]:
    """``command`` in a network namespace with only loopback up; refused when there is none."""
    if shutil.which("unshare") is None:
        raise SystemExit("the trace runs the project's tests only without a network: unshare is needed")
    script = 'ip link set lo up 2>/dev/null; exec "$@"'
    return ["unshare", "-n", "sh", "-c", script, "sh", *command]


def trace(subject: Subject, cache: Path, log: Log) -> list[list[Any]]:
    """The subject's call edges under its own test suite (cached by trace format)."""
    home = cache / "resolver" / subject.key
    out = home / "trace.json"
    meta = home / "trace-meta.json"
    if out.is_file() and meta.is_file() and json.loads(meta.read_text()).get("format") == TRACE_FORMAT:
        return list(json.loads(out.read_text()))
    scratch = home / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    _unpack(_sdist(subject, cache / "downloads", log), scratch, metadata=True)
    venv = home / "venv"
    python = venv / "bin" / "python"
    if not python.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    log(f"[{subject.name}] test virtualenv: {', '.join(subject.requirements)}")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *subject.requirements], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(scratch)], check=True)
    plugin_dir = home / "plugin"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / "resolver_trace.py").write_text(PLUGIN)
    env = {"PATH": os.environ["PATH"], "HOME": str(home / "home"), "PYTHONPATH": str(plugin_dir),
           "RESOLVER_TRACE_ROOT": str(scratch), "RESOLVER_TRACE_OUT": str(out), "PYTHONHASHSEED": "0"}
    log(f"[{subject.name}] tracing its test suite (no network)")
    started = time.perf_counter()
    done = subprocess.run(_isolated([str(python), "-m", "pytest", "-q", "-p", "resolver_trace", "-p",
                                     "no:cacheprovider", *subject.pytest_args, *subject.tests]),
                          cwd=scratch, env=env, capture_output=True, text=True, timeout=3600)
    tail = done.stdout.strip().splitlines()[-1:] or [done.stderr[-300:]]
    log(f"[{subject.name}] pytest exit {done.returncode} in {time.perf_counter() - started:.0f} s: {tail[0]}")
    if done.returncode not in (0, 1) or not out.is_file():  # 1: some tests failed, the rest ran
        out.unlink(missing_ok=True)
        raise SystemExit(f"[{subject.name}] the suite did not run: {done.stdout[-800:]}{done.stderr[-400:]}")
    meta.write_text(json.dumps({"format": TRACE_FORMAT, "pytest_exit": done.returncode, "summary": tail[0]}))
    return list(json.loads(out.read_text()))
