"""What an operator does with the outcome store as a whole: report, export, purge, and the purge
``disconnect`` owes a connection (its outcomes go with its packets)."""

from __future__ import annotations

from typing import Any

from ..base.errors import Refusal
from ..base.rules import identifier
from ..connections.store import ConnectionStore, disconnect
from ..generation.layout import Workspace, workspace_id
from .outcomes import OutcomeStore
from .rewards import report

EXPORT_SCHEMA = "cm_graph.feedbackExport.v1"
PURGE_SCHEMA = "cm_graph.feedbackPurge.v1"


def report_outcomes(workspace: Workspace) -> dict[str, Any]:
    with OutcomeStore(workspace.root) as store:
        return report(store.outcomes(workspace_id(workspace.checkout)))


def export_outcomes(workspace: Workspace) -> dict[str, Any]:
    """Every outcome (replay order) and eval case of this checkout, as stored."""
    wid = workspace_id(workspace.checkout)
    with OutcomeStore(workspace.root) as store:
        return {"schema": EXPORT_SCHEMA, "outcomes": store.outcomes(wid), "cases": store.cases(wid)}


def purge_outcomes(workspace: Workspace, connection: str | None = None) -> dict[str, Any]:
    """This checkout's outcomes, or (``connection``) those recorded through one connection."""
    with OutcomeStore(workspace.root, mode="write") as store:
        if connection is not None:
            purged = store.purge_connection(identifier(connection, "The connection name"))
        else:
            purged = store.purge_workspace(workspace_id(workspace.checkout))
    return {"schema": PURGE_SCHEMA, "status": "purged", "outcomes_purged": purged,
            "scope": "connection" if connection is not None else "checkout"}


def disconnect_and_purge(store: ConnectionStore, name: str) -> dict[str, Any]:
    """``disconnect``: the connection's packets and then its outcomes; a store that cannot be
    purged says so (``outcome_cleanup``) and leaves the disconnect in force."""
    summary = disconnect(store, name)
    try:
        with OutcomeStore(store.root, mode="write") as outcomes:
            purged = outcomes.purge_connection(name)
    except Refusal:
        return summary | {"outcome_cleanup": "needs_attention"}
    return summary | {"outcome_cleanup": "complete", "outcomes_purged": purged}
