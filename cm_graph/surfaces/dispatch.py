"""One call of one tool, the same on every surface: check the arguments, run, classify.

Both MCP and REST call ``call_tool`` and send what it returns, so the two surfaces cannot
disagree: the same arguments give the same object, serialised once (``wire_bytes``) as the
compact JSON both the MCP text content and the REST body carry. ``is_error`` is true only for a
refusal (arguments the schema rejects, a recipient the connection does not name) or a fault of
this program; every state of the graph is an ordinary answer (see ``answers.py``). Every reply,
a refusal too, is in the one envelope (``base/envelope.py``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema

from ..base.envelope import refusal
from ..base.errors import Refusal
from ..base.jsonio import dumps_wire
from ..base.printable import printable
from .authority import Caller, serve_elsewhere
from .tools import BY_NAME, Tool

LOG = logging.getLogger("cm_graph.surfaces")


@dataclass(frozen=True)
class Reply:
    payload: dict[str, Any]
    is_error: bool

    @property
    def body(self) -> bytes:
        return wire_bytes(self.payload)


def wire_bytes(payload: dict[str, Any]) -> bytes:
    """The compact JSON of an answer, in the answer's own key order (never pretty-printed: the
    SDK's default indent would double the characters an agent pays for)."""
    return dumps_wire(payload).encode("utf-8")


def argument_error(tool: Tool, arguments: Any) -> str | None:
    """One sentence naming the first argument the schema rejects, or None.

    The verdict is a pure function of the tool and the arguments (every argument a tool takes is
    a scalar): a call's arguments and its next actions' repeat from call to call, so the verdict
    on arguments of scalars only is kept, under their JSON text in their own key order (which the
    first error named may depend on; ``true`` and ``1``, ``1`` and ``1.0`` stay apart), bounded
    by ``MAX_VERDICTS``, rather than the schema walked again for each."""
    if not isinstance(arguments, dict):
        return "The arguments must be a JSON object."
    if not all(type(name) is str and type(value) in SCALARS for name, value in arguments.items()):
        return _argument_error(tool, arguments)
    key = (tool.name, json.dumps(arguments, ensure_ascii=True))
    verdict = _VERDICTS.get(key, _UNJUDGED)
    if verdict is _UNJUDGED:
        verdict = _argument_error(tool, arguments)
        if len(_VERDICTS) >= MAX_VERDICTS:
            _VERDICTS.clear()
        _VERDICTS[key] = verdict
    return verdict  # type: ignore[return-value]


def _argument_error(tool: Tool, arguments: dict[str, Any]) -> str | None:
    error = jsonschema.exceptions.best_match(_validator(tool).iter_errors(arguments))
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    return printable(f"{tool.name}: {where}: {error.message}"[:300])  # the message quotes the value


_VALIDATORS: dict[str, jsonschema.Draft202012Validator] = {}
MAX_VERDICTS = 1024
SCALARS = (str, int, float, bool, type(None))
_UNJUDGED = object()
_VERDICTS: dict[tuple[str, str], object] = {}


def _validator(tool: Tool) -> jsonschema.Draft202012Validator:
    """One compiled validator per tool (the table is fixed for the process)."""
    if tool.name not in _VALIDATORS:
        _VALIDATORS[tool.name] = jsonschema.Draft202012Validator(tool.input_schema)
    return _VALIDATORS[tool.name]


def with_defaults(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    return {**{name: spec["default"] for name, spec in tool.arguments.items() if "default" in spec}, **arguments}


def offered(payload: dict[str, Any]) -> dict[str, Any]:
    """The reply with each next action's tool call kept only when that tool would take its
    arguments (the CLI's bounds are wider than a tool's: a doubled budget, a long path); the
    command stays, so the action is still there to run. Next actions are not part of the answer's
    id, so the id is the CLI's either way."""
    for action in payload.get("next_actions", []):
        tool = BY_NAME.get(action.get("tool", ""))
        if "tool" in action and (tool is None or argument_error(tool, action["arguments"]) is not None):
            del action["tool"], action["arguments"]
    return payload


def call_tool(caller: Caller, tool: Tool, arguments: Any) -> Reply:
    problem = argument_error(tool, arguments)
    if problem is not None:
        return Reply(refusal(problem, reason="invalid"), True)
    return answered(caller, lambda: offered(tool.adapter(caller, with_defaults(tool, arguments))), f"tool {tool.name}")


def answered(caller: Caller, answer: Callable[[], dict[str, Any]], what: str) -> Reply:
    """``answer()``, or the refusal it raised (with the reason's next actions, filled from what the
    server was started for), or ``internal`` for a fault: a tool call and a resource read alike."""
    try:
        return Reply(answer(), False)
    except Refusal as refused:
        refused_reply = refusal(refused.message, reason=refused.reason, connection=caller.connection,
                                recipient=caller.recipient, state=str(caller.store.root))
        if refused.reason == "no_connection":
            refused_reply["next_actions"].append(serve_elsewhere(caller))
        return Reply(refused_reply, True)
    except Exception:  # a fault of this program: logged on stderr, never its text to the agent
        LOG.exception("%s failed", what)
        return Reply(refusal("cm-graph failed while answering; see the server's log.", reason="internal"), True)
