"""``cm-graph feedback record``: one outcome about one answer, checked before it is kept.

The caller names the answer the way it asked it (intent or question, target, arguments) and the
``answer_id`` it was given. The answer is asked again on the current graph: only when the id is
reproduced is the outcome kept, so every stored outcome grades an answer this graph really gives
(and the eval case of a correct one carries that answer's own generation, commit and cited set).
A refresh in between changes the id, and the outcome is refused rather than pinned to an answer
nobody can replay.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any

from ..base.errors import InvalidInput, Refusal
from ..base.rules import bounded_text, exact_int, identifier, is_bounded_text
from ..connections.store import ConnectionStore
from ..fleet.members import MemberAccess
from ..generation.layout import Workspace, workspace_id
from ..query.questions import MAX_TARGET_CHARS
from .outcomes import OutcomeStore
from .reask import reask

RECORD_SCHEMA = "cm_graph.feedbackRecord.v1"
MAX_NOTE_CHARS = 200
MAX_REPORTED_FILES = 1_000_000
_ANSWER_ID = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)
_CLIENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}", re.ASCII)


def is_client_name(name: Any) -> bool:
    """Whether ``name`` can be stored as an outcome's client (the surfaces check their recipient)."""
    return isinstance(name, str) and _CLIENT.fullmatch(name) is not None


NOT_REPRODUCED = ("The answer id is not what this question answers on the current graph (it was refreshed "
                  "since, or the arguments differ); ask again and report the new answer's id.")


def record_outcome(
    workspace: Workspace, *, kind: str, intent: str, target: Any, arguments: dict[str, Any], answer_id: Any,
    client: Any, reads_avoided: Any, files_read: Any, correct: bool, connection: str | None = None,
    note: Any = None, keep_note: bool = False, now: datetime | None = None, derive: bool = True,
    fleet_access: MemberAccess | None = None,
) -> dict[str, Any]:
    if not isinstance(answer_id, str) or not _ANSWER_ID.fullmatch(answer_id):
        raise InvalidInput("The answer id must be sha256: and 64 lowercase hex digits, as the answer gave it.")
    if not is_client_name(client):
        raise InvalidInput("The client must be 1-64 letters, digits, '.', '_', ':' or '-'.")
    if not is_bounded_text(target, MAX_TARGET_CHARS):
        raise InvalidInput(f"The target must be non-empty single-line text of at most {MAX_TARGET_CHARS} characters.")
    avoided = exact_int(reads_avoided, "reads_avoided", 0, MAX_REPORTED_FILES)
    read = exact_int(files_read, "files_read", 0, MAX_REPORTED_FILES)
    if note is not None:
        note = bounded_text(note, "The note", MAX_NOTE_CHARS)
    if connection is not None:
        identifier(connection, "The connection name")
        known = ConnectionStore(workspace.root).read(connection)
        if known is None or known.state == "disconnected":
            raise Refusal("No such connected connection; connect it or leave --connection out.",
                          reason="not_configured")
    answer = reask(workspace, kind, intent, target, arguments, derive=derive, fleet_access=fleet_access)
    if answer.answer_id != answer_id:
        raise Refusal(NOT_REPRODUCED, reason="not_reproduced")
    at = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0).isoformat()
    outcome = {
        "at": at, "workspace": workspace_id(workspace.checkout), "client": client, "connection": connection,
        "capability_id": answer.capability_id, "answer_id": answer.answer_id, "generation": answer.generation,
        "kind": answer.kind, "intent": answer.intent, "target": answer.target,
        "reads_avoided": avoided, "files_read": read, "correct": int(bool(correct)),
        "note_sha256": hashlib.sha256(note.encode("utf-8")).hexdigest() if note is not None else None,
        "note": note if keep_note else None,
    }
    case = None
    if correct and answer.answered:
        case = {"answer_id": answer.answer_id, "capability_id": answer.capability_id, "kind": answer.kind,
                "intent": answer.intent, "target": answer.target, "arguments": answer.arguments,
                "generation": answer.generation, "commit": answer.commit, "cited": list(answer.cited)}
    with OutcomeStore(workspace.root, mode="create") as store:
        added, seq = store.append(outcome, case)
    return {
        "schema": RECORD_SCHEMA, "status": "recorded" if added else "already_recorded", "seq": seq,
        "capability_id": answer.capability_id, "answer_id": answer.answer_id, "generation": answer.generation,
        "eval_case": case is not None, "note": "kept" if note is not None and keep_note else
        "digest_only" if note is not None else "none",
    }
