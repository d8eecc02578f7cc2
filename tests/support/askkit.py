"""Shared set-up for question tests: the reference's envelope, policy, clock and a one-call ask."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cm_graph.evidence.ask import Outcome, ask
from cm_graph.evidence.authorization import Authorization, mint_envelope, parse_policy
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current

from .helpers import publish

T = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
RECIPIENTS = ["claude:builder", "codex:reviewer", "devin:builder"]


def policy(required: bool = True, **limits: Any) -> dict[str, Any]:
    return {
        "schema": "code_mower.contextPolicy.v1",
        "connection": "local-graph",
        "policy_version": "v1",
        "required": required,
        **limits,
    }


def authorization(
    workspace: Workspace,
    *,
    required: bool = True,
    generation: str | None = None,
    expires_in: timedelta = timedelta(hours=1),
    envelope_changes: dict[str, Any] | None = None,
    **limits: Any,
) -> Authorization:
    generation = generation or read_current(workspace).id
    envelope = mint_envelope(
        connection="local-graph", generation=generation,
        repository_root=str(workspace.checkout), repositories=["owner/repo"],
        recipients=list(RECIPIENTS), now=T, provider="synthetic-graph",
    )
    envelope["expires_at"] = (T + expires_in).isoformat()
    envelope.update(envelope_changes or {})
    return Authorization(envelope, parse_policy(policy(required, **limits)), "owner/repo", "work-item-one")


def ask_graph(
    repo: Path, state: Path, graph: dict[str, Any], question: str, target: str,
    *, required: bool = True, depth: Any = None, node_budget: Any = None, **limits: Any,
) -> Outcome:
    workspace = publish(repo, state, graph)
    return ask(
        workspace, question, target, authorization(workspace, required=required, **limits),
        depth=depth, node_budget=node_budget, now=T,
    )


def texts(outcome: Outcome) -> list[str]:
    assert outcome.packet is not None, outcome.summary
    return [d["text"] for d in outcome.packet["documents"]]


def citations(outcome: Outcome, index: int) -> list[tuple[str, str]]:
    assert outcome.packet is not None, outcome.summary
    return [(c["source"], c["title"]) for c in outcome.packet["documents"][index]["citations"]]
