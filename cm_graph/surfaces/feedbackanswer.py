"""``graph_feedback``: one outcome about one answer a surface gave, recorded for the server's recipient.

Recording re-asks the answer and keeps the outcome only when its ``answer_id`` comes back
(``feedback/record.py``). The surfaces remember nothing between calls, so the question is
rebuilt from what the tool is given: the ``capability_id`` names the kind, the intent or
question and the (normalised) target, and everything else the answer was asked with is a default
unless the caller repeats it (``target`` when it was spelled otherwise, ``max_chars`` and
``max_items`` for ``code_context``, ``depth`` and ``node_budget`` for ``ask``: exactly the tool's own arguments).
With wrong or missing arguments the id is not reproduced and nothing is written. The client is
the server's recipient and the connection its own, both re-checked on every call; a repeat of
one report is ``already_recorded``, never a second row.
"""

from __future__ import annotations

from typing import Any

from ..base.envelope import NOT_CUT, reply
from ..base.errors import InvalidInput
from ..feedback.reask import KINDS
from ..feedback.record import is_client_name, record_outcome
from ..query.answerids import capability_id
from .answers import freshness_now
from .authority import Caller, approved_workspace, fleet_access

RECORDED_PROSE = {
    "recorded": "Outcome recorded for this answer",
    "already_recorded": "This recipient already reported this answer; the first report stands",
}


def parse_capability(capability: str) -> tuple[str, str, str]:
    """(kind, intent, normalised target) of ``cmg:<kind>:<intent>:<target>``, for a kind that can
    be re-asked (``code_context`` or ``question``)."""
    prefix, _, rest = capability.partition(":")
    kind, _, rest = rest.partition(":")
    intent, _, target = rest.partition(":")
    if prefix != "cmg" or kind not in KINDS or not intent or not target:
        raise InvalidInput("Outcomes are recorded for code_context and ask answers: pass the capability_id "
                           "such an answer carried (cmg:code_context:... or cmg:question:...).")
    return kind, intent, target


def graph_feedback_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    workspace, _ = approved_workspace(caller)
    if not is_client_name(caller.recipient):
        raise InvalidInput("This server's recipient cannot name an outcome's client (1-64 letters, digits, '.', '_', "
                           "':' or '-'); start the server for such a recipient to record feedback.")
    given = arguments["capability_id"]
    kind, intent, target = parse_capability(given)
    target = arguments.get("target", target)
    if capability_id(kind, intent, target) != given:
        raise InvalidInput("The target is not the one the capability_id names; pass the target exactly as asked.")
    asked = ({"max_chars": arguments.get("max_chars"), "max_items": arguments.get("max_items")}
             if kind == "code_context"
             else {"within": None, "depth": arguments.get("depth"), "node_budget": arguments.get("node_budget")})
    summary = record_outcome(
        workspace, kind=kind, intent=intent, target=target, arguments=asked, answer_id=arguments["answer_id"],
        client=caller.recipient, reads_avoided=arguments["reads_avoided"], files_read=arguments["files_read"],
        correct=arguments["correct"], connection=caller.connection, derive=False, fleet_access=fleet_access(caller),
    )
    prose = f"{RECORDED_PROSE[summary['status']]} (seq {summary['seq']})"
    if summary["eval_case"]:
        prose += "; it is an eval case `cm-graph eval run` re-asks"
    rest = {key: value for key, value in summary.items()
            if key not in ("schema", "status", "capability_id", "answer_id")}
    return reply(summary["schema"], summary["status"], prose + ".", **rest, freshness=freshness_now(workspace),
                 bounds=dict(NOT_CUT), capability_id=summary["capability_id"], answer_id=summary["answer_id"])
