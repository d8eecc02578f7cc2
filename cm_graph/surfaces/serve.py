"""``cm-graph mcp --http``: MCP's streamable HTTP and the REST twin, one app behind one door.

The default bind is a Unix socket in a private directory of the state root, made 0600 before
anyone can connect (uvicorn would chmod its own socket 0666, so the socket is bound here and
handed over). File permissions are the authentication there, and no browser can reach it. TCP
is opt-in, only on a loopback address, and only with the bearer token kept in the state root's
``run/token`` (``bearer.py``: 0600, made on first use, refused when it is not one this program
made, before anything is bound). The guard checks Host and Origin on every route.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput, Refusal
from ..base.privfs import ensure_private_dir
from .authority import Caller
from .bearer import TOKEN_FILE, bearer_token
from .guard import Guard
from .mcp_server import build_server
from .rest import rest_routes

LOOPBACK_HOSTS = ("127.0.0.1", "::1")
RUN_DIRECTORY = "run"
SOCKET_SUFFIX = ".sock"
# sun_path holds 108 bytes on Linux and 104 on macOS and the BSDs, the terminating NUL included.
MAX_SOCKET_PATH_BYTES = 107 if sys.platform.startswith("linux") else 103
Announce = Callable[[str], None]


def http_app(caller: Caller, *, port: int | None, token: str | None) -> Any:
    """The ASGI app: ``/mcp`` (stateless streamable HTTP, JSON responses) and the REST routes."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(caller)
    app = server.streamable_http_app(
        streamable_http_path="/mcp", json_response=True, stateless_http=True,
        # The guard checks every route, this one included, against the address actually bound.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        custom_starlette_routes=rest_routes(caller, authenticated=token is not None),
    )
    return Guard(app, port=port, token=token)


def run_directory(state_root: Path) -> Path:
    directory = state_root / RUN_DIRECTORY
    ensure_private_dir(directory, private_from=state_root)
    return directory


def default_socket(caller: Caller) -> Path:
    """``<state>/run/<connection>.sock`` (its directory is made private when the socket is bound)."""
    return caller.state_root / RUN_DIRECTORY / f"{caller.connection}{SOCKET_SUFFIX}"


def require_socket_path(path: Path) -> None:
    """Refuse, before anything is made or bound, a socket path longer than ``sun_path`` takes
    (the kernel would refuse the bind with an error that names no limit)."""
    size = len(os.fsencode(path))
    if size > MAX_SOCKET_PATH_BYTES:
        raise Refusal(f"The Unix socket path {path} is {size} bytes, over the {MAX_SOCKET_PATH_BYTES} this platform "
                      "takes; choose a shorter one with --socket (or a shorter --state-dir).",
                      reason="socket_path_too_long")


def _listening(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def unix_socket(path: Path) -> socket.socket:
    """A listening socket at ``path``, 0600 from its creation (a stale one is replaced, a live
    one is another server's: refused)."""
    if path.is_socket():
        if _listening(path):
            raise Refusal("Another cm-graph server is listening on that socket; stop it or choose --socket.",
                          reason="busy")
        path.unlink()
    elif os.path.lexists(path):
        raise InvalidInput("The socket path exists and is not a socket; choose another --socket.")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(previous)
    os.chmod(path, 0o600)
    listener.listen(128)
    return listener


def require_loopback(host: str) -> None:
    if host not in LOOPBACK_HOSTS:
        raise InvalidInput("The HTTP server binds only a loopback address (127.0.0.1 or ::1).")


def tcp_socket(host: str, port: int) -> socket.socket:
    require_loopback(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(128)
    return listener


def serve_http(caller: Caller, *, socket_path: Path | None, host: str | None, port: int | None,
               announce: Announce = lambda line: None) -> None:
    """Bind (a Unix socket unless a TCP port is given), say where in one line (``announce``: the
    CLI writes it on stderr), then serve until interrupted."""
    import uvicorn

    if port is None:
        path = socket_path or default_socket(caller)
        require_socket_path(path)  # before the run directory is made: a refused path leaves nothing
        if socket_path is None:
            run_directory(caller.state_root)
        listener, token, bound_port = unix_socket(path), None, None
        where = f"the Unix socket {path}"
    else:
        host = host or LOOPBACK_HOSTS[0]
        require_loopback(host)  # before the token file is made or read: a refused flag leaves nothing
        run = run_directory(caller.state_root)
        token = bearer_token(run)  # a bad token file: nothing is bound
        listener = tcp_socket(host, port)
        bound_port = listener.getsockname()[1]
        address = f"[{host}]" if ":" in host else host
        where = f"http://{address}:{bound_port} (bearer token in {run / TOKEN_FILE})"
    app = http_app(caller, port=bound_port, token=token)
    announce(f"serving MCP at /mcp and the REST routes on {where}")
    config = uvicorn.Config(app, log_level="warning", limit_concurrency=32, lifespan="on")
    try:
        stoppable_server(config).run(sockets=[listener])
    finally:
        listener.close()
        if port is None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def stoppable_server(config: Any) -> Any:
    """uvicorn's server, stopped by SIGINT/SIGTERM without re-raising the signal afterwards
    (uvicorn re-raises it, which would end the process before the socket file is removed)."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    return Server(config)
