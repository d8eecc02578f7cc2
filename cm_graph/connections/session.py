"""Guided sessions: ``cm_graph.session.v1`` files and ``session prepare``'s outcomes.

A session names who the evidence is for (connection, repository, work item, recipient), under
which policy, and the directory the work happens in — whose commit is the consuming revision.
Required context that cannot be prepared pauses the work; optional context degrades.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput, Refusal
from ..base.jsonio import loads_strict
from ..base.rules import bounded_text, identifier
from ..evidence.availability import Wording, exit_code, unavailable_outcome
from .store import ConnectionStore, consuming_revision, fetch, guided_recipient

SESSION_SCHEMA = "cm_graph.session.v1"
MAX_SESSION_BYTES = 65_536
_KEYS = {"schema", "connection", "repository", "work_item", "recipient", "policy", "directory"}


def parse_session(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_SESSION_BYTES:
        raise InvalidInput("The session file exceeds 64 KiB.")
    value = loads_strict(data, "The session file")
    if not isinstance(value, dict) or set(value) != _KEYS or value["schema"] != SESSION_SCHEMA:
        raise InvalidInput(f"The session file must hold exactly: {', '.join(sorted(_KEYS))} ({SESSION_SCHEMA}).")
    identifier(value["connection"], "The session's connection")
    for key in ("repository", "work_item", "recipient"):
        bounded_text(value[key], f"The session's {key}")
    directory = bounded_text(value["directory"], "The session's directory", 4096)
    if not Path(directory).is_absolute():
        raise InvalidInput("The session's directory must be an absolute path.")
    if not isinstance(value["policy"], dict):
        raise InvalidInput("The session's policy must be a JSON object.")
    return value


def session_document(
    *, connection: str, repository: str, recipient: str, work_item: str, directory: Path,
    required: bool, policy_version: str, max_documents: int,
) -> dict[str, Any]:
    """A session file's content from ``session init``'s flags, refused exactly as ``prepare``
    would refuse it (and its policy as ``prepare`` validates it), so no hand-written JSON."""
    from ..base.jsonio import dumps_canonical
    from ..evidence.authorization import POLICY_SCHEMA, parse_policy

    document = {
        "schema": SESSION_SCHEMA, "connection": connection, "repository": repository,
        "work_item": work_item, "recipient": recipient, "directory": str(directory),
        "policy": {
            "schema": POLICY_SCHEMA, "connection": connection, "policy_version": policy_version,
            "required": required, "max_documents": max_documents,
        },
    }
    parse_session(dumps_canonical(document))
    parse_policy(document["policy"])
    guided_recipient(recipient)
    return document


def prepare(
    store: ConnectionStore, session: dict[str, Any], question: str, query: str, *, refresh: bool = False
) -> tuple[dict[str, Any], int]:
    """Return (outcome, exit code): available with a handle, or unavailable per the policy."""
    required = session["policy"].get("required", True) is not False
    if store.read(session["connection"]) is None:
        return {
            "status": "not_configured", "dependent_work": "usable",
            "detail": "No local graph connection of that name is configured.",
            "next_action": "Continue with ordinary repository tools, or connect one with `cm-graph connect`.",
        }, 0
    try:
        guided_recipient(session["recipient"])
        revision = consuming_revision(Path(session["directory"]))
        summary = fetch(
            store, session["connection"], repository=session["repository"],
            work_item=session["work_item"], recipient=session["recipient"], query=query,
            question=question, policy_json=session["policy"], revision=revision, refresh=refresh,
        )
        return summary, 0
    except Refusal as refusal:
        outcome = unavailable(required, refusal.reason, refusal.message, stage="preparing")
        return outcome, exit_code(outcome)


# How a guided session's caller is told what to do when the evidence is unavailable
# (evidence/availability.py); ``context fetch`` reads packets prepared here and says the same.
SESSION_WORDING = Wording(
    carry_on="Continue with ordinary repository tools.",
    paused=" Then prepare again.",
    owner_action=True,
    own={"superseded": "The graph was rebuilt after this packet was prepared; pass --refresh."},
)


def unavailable(required: bool, reason: str, detail: str, *, stage: str) -> dict[str, Any]:
    """A session's unavailable outcome at ``stage`` (preparing, fetching)."""
    return unavailable_outcome(required, reason, detail, SESSION_WORDING, stage=stage)
