"""``cm-graph agents init`` and ``agents remove``: every change planned first, then written.

A plan is the bytes of each file before and after, computed from the files as they are, and
refused as a whole (a symlink, a config that does not parse, a damaged block) before anything is
written, so a refusal never leaves half the hosts set up. ``--dry-run`` shows the plan as a
unified diff and writes nothing; otherwise each change is one atomic write (``checkoutfs``).
``init`` also creates the local connection the registrations name when there is none (the
connection store's own ``connect``); ``remove`` takes back the files only: the connection may serve
other tools, so it says how to disconnect it instead of doing so.
"""

from __future__ import annotations

import difflib
import os
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput, UnparsableConfig
from ..connections.store import ConnectionStore, connect
from ..generation.layout import Workspace, resolved_state_root
from .blocks import MARKDOWN, TOML, place_block, take_out_block
from .checkoutfs import delete_checkout_file, read_checkout_file, write_checkout_file
from .hosts import HOSTS, INSTRUCTIONS_BLOCK, Host, chosen, server_entry, toml_table
from .jsonsplice import REGISTERED_NAME, place_entry, take_out_entry

AGENTS_SCHEMA = "cm_graph.agentsSetup.v1"


@dataclass(frozen=True)
class Change:
    """One checkout file: its text before and after (None: the file does not exist)."""

    path: str
    before: str | None
    after: str | None

    @property
    def action(self) -> str:
        if self.before == self.after:
            return "unchanged"
        return "create" if self.before is None else "delete" if self.after is None else "update"


def _read(checkout: Path, relative: str) -> str | None:
    data = read_checkout_file(checkout, relative)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UnparsableConfig(f"{relative} is not UTF-8 text; cm-graph agents leaves it as it is.") from None


def program_path() -> str:
    """The absolute path of the ``cm-graph`` a host should start: this interpreter's own console
    script when it has one (a venv's), else the one on PATH, else the bare name."""
    beside = Path(sys.executable).parent / "cm-graph"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("cm-graph")
    return str(Path(found).absolute()) if found else "cm-graph"


def _codex_config(before: str | None, entry: dict[str, Any], where: str) -> str:
    rest = take_out_block(before, TOML, where) if before is not None else None
    try:
        existing = tomllib.loads(rest or "")
    except tomllib.TOMLDecodeError as error:
        raise UnparsableConfig(f"{where} is not valid TOML ({error}); cm-graph agents leaves it as it is.") from None
    servers = existing.get("mcp_servers", {})
    if not isinstance(servers, dict) or REGISTERED_NAME in servers:
        raise UnparsableConfig(f"{where} already defines mcp_servers.{REGISTERED_NAME} (or mcp_servers is not a table) "
                               "outside cm-graph's block; remove that table, then run the command again.")
    placed = place_block(before, toml_table(entry), TOML, where)
    try:
        written = tomllib.loads(placed)["mcp_servers"][REGISTERED_NAME]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        written = None
    if written != entry:
        raise UnparsableConfig(f"{where} cannot take the table without changing its other text "
                               "(mcp_servers is defined inline?); cm-graph agents leaves it as it is.")
    return placed


def init_plan(workspace: Workspace, hosts: tuple[Host, ...], connection: str, program: str) -> list[Change]:
    """What ``agents init`` changes for ``hosts``, in a stable order (instructions, then configs)."""
    checkout, root = workspace.checkout, workspace.root
    changes: list[Change] = []
    for relative in dict.fromkeys(host.instructions for host in hosts):
        before = _read(checkout, relative)
        changes.append(Change(relative, before, place_block(before, INSTRUCTIONS_BLOCK, MARKDOWN, relative)))
    for host in hosts:
        before = _read(checkout, host.config)
        entry = server_entry(host, program, connection, root)
        after = (_codex_config(before, entry, host.config) if host.config_format == "toml"
                 else place_entry(before, entry, host.config))
        changes.append(Change(host.config, before, after))
    return changes


def remove_plan(workspace: Workspace, hosts: tuple[Host, ...]) -> list[Change]:
    """What ``agents remove`` changes: each block and entry out, each file init made deleted."""
    checkout = workspace.checkout
    changes: list[Change] = []
    for relative in dict.fromkeys(host.instructions for host in hosts):
        before = _read(checkout, relative)
        changes.append(Change(relative, before, None if before is None else take_out_block(before, MARKDOWN, relative)))
    for host in hosts:
        before = _read(checkout, host.config)
        if before is None:
            after = None
        elif host.config_format == "toml":
            after = take_out_block(before, TOML, host.config)
        else:
            after = take_out_entry(before, host.config)
        changes.append(Change(host.config, before, after))
    return changes


def apply(workspace: Workspace, changes: list[Change]) -> None:
    for change in changes:
        if change.action in ("create", "update"):
            assert change.after is not None
            write_checkout_file(workspace.checkout, change.path, change.after.encode("utf-8"))
        elif change.action == "delete":
            delete_checkout_file(workspace.checkout, change.path)


def unified_diff(changes: list[Change]) -> str:
    """The plan as one unified diff (``a/PATH`` and ``b/PATH``; /dev/null for a new or deleted file)."""
    lines: list[str] = []
    for change in changes:
        if change.action == "unchanged":
            continue
        lines.extend(difflib.unified_diff(
            (change.before or "").splitlines(keepends=True), (change.after or "").splitlines(keepends=True),
            "/dev/null" if change.before is None else f"a/{change.path}",
            "/dev/null" if change.after is None else f"b/{change.path}"))
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
    return "".join(lines)


def ensure_connection(
    workspace: Workspace, hosts: tuple[Host, ...], connection: str, repository: str, *, dry_run: bool
) -> str:
    """"existing" when the connection is verified and names every host's recipient; "created"
    (or "would create") when there was none, or only a disconnected one, naming every known
    host's recipient (so a later ``--host`` finds it ready); refused when it exists but leaves a
    chosen host's recipient out (a connection is changed only by disconnecting it first), and when
    it is another checkout's (its server would answer about that checkout, not this one)."""
    store = ConnectionStore(workspace.root)
    found = store.read(connection)
    if found is not None and found.state == "verified" and found.repository_root != workspace.checkout:
        raise InvalidInput(f"The connection {connection} in this state root is another checkout's; name one for this "
                           "checkout with --connection NAME (a lowercase identifier).")
    if found is not None and found.state == "verified":
        missing = [host.recipient for host in hosts if host.recipient not in found.recipients]
        if missing:
            raise InvalidInput(
                f"The connection {connection} does not name {', '.join(missing)}; connect it again with every "
                f"recipient (cm-graph disconnect --connection {connection}, then cm-graph connect --connection "
                f"{connection} --repository OWNER/REPO --recipient ... for each), or choose another --connection.")
        return "existing"
    if dry_run:
        return "would create"
    connect(store, connection, workspace.checkout, [repository], [host.recipient for host in HOSTS.values()])
    return "created"


def locate(repo_path: Path | None, state_dir: Path | None) -> Workspace:
    """The checkout and its absolute, real state root (refused inside a work tree): what every
    registration names."""
    workspace = Workspace.locate(repo_path, state_dir)
    return Workspace(workspace.checkout, resolved_state_root(workspace.root))


def summary(command: str, workspace: Workspace, changes: list[Change], *, dry_run: bool,
            connection: dict[str, Any]) -> dict[str, Any]:
    return {"schema": AGENTS_SCHEMA, "command": command, "dry_run": dry_run, "checkout": str(workspace.checkout),
            "state_root": str(workspace.root), "connection": connection,
            "files": [{"path": change.path, "action": change.action} for change in changes],
            "diff": unified_diff(changes)}


def agents_init(repo_path: Path | None, state_dir: Path | None, host: str, connection: str,
                repository: str | None, *, dry_run: bool) -> dict[str, Any]:
    workspace = locate(repo_path, state_dir)
    hosts = chosen(host)
    changes = init_plan(workspace, hosts, connection, program_path())
    state = ensure_connection(workspace, hosts, connection, repository or f"local/{workspace.checkout.name}",
                              dry_run=dry_run)
    if not dry_run:
        apply(workspace, changes)
    return summary("init", workspace, changes, dry_run=dry_run,
                   connection={"name": connection, "state": state})


def agents_remove(repo_path: Path | None, state_dir: Path | None, host: str, connection: str,
                  *, dry_run: bool) -> dict[str, Any]:
    workspace = locate(repo_path, state_dir)
    changes = remove_plan(workspace, chosen(host))
    if not dry_run:
        apply(workspace, changes)
    return summary("remove", workspace, changes, dry_run=dry_run, connection={
        "name": connection, "state": "kept",
        "disconnect": f"cm-graph disconnect --connection {connection} --state-dir {workspace.root}"})
