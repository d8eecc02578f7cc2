"""The one reply envelope of every agent answer, and the one shape of a next action.

``code_context``, ``ask``, ``cross_repo_usages``, ``graph_status`` and ``graph_feedback`` (and the
CLI's ``--json`` of the same answers) each carry their own body, inside the same envelope, in one
key order: ``schema``, ``status``, ``answer`` (the prose; a refusal's sentence), then the body
(a ``reason`` and ``detail`` first when the graph could not answer), then ``freshness`` (what the
answer was read from against HEAD now; at least its ``state``), ``bounds`` (what bounded it; at
least whether it was ``truncated``), the two ids (``capability_id`` and ``answer_id``, None when
there is no answer) and ``next_actions``. A client can therefore read any reply of any tool, a
refusal included, the same way, and the tools' output schemas say so (``output_schema``).

A next action is ``{why, command}``, plus ``tool`` and ``arguments`` when an MCP tool does the
same, so an agent can call it instead of shelling out. The remedy of a reason (``base/errors.py``)
is one; its placeholders (``TARGET``, ``PATH``, ``FLEET``, ``CONNECTION``, ``RECIPIENT``,
``STATE``) are filled here from what the caller knows, and a tool call left with a placeholder is not offered.

This sits in ``base/`` because every stage that answers an agent builds one: ``context/``,
``fleet/``, ``surfaces/``.
"""

from __future__ import annotations

import shlex

from .errors import Remedy, remedy

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

REFUSED_SCHEMA = "cm_graph.surfaceRefusal.v1"
ENVELOPE_HEAD = ("schema", "status", "answer")
ENVELOPE_TAIL = ("freshness", "bounds", "capability_id", "answer_id", "next_actions")
PLACEHOLDERS = ("TARGET", "PATH", "FLEET", "CONNECTION", "RECIPIENT", "STATE")
# A refusal is given before, or instead of, judging the graph: its freshness says so, and names no
# commit or generation (a recipient the connection does not name learns nothing about the checkout).
NOT_JUDGED: dict[str, Any] = {"state": "not_checked", "head": None, "commit": None, "generation": None}
NOT_CUT: dict[str, Any] = {"truncated": False}  # the bounds of a reply nothing was cut from
_NULLABLE_TEXT = {"type": ["string", "null"]}
# The envelope as JSON Schema (tests hold every reply of every tool, refusals too, to it).
ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [*ENVELOPE_HEAD, *ENVELOPE_TAIL],
    "properties": {
        "schema": {"type": "string", "pattern": r"^(cm_graph|code_mower)\.[A-Za-z]+\.v[0-9]+$"},
        "status": {"type": "string", "minLength": 1},
        "answer": {"type": "string", "minLength": 1},
        "reason": _NULLABLE_TEXT,
        "detail": _NULLABLE_TEXT,
        "freshness": {"type": "object", "required": ["state"], "properties": {"state": {"type": "string"}}},
        "bounds": {"type": "object", "required": ["truncated"], "properties": {"truncated": {"type": "boolean"}}},
        "capability_id": {"type": ["string", "null"], "pattern": "^cmg:"},
        "answer_id": {"type": ["string", "null"], "pattern": "^sha256:[0-9a-f]{64}$"},
        "next_actions": {"type": "array", "items": {
            "type": "object", "required": ["why", "command"], "additionalProperties": False,
            "properties": {"why": {"type": "string", "minLength": 1}, "command": {"type": "string", "minLength": 1},
                           "tool": {"type": "string"}, "arguments": {"type": "object"}},
            "dependentRequired": {"tool": ["arguments"], "arguments": ["tool"]},
        }},
    },
}


def output_schema(*whole: str) -> dict[str, Any]:
    """A tool's ``outputSchema``: the envelope's keys, since hosts keep every tool's listing beside
    the model on every turn (``ENVELOPE_SCHEMA`` in full); its ``$comment`` names the resources
    holding the ``whole`` schemas of its replies (``surfaces/replyschemas.py``; every tool's
    refusal is ``REFUSED_SCHEMA``'s), where a next action's keys are too."""
    brief: dict[str, Any] = {"type": "object", "required": list(ENVELOPE_SCHEMA["required"])}
    if whole:
        brief["$comment"] = " ".join(f"cmgraph://schemas/{name}" for name in whole)
    return brief


def reply(
    schema: str, status: str, answer: str, *, freshness: dict[str, Any], bounds: dict[str, Any],
    capability_id: str | None = None, answer_id: str | None = None, next_actions: Iterable[dict[str, Any]] = (),
    **body: Any,
) -> dict[str, Any]:
    """One reply in the envelope's key order; ``body`` (the tool's own keys, a ``reason`` and
    ``detail`` first when there is one) goes between the prose and the freshness, in its order."""
    return {"schema": schema, "status": status, "answer": answer, **body, "freshness": freshness,
            "bounds": bounds, "capability_id": capability_id, "answer_id": answer_id,
            "next_actions": list(next_actions)}


def refusal(
    detail: str, *, reason: str, connection: str | None = None, recipient: str | None = None,
    state: str | None = None,
) -> dict[str, Any]:
    """The one refusal reply of every surface (a tool's ``isError``, a REST 4xx, the HTTP door's).

    It carries every key of the envelope, ``freshness`` included, so a client that checks
    ``structuredContent`` against the schema on an ``isError`` reply too, as the TypeScript SDK
    does, shows the refusal rather than a schema error; its next action is the reason's remedy
    (the connection, recipient and state root a server was started for fill its placeholders)."""
    actions = remedy_actions(reason, connection=connection, recipient=recipient, state=state)
    return reply(REFUSED_SCHEMA, "refused", detail, reason=reason, detail=detail, freshness=dict(NOT_JUDGED),
                 bounds=dict(NOT_CUT), next_actions=actions)


def next_action(
    why: str, command: str, tool: str | None = None, arguments: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """One next action: why, the shell command, and the MCP tool call that does the same."""
    action: dict[str, Any] = {"why": why, "command": command}
    if tool is not None:
        action.update(tool=tool, arguments=dict(arguments or {}))
    return action


def remedy_actions(reason: str | None, *, own: Remedy | None = None, **known: str | None) -> list[dict[str, Any]]:
    """The next action of ``reason``'s remedy (``own``: a judgement's more precise one), with the
    placeholders filled from ``known`` (``target=``, ``path=``, ``fleet=``, ``connection=``,
    ``recipient=``, ``state=``);
    none when there is no reason or the remedy names no command."""
    found = own or (remedy(reason) if reason is not None else None)
    if found is None or found.command is None:
        return []
    values = {name.upper(): value for name, value in known.items() if value is not None}
    command = " ".join(shlex.quote(values[word]) if word in values else word for word in found.command.split(" "))
    if found.tool is None or found.arguments is None:
        return [next_action(found.why, command)]
    arguments = {key: values.get(value, value) if isinstance(value, str) else value
                 for key, value in found.arguments.items()}
    if any(value in PLACEHOLDERS for value in arguments.values()):
        return [next_action(found.why, command)]
    return [next_action(found.why, command, found.tool, arguments)]
