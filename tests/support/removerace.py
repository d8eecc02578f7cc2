"""Readers during a ``remove`` + ``build`` loop (issue 25, item 8): real processes, counted.

One process removes and rebuilds a checkout's graph ``loops`` times; reader processes, started
first, judge and question it the whole time (``graph_status``, ``code_context``, the packet path
of ``query`` and the operator's ``ask``; the issue-25 sweep adds ``EXTRA_READERS``: a real
``cm-graph mcp`` over stdio asked ``code_context``, ``ask`` and ``graph_status``, ``context
impact`` and ``context history`` on the CLI, and ``fleet usages`` of a fleet the checkout is a
member of), each observation tallied as ``<reader>:<state or reason>``, and the loop's own
commands as ``remove:`` / ``build:<done or reason>``. A graph being
removed or replaced is ``absent`` or answers; it is never damaged, so a tally holding
``corrupt``, ``invalid``, ``oversized``, ``unreadable``, ``internal``, ``read_only`` or
``missing`` (none is true of a graph that is only being replaced), a crash, or a removal or build
the readers made fail, broke.

Each process runs the commands in process (typer's CliRunner for the CLI), so a loop costs the
commands' own work, not interpreter starts. The processes wait for each other through marker
files, never for a time. Run by hand with more loops::

    python -m tests.support.removerace --loops 200
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from cm_graph.base.errors import Refusal
from cm_graph.cli.app import app
from cm_graph.context.from_workspace import code_context
from cm_graph.evidence.ask import ask
from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import graph_status

from .adversarial import Tally
from .askkit import authorization
from .cli import RUNNER, where
from .g0 import g0_graph, make_g0_repo
from .helpers import code_paths, inventory_for, write_output

DAMAGE = ("corrupt", "invalid", "oversized", "unreadable", "internal", "read_only", "missing")
READERS = ("status", "context", "packet", "ask")
EXTRA_READERS = ("mcp", "impact", "history", "fleet")
ROOT = Path(__file__).resolve().parents[2]


def _wait_for(paths: list[Path]) -> None:
    while not all(path.exists() for path in paths):
        time.sleep(0.01)


def _refusal_reason(stderr: str) -> str:
    """``cm-graph: <reason>: ...`` -> reason."""
    line = (stderr.strip().splitlines() or ["?"])[-1]
    parts = line.split(": ", 2)
    return parts[1] if len(parts) == 3 and parts[0] == "cm-graph" else f"unclean({line[:80]})"


def writer(repo: Path, state: Path, out: Path, loops: int, ready: list[Path], done: Path, result: Path) -> None:
    tally: collections.Counter[str] = collections.Counter()
    _wait_for(ready)
    try:
        for _ in range(loops):
            for args in (["remove"], ["build", "--from-graph", str(out)]):
                outcome = RUNNER.invoke(app, [*args, *where(repo, state)])
                if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
                    tally[f"{args[0]}:crash({type(outcome.exception).__name__})"] += 1
                else:
                    tally[f"{args[0]}:" + ("done" if outcome.exit_code == 0 else _refusal_reason(outcome.stderr))] += 1
    finally:
        result.write_text(json.dumps(tally))
        done.touch()


def _cli_reason(args: list[str]) -> str:
    result = RUNNER.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return f"crash({type(result.exception).__name__})"
    return "answered" if result.exit_code == 0 else _refusal_reason(result.stderr)


def _observe(kind: str, repo: Path, state: Path) -> str:
    workspace = Workspace.locate(repo, state)
    try:
        if kind == "impact":
            return _cli_reason(["context", "impact", "parse_config", *where(repo, state)])
        if kind == "history":
            return _cli_reason(["context", "history", *where(repo, state)])
        if kind == "fleet":
            return _cli_reason(["fleet", "usages", "race", "parse_config", "--state-dir", str(state)])
        if kind == "status":
            return graph_status(workspace, trust_seal=True).state
        if kind == "context":
            return str(code_context(workspace, "usage", "parse_config")["status"])
        if kind == "packet":
            status = graph_status(workspace, trust_seal=True)
            if status.generation is None:
                return status.state
            allowed = authorization(workspace, generation=status.generation.id, expires_in=timedelta(days=36500))
            outcome = ask(workspace, "impact", "parse_config", allowed)
            return str(outcome.summary.get("reason") or outcome.summary["status"])
        result = RUNNER.invoke(app, ["ask", "impact", "parse_config", *where(repo, state)])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return f"crash({type(result.exception).__name__})"
        return "answered" if result.exit_code == 0 else _refusal_reason(result.stderr)
    except Refusal as refusal:
        return refusal.reason
    except Exception as error:  # noqa: BLE001 - a crash is what the tally must show
        return f"crash({type(error).__name__}: {str(error)[:80]})"


def reader(kind: str, repo: Path, state: Path, ready: Path, done: Path, result: Path) -> None:
    tally: collections.Counter[str] = collections.Counter()
    if kind == "mcp":
        _mcp_reader(repo, state, ready, done, tally)
    else:
        ready.touch()
        while not done.exists():
            tally[f"{kind}:{_observe(kind, repo, state)}"] += 1
    result.write_text(json.dumps(tally))


def _mcp_reader(repo: Path, state: Path, ready: Path, done: Path, tally: collections.Counter[str]) -> None:
    """One ``cm-graph mcp`` over stdio for the whole loop; each reply tallied by its status or
    reason (no reply at all: ``mcp:no_reply``)."""
    from .surfacekit import LineClient, Served

    client = LineClient(Served(repo, state))
    ready.touch()
    calls: tuple[tuple[str, dict[str, str]], ...] = (
        ("code_context", {"target": "parse_config"}), ("ask", {"question": "impact", "target": "parse_config"}),
        ("graph_status", {}))
    try:
        while not done.exists():
            for name, arguments in calls:
                reply = client.call(name, arguments)
                payload = (reply or {}).get("result", {}).get("structuredContent") or {}
                tally[f"mcp:{payload.get('reason') or payload.get('status') or 'no_reply'}"] += 1
    finally:
        code, stderr = client.close()
        if code != 0 or "Traceback" in stderr:
            tally[f"mcp:crash(exit {code})"] += 1


def _child(call: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", f"from tests.support.removerace import *; {call}"],
                            cwd=ROOT, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def race(base: Path, loops: int, readers: tuple[str, ...] = READERS) -> collections.Counter[str]:
    """Every reader's tally over ``loops`` removals and rebuilds of G0 under ``base``. The
    ``EXTRA_READERS`` find G0 connected (``local-graph``, for the MCP server) and in the fleet
    ``race`` with a second checkout, and a first generation built with its history."""
    repo = make_g0_repo(base / "repo")
    out = write_output(base / "out", g0_graph(), inventory_for(repo, code_paths(repo)))
    state, marks = base / "state", base / "marks"
    marks.mkdir()
    if set(readers) & set(EXTRA_READERS):
        _extra_setup(base, repo, state, out)
    done = marks / "done"
    ready = {kind: marks / f"{kind}.ready" for kind in readers}
    results = {kind: marks / f"{kind}.json" for kind in readers}
    children_reading = [
        _child(f"reader({kind!r}, Path({str(repo)!r}), Path({str(state)!r}), Path({str(ready[kind])!r}), "
               f"Path({str(done)!r}), Path({str(results[kind])!r}))") for kind in readers]
    results["writer"] = marks / "writer.json"
    loop = _child(f"writer(Path({str(repo)!r}), Path({str(state)!r}), Path({str(out)!r}), {loops}, "
                  f"[Path(p) for p in {[str(p) for p in ready.values()]!r}], Path({str(done)!r}), "
                  f"Path({str(results['writer'])!r}))")
    children = [loop, *children_reading]
    try:
        _, stderr = loop.communicate(timeout=1800)
        if loop.returncode != 0:
            raise RuntimeError(f"the remove + build loop failed: {stderr.strip()[-400:]}")
        for child in children_reading:
            _, stderr = child.communicate(timeout=600)
            if child.returncode != 0:
                raise RuntimeError(f"a reader failed: {stderr.strip()[-400:]}")
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    tally: collections.Counter[str] = collections.Counter()
    for path in results.values():
        tally.update(json.loads(path.read_text()))
    return tally


def _extra_setup(base: Path, repo: Path, state: Path, out: Path) -> None:
    from cm_graph.connections.store import ConnectionStore, connect
    from cm_graph.fleet.members import add_member, member_from

    other = make_g0_repo(base / "other")
    for checkout in (repo, other):
        built = RUNNER.invoke(app, ["build", "--from-graph", str(out), *where(checkout, state)])
        assert built.exit_code == 0, built.output
    assert RUNNER.invoke(app, ["context", "history", *where(repo, state)]).exit_code == 0
    connect(ConnectionStore(state), "local-graph", repo, ["owner/repo"], ["claude:builder"])
    for checkout in (repo, other):
        add_member(state, "race", member_from(state, connection=None, repo_path=checkout, repository=None))


def sweep(base: Path, loops: int, rng: object, tally: Tally) -> None:
    """The issue-25 sweep's concurrency category: every reader, the extra ones too, against
    ``loops`` removals and rebuilds; one trial per observation (or loop command), broke when
    ``damaged`` names it. (``rng`` is the category's, unused: the race's order is the machine's.)"""
    found = race(base, loops, (*READERS, *EXTRA_READERS))
    broke = damaged(found)
    for key, count in sorted(found.items()):
        for _ in range(count):
            tally.judge(f"{key} ({count} times)" if key in broke else None, key)
    for kind in (*READERS, *EXTRA_READERS):
        seen = sum(count for key, count in found.items() if key.startswith(f"{kind}:"))
        tally.judge(None if seen else f"the {kind} reader observed nothing", f"{kind} read during the loop")


def damaged(tally: collections.Counter[str]) -> dict[str, int]:
    """The observations that called the graph damaged or crashed, and the removals and builds
    that did not succeed."""
    broke = {}
    for key, count in tally.items():
        who, what = key.split(":", 1)
        if what in DAMAGE or what.startswith(("crash", "unclean")) or (who in ("remove", "build") and what != "done"):
            broke[key] = count
    return broke


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loops", type=int, default=60)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cm-graph-removerace-") as base:
        tally = race(Path(base), args.loops)
    for key, count in sorted(tally.items()):
        print(f"{count:>7} {key}")
    broke = damaged(tally)
    print(f"tried {sum(tally.values())}, broke {sum(broke.values())}")
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())
