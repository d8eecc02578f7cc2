"""Shared set-up for the agent-surface tests: a connected, indexed checkout and real servers.

The server is always the installed ``cm-graph mcp`` in a subprocess, driven by the MCP SDK's own
client (stdio, or streamable HTTP over loopback TCP) or by plain HTTP for the REST twin; for what
no SDK client sends (malformed lines, raw HTTP bytes) by ``LineClient`` and ``raw_http``.
"""

from __future__ import annotations

import json
import os
import select
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
from .wholeschemas import whole_schema_problems  # noqa: F401  (the surface tests import it from here)

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


def tcp_door_ready(served: Served, base: str) -> Any:
    """A ``ready`` for ``http_server`` on TCP: the token is written and the door refuses without it."""
    import httpx2  # the mcp extra's HTTP client

    token_file = served.state / "run" / "token"

    def ready() -> bool:
        try:
            return token_file.is_file() and httpx2.get(f"{base}/openapi.json", timeout=1).status_code == 401
        except httpx2.HTTPError:
            return False

    return ready


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


class LineClient:
    """``cm-graph mcp`` over stdio driven a line at a time, for what an SDK client never sends:
    malformed messages, a line of any size, a stream closed mid-call. Its stderr goes to a file,
    read once the server has stopped (``close``)."""

    def __init__(self, served: Served, recipient: str = RECIPIENT) -> None:
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([str(CM_GRAPH), *served.args(recipient)], env=served.env(), cwd=served.repo,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.pending = b""
        self.next_id = 0
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "line", "version": "1"}}})
        if self.receive() is None:
            raise AssertionError(f"cm-graph mcp did not answer initialize: {self.close()[1][-400:]}")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: Any) -> None:
        """One message (a value is sent as its JSON, bytes as they are) and its newline."""
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def receive(self, seconds: float = 60) -> dict[str, Any] | None:
        """The next message the server writes, or None when it writes none for ``seconds``."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, 1 << 20) if ready else b""
            if not chunk:
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return dict(json.loads(line))

    def call(self, name: str, arguments: Any, seconds: float = 60) -> dict[str, Any] | None:
        """One tools/call: its result, or None when no reply with its id came."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})
        while (reply := self.receive(seconds)) is not None:
            if reply.get("id") == self.next_id:
                return reply
        return None

    def close(self) -> tuple[int, str]:
        """Close stdin (the client is done) and return the exit code and the server's stderr."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        code = _wait_then_stop(self.process)
        self.log.seek(0)
        return code, self.log.read().decode(errors="replace")


def _wait_then_stop(process: subprocess.Popen[bytes]) -> int:
    """The exit code of a server whose client closed its stream (stopped if it outlives 60 s)."""
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        return stop(process)


def raw_http(address: Path | tuple[str, int], request: bytes, *, read: bool = True, seconds: float = 60) -> bytes:
    """``request`` written as it is on a Unix socket or loopback TCP, and what comes back until
    the server closes (nothing read when ``read`` is false: the client hangs up at once)."""
    family = socket.AF_UNIX if isinstance(address, Path) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as connection:
        connection.settimeout(seconds)
        connection.connect(str(address) if isinstance(address, Path) else address)
        connection.sendall(request)
        received = b""
        while read and (chunk := connection.recv(65536)):
            received += chunk
    return received

