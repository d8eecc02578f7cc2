"""Ask an answer again from its arguments, on the graph that is current now.

Recording an outcome and running the eval corpus both need the answer an id stands for: its id,
generation, commit and the set of citations it makes. Neither trusts a copy the caller hands in;
both re-ask through the same entry points the surfaces use (``code_context`` for an intent, the
question set-up of every question, ``evidence/ask.py``'s ``open_question``, and the answer of
``ask --json`` for a question), so the id is the one those surfaces print.
"""

from __future__ import annotations

from typing import Any

from ..base.errors import InvalidInput
from ..base.records import record
from ..context.budget import DEFAULT_ITEMS
from ..context.from_workspace import code_context
from ..context.intents import INTENT_NAMES
from ..context.wire import cited
from ..evidence.ask import Unusable, open_question
from ..evidence.askview import answer_targets
from ..fleet.members import MemberAccess
from ..generation.layout import Workspace
from ..query.questions import QUESTION_NAMES

KINDS = ("code_context", "question")


@record
class Reasked:
    kind: str
    intent: str
    target: str
    arguments: dict[str, Any]  # as the answer states them (defaults filled in)
    capability_id: str
    answer_id: str
    generation: str
    commit: str
    answered: bool  # resolved to one anchor (an intent) or to seeds (a question)
    cited: tuple[str, ...]  # sorted, unique citation strings


def reask(
    workspace: Workspace, kind: str, intent: str, target: str, arguments: dict[str, Any], *, derive: bool = True,
    fleet_access: MemberAccess | None = None,
) -> Reasked:
    """The answer asked again on the current graph; ``derive=False`` (an agent surface's call)
    reports a missing index instead of building it, and ``fleet_access`` is the caller's rule for
    fleet evidence (``code_context``'s: the same rule gives the same answer, so the same id)."""
    if kind == "code_context":
        if intent not in INTENT_NAMES:
            raise InvalidInput(f"The intent must be one of: {', '.join(INTENT_NAMES)}.")
        return _context(workspace, intent, target, arguments, derive, fleet_access)
    if kind == "question":
        if intent not in QUESTION_NAMES:
            raise InvalidInput(f"The question must be one of: {', '.join(QUESTION_NAMES)}.")
        return _question(workspace, intent, target, arguments, derive)
    raise InvalidInput(f"The kind must be one of: {', '.join(KINDS)}.")


def _context(
    workspace: Workspace, intent: str, target: str, arguments: dict[str, Any], derive: bool,
    fleet_access: MemberAccess | None,
) -> Reasked:
    document = code_context(workspace, intent, target, max_chars=arguments.get("max_chars"), derive=derive,
                            fleet_access=fleet_access, max_items=arguments.get("max_items"))
    asked = {"max_chars": document["bounds"]["max_chars"]}
    if document["bounds"]["max_items"] != DEFAULT_ITEMS:  # the default is not repeated in a stored case
        asked["max_items"] = document["bounds"]["max_items"]
    return Reasked(
        "code_context", intent, target, asked,
        document["capability_id"], document["answer_id"], document["graph"]["generation"],
        document["graph"]["commit"], document["status"] == "answered",
        tuple(sorted(set(cited(document).values()))),
    )


def _question(workspace: Workspace, name: str, target: str, arguments: dict[str, Any], derive: bool) -> Reasked:
    within = arguments.get("within")
    opened = open_question(workspace, name, arguments.get("depth"), arguments.get("node_budget"), trust_seal=False,
                           derive=derive)
    if isinstance(opened, Unusable):
        raise opened.error
    generation = opened.generation
    try:
        [data] = answer_targets(opened.connection, opened.spec, [target], opened.depth, opened.budget, within,
                                generation=generation.id)
    finally:
        opened.connection.close()
    cited = {s["citation"] for s in data.get("seeds", []) if s["citation"]}
    for relationship in data.get("relationships", []):
        cited.update(relationship["citations"])
    return Reasked(
        "question", name, target, {"within": within, "depth": data["depth"], "node_budget": data["node_budget"]},
        data["capability_id"], data["answer_id"], generation.id, generation.manifest.commit,
        bool(data["resolved"]), tuple(sorted(cited)),
    )
