"""``cm-graph agents init`` and ``agents remove``: the terminal side of ``cm_graph/agents/``.

A thin shell: each command calls the agents package inside the one error boundary and prints a
line per file (with ``--dry-run``, the unified diff of what it would write, and nothing is
written), or the summary as JSON with ``--json``.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from ..base.printable import printable
from .boundary import print_json
from .command_kit import Connection, Json, RepoPath, StateDir, refusals_exit

agents_app = typer.Typer(no_args_is_help=True)  # its help is the command table's


class HostName(StrEnum):
    claude = "claude"
    codex = "codex"
    cursor = "cursor"
    all = "all"


HostOption = Annotated[HostName, typer.Option("--host", help="Which host to set up: claude, codex, cursor or all.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show the unified diff of every change; write nothing.")]


def _show(summary: dict[str, Any], json_output: bool) -> None:
    if json_output:
        print_json(summary)
        return
    if summary["dry_run"]:
        for line in summary["diff"].splitlines():
            sys.stdout.write(printable(line) + "\n")
    verb = "would " if summary["dry_run"] else ""
    for change in summary["files"]:
        action = change["action"] if change["action"] == "unchanged" else verb + change["action"]
        sys.stdout.write(f"{action} {printable(change['path'])}\n")
    connection = summary["connection"]
    sys.stdout.write(f"connection {connection['name']}: {connection['state']}; "
                     f"state root {printable(summary['state_root'])}\n")
    if "disconnect" in connection:
        sys.stdout.write(f"(to disconnect it too: {connection['disconnect']})\n")


@agents_app.command("init")
@refusals_exit
def agents_init_command(
    host: HostOption = HostName.all,
    dry_run: DryRun = False,
    connection: Connection = "local-graph",
    repository: Annotated[
        str | None, typer.Option("--repository", help="owner/repo, for a connection made here (default local/DIR).")
    ] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Write the agent instructions block and register the MCP server for each host."""
    from ..agents.plan import agents_init

    _show(agents_init(repo_path, state_dir, host.value, connection, repository, dry_run=dry_run), json_output)


@agents_app.command("remove")
@refusals_exit
def agents_remove_command(
    host: HostOption = HostName.all,
    dry_run: DryRun = False,
    connection: Connection = "local-graph",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Take back what agents init wrote: each block and entry out, each file it made deleted."""
    from ..agents.plan import agents_remove

    _show(agents_remove(repo_path, state_dir, host.value, connection, dry_run=dry_run), json_output)
