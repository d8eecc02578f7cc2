"""Shared set-up for the agent-surface tests: a connected, indexed checkout and real servers.

The server is always the installed ``cm-graph mcp`` in a subprocess, driven by the MCP SDK's own
client (stdio, or streamable HTTP over loopback TCP) or by plain HTTP for the REST twin.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cm_graph.connections.store import ConnectionStore, connect
from cm_graph.generation.layout import Workspace
from cm_graph.index.ensure import ensure_index

from .g0 import g0_graph, make_g0_repo
from .helpers import CM_GRAPH, git, publish

CONNECTION = "local-graph"
RECIPIENT = "claude:builder"


@dataclass
class Served:
    repo: Path
    state: Path

    @property
    def workspace(self) -> Workspace:
        return Workspace.locate(self.repo, self.state)

    def args(self, recipient: str = RECIPIENT, *extra: str) -> list[str]:
        return ["mcp", "--connection", CONNECTION, "--recipient", recipient, "--state-dir", str(self.state), *extra]

    def env(self) -> dict[str, str]:
        return {"CM_GRAPH_HOME": str(self.state), "PATH": os.environ["PATH"]}


def connected(base: Path, graph: dict[str, Any] | None = None, *, indexed: bool = True,
              repo: Path | None = None) -> Served:
    repo = repo or make_g0_repo(base / "repo")
    state = base / "state"
    workspace = publish(repo, state, graph or g0_graph())
    if indexed:
        ensure_index(workspace)
    connect(ConnectionStore(state), CONNECTION, repo, ["owner/repo"], [RECIPIENT])
    return Served(repo, state)


def cited_line_exists(repo: Path, commit: str, cite: str) -> bool:
    """``path#L<n>`` names a line the commit's blob has (checked with git, not the index)."""
    path, _, line = cite.partition("#L")
    text = git(repo, "show", f"{commit}:{path}")
    return not line or 1 <= int(line) <= len(text.splitlines())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(served: Served, *extra: str, ready: Any,
                wait_seconds: float = 60) -> Iterator[subprocess.Popen[bytes]]:
    """``cm-graph mcp --http ...`` until ``ready()`` answers (at most ``wait_seconds``), always
    stopped afterwards. Its stderr goes to a file, read only once the server is stopped: a live
    server never ends its stderr, so reading a pipe first would wait for ever (and a full pipe
    would stall the server)."""
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([str(CM_GRAPH), *served.args(RECIPIENT, "--http", *extra)],
                                   env=served.env(), stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.monotonic() + wait_seconds
            while not ready():
                if process.poll() is not None or time.monotonic() > deadline:
                    code = stop(process)
                    log.seek(0)
                    raise AssertionError(f"cm-graph mcp (pid {process.pid}) did not answer and was stopped "
                                         f"(exit {code}); its stderr: {log.read().decode(errors='replace')}")
                time.sleep(0.1)
            yield process
        finally:
            stop(process)


def stop(process: subprocess.Popen[bytes]) -> int:
    """Terminate the server (killed if it outlives 30 s), wait for it, and return its exit code."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode
