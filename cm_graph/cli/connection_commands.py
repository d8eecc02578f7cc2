"""Delivering evidence to other tools: local connections (``connect``, ``connection-status``,
``disconnect``), authorization files (``auth``) and guided sessions (``session``).

Registered from the command table (``command_table.py``), which gives each command (and each group
of subcommands) its name and help.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from ..base.errors import InvalidInput
from ..base.jsonio import dumps_canonical
from ..base.privfs import read_regular_file, write_private_atomic
from ..evidence.authorization import (
    POLICY_SCHEMA,
    mint_envelope,
    parse_authorization,
    parse_envelope,
)
from ..generation.layout import Workspace
from ..generation.status import require_current
from .boundary import print_json
from .command_kit import (
    Connection,
    Json,
    QuestionName,
    RepoPath,
    StateDir,
    refusals_exit,
    show_mapping,
    state_root,
)


@refusals_exit
def connect_command(
    connection: Connection,
    repository: Annotated[
        list[str], typer.Option("--repository", help="Approved repository, owner/repo (repeatable).")
    ],
    recipient: Annotated[list[str], typer.Option("--recipient", help="Approved recipient, host:role (repeatable).")],
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    from ..connections.store import ConnectionStore, connect

    workspace = Workspace.locate(repo_path, state_dir)
    summary = connect(ConnectionStore(workspace.root), connection, workspace.checkout, repository, recipient)
    _print_connection(summary, json_output)


@refusals_exit
def connection_status_command(
    connection: Connection,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    from ..connections.store import ConnectionStore, connection_status

    summary = connection_status(ConnectionStore(state_root(state_dir)), connection)
    _print_connection(summary, json_output)
    raise typer.Exit(0 if summary["authorization"] == "available" else 1)


@refusals_exit
def disconnect_command(
    connection: Connection,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    from ..connections.store import ConnectionStore
    from ..feedback.manage import disconnect_and_purge

    summary = disconnect_and_purge(ConnectionStore(state_root(state_dir)), connection)
    _print_connection(summary, json_output)
    raise typer.Exit(0 if summary["packet_cleanup"] == summary["outcome_cleanup"] == "complete" else 1)


def _print_connection(summary: dict[str, Any], json_output: bool) -> None:
    from .render import console, print_mapping

    if json_output:
        print_json(summary)
    else:
        rows = {k: v for k, v in summary.items() if k not in ("schema", "graph", "query_reader")}
        print_mapping(console(), f"Connection: {summary['status']}", rows)


auth_app = typer.Typer(no_args_is_help=True)  # its help is the command table's


@auth_app.command("init")
@refusals_exit
def auth_init_command(
    connection: Annotated[str, typer.Option("--connection", help="Connection name (lowercase identifier).")],
    repository: Annotated[
        list[str], typer.Option("--repository", help="Approved repository, owner/repo (repeatable).")
    ],
    recipient: Annotated[list[str], typer.Option("--recipient", help="Approved recipient, host:role (repeatable).")],
    required: Annotated[
        bool, typer.Option("--required/--optional", help="Whether dependent work pauses without graph context.")
    ] = True,
    work_item: Annotated[str, typer.Option("--work-item", help="The work item the evidence is for.")] = "local-work",
    policy_version: Annotated[str, typer.Option("--policy-version", help="Policy version identifier.")] = "v1",
    max_documents: Annotated[
        int, typer.Option("--max-documents", help="Documents per packet (1..50; at most 16 are emitted).")
    ] = 5,
    revision: Annotated[str, typer.Option("--revision", help="The revision the graph must be current for.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the file privately (0600, atomic) instead of to stdout.")
    ] = None,
) -> None:
    """Print (or write with --out) an authorization file for the current generation (valid for one hour)."""
    workspace = Workspace.locate(repo_path, state_dir)
    generation = require_current(workspace, revision)
    now = datetime.now(UTC)
    policy = {
        "schema": POLICY_SCHEMA, "connection": connection, "policy_version": policy_version,
        "required": required, "max_documents": max_documents,
    }
    document = {
        "connection": mint_envelope(
            connection=connection, generation=generation.id,
            repository_root=str(workspace.checkout), repositories=list(repository),
            recipients=list(recipient), now=now,
        ),
        "policy": policy,
        "repository": repository[0],
        "work_item": work_item,
    }
    data = dumps_canonical(document)
    authorization_check = parse_authorization(data)
    parse_envelope(authorization_check.envelope_json, now)
    if out is None:
        print_json(document)
    else:
        write_private_atomic(Path(os.path.abspath(out)), data)


session_app = typer.Typer(no_args_is_help=True)  # its help is the command table's


@session_app.command("init")
@refusals_exit
def session_init_command(
    session_file: Annotated[Path, typer.Argument(help="Where to write the cm_graph.session.v1 file (0600).")],
    connection: Connection,
    repository: Annotated[str, typer.Option("--repository", help="The repository the work is in, owner/repo.")],
    recipient: Annotated[str, typer.Option("--recipient", help="Who reads the evidence, host:role.")],
    work_item: Annotated[str, typer.Option("--work-item", help="The work item the evidence is for.")],
    directory: Annotated[
        Path | None, typer.Option("--directory", help="The directory the work happens in (default: cwd).")
    ] = None,
    required: Annotated[
        bool, typer.Option("--required/--optional", help="Whether dependent work pauses without graph context.")
    ] = True,
    policy_version: Annotated[str, typer.Option("--policy-version", help="Policy version identifier.")] = "v1",
    max_documents: Annotated[int, typer.Option("--max-documents", help="Documents per packet (1..50).")] = 5,
    json_output: Json = False,
) -> None:
    """Write a session file from flags (0600, atomic), checked as `session prepare` reads it."""
    from ..connections.session import session_document

    document = session_document(
        connection=connection, repository=repository, recipient=recipient, work_item=work_item,
        directory=Path(os.path.abspath(directory if directory is not None else Path.cwd())),
        required=required, policy_version=policy_version, max_documents=max_documents,
    )
    write_private_atomic(Path(os.path.abspath(session_file)), dumps_canonical(document))
    if json_output:
        print_json(document)


@session_app.command("prepare")
@refusals_exit
def session_prepare_command(
    session_file: Annotated[Path, typer.Argument(help="A cm_graph.session.v1 file.")],
    question: Annotated[QuestionName, typer.Option("--question", help="The bounded question.")] = QuestionName.symbol,
    query_stdin: Annotated[
        bool, typer.Option("--query-stdin", help="Read the target (symbol or path) from stdin.")
    ] = False,
    query_text: Annotated[
        str | None, typer.Option("--query", metavar="TEXT", help="The target (symbol or path), instead of stdin.")
    ] = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Ask again even if the store has an answer.")] = False,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Prepare graph evidence for a session's work; prints the packet handle, never the evidence."""
    from ..connections.session import MAX_SESSION_BYTES, parse_session, prepare
    from ..connections.store import ConnectionStore

    if query_stdin == (query_text is not None):
        raise InvalidInput("Give the target once: --query TEXT, or on stdin with --query-stdin.")
    session = parse_session(read_regular_file(session_file, MAX_SESSION_BYTES, "session file"))
    query = (sys.stdin.read(4096) if query_stdin else query_text or "")[:4096].strip()
    outcome, code = prepare(ConnectionStore(state_root(state_dir)), session, question.value, query, refresh=refresh)
    show_mapping(f"Session context: {outcome['status']}", outcome, json_output)
    raise typer.Exit(code)


