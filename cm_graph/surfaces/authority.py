"""Who a surface serves, and the per-call check that it may serve them now.

A server is started for one local connection and one recipient, but neither is trusted from
start-up: every call reads the connection's state file again (the seed: authorization is never
cached), so a ``disconnect`` or a changed recipient list takes effect on the next call without a
restart. The consuming revision is the checkout's own HEAD, read per call for the same reason.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..base.envelope import next_action
from ..base.errors import ConnectionRefusal, NoConnection
from ..base.git import resolve_revision
from ..connections.store import ConnectionStore, authorize_judged
from ..evidence.authorization import POLICY_SCHEMA, Authorization, parse_policy
from ..fleet.members import Member, MemberAccess, member_authorizes, state_root
from ..generation.layout import Workspace
from ..generation.status import GraphStatus

SURFACE_WORK_ITEM = "agent-surface"
SURFACE_POLICY_VERSION = "surface-v1"
# A question answered over MCP or REST degrades (optional) rather than pausing the agent's work:
# the agent can always fall back on reading files. Documents up to the packet's own ceiling.
SURFACE_MAX_DOCUMENTS = 16


@dataclass(frozen=True)
class Caller:
    """The server's identity: a state root, the connection it serves and the recipient it is, and
    where the root came from (``generation.layout.state_root_origin``), which a reply that found
    nothing there names."""

    state_root: Path
    connection: str
    recipient: str
    state_origin: str = "--state-dir"

    @property
    def store(self) -> ConnectionStore:
        return ConnectionStore(self.state_root)


def approved_workspace(caller: Caller) -> tuple[Workspace, tuple[str, ...]]:
    """The connection's checkout and approved repositories, refused (``unauthorized``) when the
    connection is missing, disconnected, or does not name this recipient."""
    store = caller.store
    connection = store.read(caller.connection)
    if connection is None:
        raise NoConnection(f"No local graph connection {caller.connection} is configured here. "
                           + where_it_looked(caller))
    if connection.state != "verified":
        raise ConnectionRefusal("The connection is disconnected.")
    if caller.recipient not in connection.recipients:
        raise ConnectionRefusal("The connection does not name this recipient; evidence goes only where it says.")
    return Workspace(connection.repository_root, store.root), connection.repositories


def where_it_looked(caller: Caller, workspace: Workspace | None = None) -> str:
    """The sentence a reply that found no connection or no graph ends with: the state root the
    server read and where that root came from, the connection file, the checkout, and how to serve
    another root. A host that starts the server without the operator's environment (the MCP
    Inspector 2.x passes no ``CM_GRAPH_HOME``) makes it read the default root; this says so."""
    store = caller.store
    checkout = f", for the checkout {workspace.checkout}" if workspace is not None else ""
    return (f"The server read the state root {store.root} (from {caller.state_origin}) and the connection file "
            f"{store.state_path(caller.connection)}{checkout}; to serve another root, start it with --state-dir DIR "
            f"or put CM_GRAPH_HOME=DIR in the env block of the host's MCP config (cm-graph agents init writes it).")


def serve_elsewhere(caller: Caller) -> dict[str, Any]:
    """The next action of a server that reads the wrong state root: serve the one that has it."""
    return next_action("or serve the state root that has the connection and its graph",
                       f"cm-graph mcp --connection {caller.connection} --recipient {shlex.quote(caller.recipient)} "
                       "--state-dir DIR")


def located(
    caller: Caller, workspace: Workspace, reason: str | None, detail: str, actions: list[dict[str, Any]]
) -> tuple[str, list[dict[str, Any]]]:
    """A reply that found no graph (``absent``), told where it looked: the sentence ends with
    ``where_it_looked``, the build is for this checkout in the server's own root (a bare
    ``cm-graph build`` would build into whatever root the agent's shell has), and serving another
    root is offered. Any other reason is left as it is."""
    if reason != "absent":
        return detail, actions
    build = (f"cm-graph build --repo-path {shlex.quote(str(workspace.checkout))} "
             f"--state-dir {shlex.quote(str(caller.store.root))}")
    rooted = [{**action, "command": build} if action["command"] == "cm-graph build" else action
              for action in actions]
    return f"{detail} {where_it_looked(caller, workspace)}", [*rooted, serve_elsewhere(caller)]


def fleet_access(caller: Caller) -> MemberAccess:
    """The caller's rule for fleet evidence, ``member_authorizes`` for its recipient (each call
    reads the member connections again): ``cross_repo_usages`` and a fleet's ``graph_status``
    refuse a call on a member it refuses; ``code_context``, and the re-ask ``graph_feedback``
    makes of it, leave that member's evidence out and list it ``unauthorized``. The fleet's store
    is resolved when the first member is asked about, not on every call of a checkout with no
    fleet."""
    stores: list[ConnectionStore] = []

    def access(member: Member) -> bool:
        if not stores:  # resolved at the first member asked about: most answers ask about none
            stores.append(ConnectionStore(state_root(caller.state_root)))
        return member_authorizes(stores[0], member, caller.recipient)

    return access


def head_commit(workspace: Workspace) -> str:
    """The consuming revision: the checkout's HEAD as it is at this call."""
    return resolve_revision(workspace.checkout, "HEAD").commit


def evidence_authorization(
    caller: Caller, revision: str, now: datetime, judged: Callable[[Workspace], GraphStatus | None] | None = None,
) -> tuple[Authorization, Workspace, GraphStatus]:
    """An authorization re-derived from current state for one question at ``revision``: the
    connection's envelope for the generation current now (a ``Refusal`` with the graph's state
    when there is none), for the first approved repository, under the surfaces' policy; with the
    status it was minted from, which the question then answers from. ``judged``: the resident
    server's held judgement of a workspace (None for any other), used instead of judging again;
    the connection file is read, and the envelope minted, on every call all the same."""
    store = caller.store
    with store.lock(caller.connection, wait=5.0):
        envelope, workspace, status = authorize_judged(store, caller.connection, revision, now, trust_seal=True,
                                                       judged=judged)
    if caller.recipient not in envelope["recipients"]:
        raise ConnectionRefusal("The connection does not name this recipient; evidence goes only where it says.")
    policy: dict[str, Any] = {
        "schema": POLICY_SCHEMA, "connection": caller.connection,
        "policy_version": SURFACE_POLICY_VERSION, "required": False, "max_documents": SURFACE_MAX_DOCUMENTS,
    }
    repository = envelope["repositories"][0]
    return Authorization(envelope, parse_policy(policy), repository, SURFACE_WORK_ITEM), workspace, status
