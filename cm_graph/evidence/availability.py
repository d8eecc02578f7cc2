"""Available and unavailable outcomes: the one "required pauses, optional degrades" table.

``query``, ``session prepare`` and ``context fetch`` each tell a caller whether evidence came, and
the seed has them say it in one vocabulary, so that a caller branches on one set of words: under a
required policy unavailable evidence is ``required_unavailable``, dependent work ``paused``, exit
1; under an optional one ``optional_unavailable``, dependent work ``usable``, exit 0. That table
lives here once. The remedy of each reason is its row of the one table (``base/errors.py``; a
lifecycle state's, ``generation/status.py``); what differs per surface is only the framing, because
what to do next depends on where the caller stands (retry a query, prepare a session again): each
surface brings its ``Wording``.
"""

from __future__ import annotations

from ..base.records import record
from ..generation.status import reason_remedy

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

AVAILABLE = "available"
REQUIRED_UNAVAILABLE = "required_unavailable"
OPTIONAL_UNAVAILABLE = "optional_unavailable"


@record
class Wording:
    """How one surface frames the remedy when evidence is unavailable."""

    carry_on: str  # optional: there is no packet; work goes on with ordinary tools
    paused: str = ""  # appended to the remedy under required (what happens until it is done)
    owner_action: bool = False  # required outcomes say the owner must act (guided sessions)
    # A remedy more precise where this surface stands (a prepared packet is refreshed with a flag).
    own: dict[str, str] | None = None



def available_outcome(**fields: Any) -> dict[str, Any]:
    """Evidence came: status ``available``, dependent work ``usable``, then the surface's fields."""
    return {"status": AVAILABLE, "dependent_work": "usable", **fields}


def unavailable_outcome(
    required: bool, reason: str, detail: str, wording: Wording, *,
    next_action: str | None = None, remediation: dict[str, Any] | None = None, **fields: Any,
) -> dict[str, Any]:
    """No evidence, for ``reason`` (``detail`` says it to a person): the policy's status and
    dependent work, and the next action — ``next_action`` when the refusal (or the judgement of the
    graph) named its own remedy, else the surface's own or the reason's; a ``remediation`` (a known
    reader mismatch) names the action itself."""
    if not required:
        action = wording.carry_on
    else:
        own = next_action or (wording.own or {}).get(reason) or reason_remedy(reason).text
        action = own + wording.paused
    outcome: dict[str, Any] = {
        "status": REQUIRED_UNAVAILABLE if required else OPTIONAL_UNAVAILABLE,
        "dependent_work": "paused" if required else "usable",
    }
    if required and wording.owner_action:
        outcome["owner_action"] = True
    outcome.update(reason=reason, detail=detail, next_action=action, **fields)
    if remediation is not None:
        outcome["remediation"] = remediation
        outcome["next_action"] = remediation.get("action", action)
    return outcome


def exit_code(outcome: dict[str, Any]) -> int:
    """1 when dependent work is paused for want of required evidence, else 0."""
    return 1 if outcome["status"] == REQUIRED_UNAVAILABLE else 0
