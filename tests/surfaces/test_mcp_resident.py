"""Issue 31: the resident server does only what changed.

The installed ``cm-graph mcp`` over stdio, driven by the SDK's client, with ``git`` on its PATH
counted (a shell script that notes each start and runs the real git): repeated ``code_context``
calls on an unchanged checkout start no git child and answer the same bytes; a commit and refresh,
a checkout of another branch, a pack of the refs, a detached HEAD and a graph.bin damaged in place
between two calls are each seen on the very next call. In-process, the held index is one
connection per generation, and scratch is swept on a timer, not on every call.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from cm_graph.context.from_workspace import code_context  # noqa: E402
from cm_graph.context.resident import Resident  # noqa: E402
from cm_graph.generation.store import read_current  # noqa: E402
from cm_graph.index.ensure import ensure_index  # noqa: E402

from ..support.g0 import g0_graph  # noqa: E402
from ..support.helpers import CM_GRAPH, commit_all, git, numbered_lines, publish, write_files  # noqa: E402
from ..support.surfacekit import Served, connected  # noqa: E402
from .test_mcp_server import structured  # noqa: E402

pytestmark = pytest.mark.anyio
ASKED = {"target": "parse_config", "intent": "usage"}
ASKED_IMPACT = {"question": "impact", "target": "parse_config"}


def counted_git(base: Path) -> tuple[Path, Path]:
    """A directory whose ``git`` notes each start in a file and runs the real git."""
    real = shutil.which("git")
    assert real is not None
    directory, count = base / "counted-bin", base / "git-starts"
    directory.mkdir()
    script = directory / "git"
    script.write_text(f'#!/bin/sh\necho x >> "{count}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return directory, count


def starts(count: Path) -> int:
    return len(count.read_text().splitlines()) if count.exists() else 0


async def test_unchanged_calls_start_no_git_and_every_change_is_seen_next_call(tmp_path: Path) -> None:
    served = connected(tmp_path)
    directory, count = counted_git(tmp_path)
    env = {**served.env(), "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}"}
    client = Client(StdioServerParameters(command=str(CM_GRAPH), args=served.args(), env=env, cwd=str(served.repo)),
                    read_timeout_seconds=60)

    async def context() -> dict[str, Any]:
        result = await client.call_tool("code_context", ASKED)
        assert result.is_error is False, result.content
        return structured(result)

    async with client:
        first = await context()
        assert first["status"] == "answered" and first["freshness"]["state"] == "current"
        before = starts(count)
        assert before >= 1  # the first call judged the graph through the git wrapper
        for _ in range(3):
            assert await context() == first
        assert starts(count) == before, "an unchanged checkout started a git child"

        # A commit and a refresh between two calls: the next call answers the new generation.
        old_commit = first["graph"]["commit"]
        write_files(served.repo, {"example_pkg/report.py": numbered_lines(25)})
        head = commit_all(served.repo, "grow report")
        ensure_index(publish(served.repo, served.state, g0_graph()))
        fresh = await context()
        assert fresh["freshness"] == {"state": "current", "head": head}
        assert fresh["graph"]["commit"] == head and fresh["graph"]["generation"] != first["graph"]["generation"]

        # Another branch checked out: stale on the next call, naming its HEAD.
        git(served.repo, "checkout", "-q", "-b", "older", old_commit)
        assert (await context())["freshness"] == {"state": "stale", "head": old_commit}
        git(served.repo, "checkout", "-q", "main")
        assert (await context())["freshness"] == {"state": "current", "head": head}
        git(served.repo, "pack-refs", "--all")  # the ref now lives in packed-refs only
        assert (await context())["freshness"] == {"state": "current", "head": head}
        git(served.repo, "checkout", "-q", "--detach", old_commit)
        assert (await context())["freshness"] == {"state": "stale", "head": old_commit}
        git(served.repo, "checkout", "-q", "main")
        settled = await context()
        assert settled["freshness"] == {"state": "current", "head": head}

        # graph.bin damaged in place (same size) between two calls: corrupt on the next one.
        artifact = read_current(served.workspace).artifact_path
        data = bytearray(artifact.read_bytes())
        data[len(data) // 2] ^= 0xFF
        artifact.write_bytes(bytes(data))
        damaged = await context()
        assert damaged["status"] == "unavailable" and damaged["reason"] == "corrupt", damaged


async def test_unchanged_ask_calls_start_no_git_and_every_change_is_seen_next_call(tmp_path: Path) -> None:
    """``ask`` answers from the same held judgement as ``code_context`` (its authorization is still
    minted per call from the connection file read again): no git child while nothing changed,
    the same bytes as a server that judged from scratch, and a refresh or another HEAD seen on the
    very next call."""
    served = connected(tmp_path)
    directory, count = counted_git(tmp_path)
    env = {**served.env(), "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}"}

    def client() -> Client:
        return Client(StdioServerParameters(command=str(CM_GRAPH), args=served.args(), env=env,
                                            cwd=str(served.repo)), read_timeout_seconds=60)

    async def ask(session: Client) -> dict[str, Any]:
        result = await session.call_tool("ask", ASKED_IMPACT)
        assert result.is_error is False, result.content
        return structured(result)

    async with client() as session:
        first = await ask(session)
        assert first["status"] == "answered" and first["documents"]["total"] >= 1, first
        before = starts(count)
        for _ in range(3):
            assert await ask(session) == first
        assert starts(count) == before, "an unchanged checkout started a git child for ask"
        assert await session.call_tool("code_context", ASKED)  # the other tool shares the judgement
        assert await ask(session) == first and starts(count) == before

        old_commit = first["graph"]["commit"]
        write_files(served.repo, {"example_pkg/report.py": numbered_lines(25)})
        head = commit_all(served.repo, "grow report")
        ensure_index(publish(served.repo, served.state, g0_graph()))
        fresh = await ask(session)
        assert fresh["graph"]["commit"] == head and fresh["graph"]["generation"] != first["graph"]["generation"]

        git(served.repo, "checkout", "-q", "-b", "older", old_commit)
        stale = await ask(session)
        assert stale["status"] == "unavailable" and stale["reason"] == "stale", stale
        git(served.repo, "checkout", "-q", "main")
        held = await ask(session)
        assert held == fresh
    async with client() as session:  # a server that judges from scratch gives the same answer
        assert await ask(session) == held


def test_the_held_index_is_one_connection_per_generation(tmp_path: Path) -> None:
    served = connected(tmp_path)
    resident = Resident()
    first = code_context(served.workspace, "usage", "parse_config", derive=False, resident=resident)
    held = resident._held
    assert held is not None
    second = code_context(served.workspace, "usage", "parse_config", derive=False, resident=resident)
    assert second == first and resident._held is held  # the same connection and its prepared statements
    refreshed = ensure_index(publish(served.repo, served.state, g0_graph()))
    third = code_context(served.workspace, "usage", "parse_config", derive=False, resident=resident)
    assert resident._held is not None and resident._held is not held
    assert third["graph"]["generation"] == refreshed.generation != first["graph"]["generation"]
    resident.release()


def _dead_scratch(served: Served) -> Path:
    scratch = served.workspace.directory / f".{'e' * 32}.build"  # no owner record: its owner is gone
    scratch.mkdir(mode=0o700)
    return scratch


def test_scratch_is_swept_on_a_timer_not_on_every_call(tmp_path: Path) -> None:
    served = connected(tmp_path)
    now = [1000.0]
    resident = Resident(sweep_every=60.0, clock=lambda: now[0])
    scratch = _dead_scratch(served)
    code_context(served.workspace, "usage", "parse_config", derive=False, resident=resident)
    assert not scratch.exists(), "the first call sweeps"
    scratch = _dead_scratch(served)
    now[0] += 59.0
    code_context(served.workspace, "usage", "parse_config", derive=False, resident=resident)
    assert scratch.exists(), "a call within the interval does not sweep"
    now[0] += 1.0
    code_context(served.workspace, "usage", "parse_config", derive=False, resident=resident)
    assert not scratch.exists(), "the first call past the interval sweeps"
    resident.release()
