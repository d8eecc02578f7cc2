"""The library entry point: ask one bounded question and get a summary plus a packet.

This is what the CLI, connections and any server call. Usability is settled before anything is
read: an unusable graph, an index this reader cannot read, an unresolved target or an uncitable
answer all come back as an *unavailable* outcome (required pauses work, optional degrades),
never as an exception. Bad arguments (question, target, depth, budget) raise, but only once the
graph is known to be usable, as the contract orders it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import apsw

from ..base.errors import INDEX_DAMAGED, Corrupt, IndexMissing, ReaderIncompatible, Refusal
from ..base.records import record, replaced
from ..generation.layout import Workspace
from ..generation.status import GRAPH_CHANGED, GraphStatus, graph_status
from ..generation.store import still_current
from ..index.ensure import open_index_for
from ..query.answer import Answer, answer
from ..query.questions import check_budget, check_depth, question
from .askview import question_answer
from .authorization import Authorization
from .availability import exit_code, unavailable_outcome
from .documents import CitationChecker, build_documents
from .packet import QUERY_SUMMARY_SCHEMA, QUERY_WORDING, Uncitable, available_summary, build_packet

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


@record
class Outcome:
    summary: dict[str, Any]
    packet: dict[str, Any] | None
    answer: Answer | None = None

    @property
    def exit_code(self) -> int:
        return exit_code(self.summary)


def answer_ids(answer: dict[str, Any]) -> dict[str, str]:
    """The ids of the answer a packet is minted from, for the summary: the packet itself stays
    the reference's shape byte for byte (docs/feedback.md)."""
    return {"capability_id": answer["capability_id"], "answer_id": answer["answer_id"]}


def ask(
    workspace: Workspace,
    question_name: str,
    target: Any,
    authorization: Authorization,
    *,
    revision: str = "HEAD",
    depth: Any = None,
    node_budget: Any = None,
    now: datetime | None = None,
    derive: bool = True,
    status: GraphStatus | None = None,
    _retry: bool = True,
) -> Outcome:
    """``derive=False`` (the agent surfaces): a missing index is an unavailable outcome
    (``index_missing``), never derived inside the call. ``status``: the verdict for ``revision``
    the authorization was just minted from (``connections.store.authorize_judged``), used
    instead of judging the graph a second time."""

    now = now or datetime.now(UTC)
    required = authorization.policy.required
    spec = question(question_name)

    def unavailable(reason: str, detail: str, **advice: Any) -> Outcome:
        summary = unavailable_outcome(required, reason, detail, QUERY_WORDING, schema=QUERY_SUMMARY_SCHEMA, **advice)
        return Outcome(summary, None)

    status = status or graph_status(workspace, revision, trust_seal=True)
    if not status.usable or status.generation is None:
        return unavailable(status.state, status.detail)
    generation = status.generation
    try:
        connection = open_index_for(generation, derive=derive)
    except ReaderIncompatible as refusal:
        return unavailable(refusal.reason, refusal.message, remediation=refusal.remediation)
    except (Refusal, OSError) as refusal:
        if not still_current(workspace, generation.id):
            # A concurrent refresh published a new generation and pruned this one, or a removal
            # took it: nothing is damaged, so ask again (the status then says what is there).
            if not _retry:
                return unavailable("absent", GRAPH_CHANGED)
            return ask(
                workspace, question_name, target, authorization, revision=revision, depth=depth,
                node_budget=node_budget, now=now, derive=derive, _retry=False,
            )
        if not isinstance(refusal, (Refusal, FileNotFoundError)):
            raise
        if isinstance(refusal, IndexMissing):
            return unavailable(refusal.reason, refusal.message)
        message = refusal.message if isinstance(refusal, Refusal) else "The index file disappeared."
        # A graph.bin found edited while its index was checked is what status calls corrupt.
        return unavailable("corrupt" if isinstance(refusal, Corrupt) else "unreadable", message)
    try:
        depth, node_budget = check_depth(depth, spec), check_budget(node_budget)
        try:
            result = answer(connection, spec, target, depth, node_budget)
        except apsw.Error:
            return unavailable("unreadable", INDEX_DAMAGED)
        if not result.resolved:
            return unavailable("unresolved", "The target names no symbol or path in the graph.")
        limits = authorization.policy.limits
        try:
            documents = build_documents(
                result, CitationChecker(connection), limits["max_documents"],
                limits["max_document_bytes"], limits["max_text_bytes"],
            )
            ids = answer_ids(question_answer(connection, result, None, [], generation.id))
        except apsw.Error:
            return unavailable("unreadable", INDEX_DAMAGED)
    finally:
        connection.close()
    try:
        packet = build_packet(result, documents, authorization, generation.manifest, now)
    except Uncitable as refusal:
        return replaced(unavailable("uncitable", refusal.message, next_action=refusal.next_action), answer=result)
    return Outcome(available_summary(result, packet, generation.manifest) | ids, packet, result)
