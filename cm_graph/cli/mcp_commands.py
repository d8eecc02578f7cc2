"""``cm-graph mcp``: serve the agent surfaces (cm_graph/surfaces/) for one connection and recipient.

The MCP SDK is an optional extra and costs seconds to import, so nothing here imports it until
the command runs: ``cm-graph --help``, ``query`` and every other command never load it. Without
the extra the command refuses (``extra_missing``) with the line that installs it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..base.errors import Refusal
from ..base.printable import printable
from ..base.rules import identifier
from .command_kit import exit_refusing, state_root


def _require_extra() -> None:
    """Refuse before anything is served when the SDK is not installed (found, not imported)."""
    from importlib.util import find_spec

    if find_spec("mcp") is None or find_spec("starlette") is None:
        raise Refusal("The MCP server needs the optional extra: pip install 'cm-graph[mcp]'.",
                      reason="extra_missing")


def announce(line: str) -> None:
    """The HTTP server's one start-up line on stderr (the path is the operator's, escaped as any)."""
    sys.stderr.write(f"cm-graph: {printable(line)}\n")
    sys.stderr.flush()


def mcp_command(
    connection: Annotated[str, typer.Option("--connection", help="The local connection to serve (cm-graph connect).")],
    recipient: Annotated[str, typer.Option("--recipient", help="Who the evidence is for, as the connection names it.")],
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP at /mcp and the REST routes.")] = False,
    socket_path: Annotated[
        Path | None, typer.Option("--socket", help="The Unix socket to bind (default: <state>/run/<connection>.sock).")
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", min=0, max=65535, help="Bind TCP on a loopback port instead (bearer token).")
    ] = None,
    host: Annotated[
        str, typer.Option("--host", help="The loopback address for --port: 127.0.0.1 or ::1.")
    ] = "127.0.0.1",
    state_dir: Annotated[
        Path | None,
        typer.Option("--state-dir", help="Private state root (default: $CM_GRAPH_HOME or ~/.local/share/cm-graph)."),
    ] = None,
) -> None:
    """Serve the graph to agents: MCP over stdio (default) or HTTP with its REST twin."""

    def serve() -> None:
        identifier(connection, "The connection name")
        if not http and (socket_path is not None or port is not None):
            raise typer.BadParameter("--socket and --port need --http.")
        _require_extra()
        from ..generation.layout import state_root_origin
        from ..surfaces.authority import Caller

        caller = Caller(state_root(state_dir), connection, recipient, state_root_origin(state_dir))
        if http:
            from ..surfaces.serve import serve_http

            serve_http(caller, socket_path=socket_path, host=host, port=port, announce=announce)
        else:
            from ..surfaces.mcp_server import serve_stdio

            serve_stdio(caller)

    exit_refusing(serve, False)

