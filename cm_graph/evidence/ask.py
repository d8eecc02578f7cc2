"""The library entry point: ask one bounded question and get a summary plus a packet.

This is what the CLI, connections and any server call. Usability is settled before anything is
read: an unusable graph, an index this reader cannot read, an unresolved target or an uncitable
answer all come back as an *unavailable* outcome (required pauses work, optional degrades),
never as an exception. Bad arguments (question, target, depth, budget) raise, but only once the
graph is known to be usable, as the contract orders it.

The set-up of every question (judge the graph, open its index, check the bounds: ``open_question``)
is written here once: ``query`` and the agents' ``ask`` through ``ask``, and the operator's
``cm-graph ask`` and the feedback replay (``feedback/reask.py``) through ``open_question`` itself.
"""

from __future__ import annotations

from datetime import UTC, datetime

import apsw

from ..base.errors import INDEX_DAMAGED, Absent, Corrupt, IndexMissing, ReaderIncompatible, Refusal
from ..base.records import record, replaced
from ..generation.definitions import recorded_gaps
from ..generation.layout import Workspace
from ..generation.status import GRAPH_CHANGED, GraphStatus, graph_status, status_refusal
from ..generation.store import Generation, still_current
from ..index.ensure import open_index_for
from ..query.answer import Answer, answer
from ..query.questions import Question, check_budget, check_depth, question
from .askview import asked
from .authorization import Authorization
from .availability import exit_code, unavailable_outcome
from .documents import CitationChecker, build_documents
from .packet import QUERY_SUMMARY_SCHEMA, QUERY_WORDING, Uncitable, available_summary, build_packet

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


@record
class Opened:
    """A question ready to answer: its spec and checked bounds, and the open index it reads."""

    spec: Question
    depth: int
    budget: int
    generation: Generation
    connection: apsw.Connection


@record
class Unusable:
    """Why the graph cannot answer: the reason and sentence an unavailable outcome carries, and
    what a command that refuses instead raises (``error``, a refusal or the OS error itself)."""

    reason: str
    detail: str
    error: Exception
    remedy: str | None = None  # the judgement's own remedy, more precise than the reason's
    remediation: dict[str, Any] | None = None  # a known reader mismatch, and the action it names


def open_question(
    workspace: Workspace, question_name: Any, depth: Any, node_budget: Any, *, revision: str = "HEAD",
    require_complete: bool = True, trust_seal: bool = True, derive: bool = True, status: GraphStatus | None = None,
) -> Opened | Unusable:
    """The one set-up of a question: the question named, the graph judged for ``revision``, its
    index opened (``derive=False``, an agent's call: a missing index is ``index_missing``, never
    derived in the call), then the bounds checked. ``status``: the verdict just judged for
    ``revision`` (``connections.store.authorize_judged``), used instead of judging again.

    Readers take no lock: when opening fails because the generation stopped being current
    meanwhile (a refresh pruned it, a removal took it), nothing is damaged, so the graph is judged
    again, once; a graph still changing then is ``absent`` for now (``GRAPH_CHANGED``)."""
    spec = question(question_name)
    for attempt in range(2):
        if attempt or status is None:
            status = graph_status(workspace, revision, require_complete=require_complete, trust_seal=trust_seal)
        if not status.usable or status.generation is None:
            return Unusable(status.state, status.detail, status_refusal(status),
                            status.remedy.text if status.remedy is not None else None)
        generation = status.generation
        try:
            connection = open_index_for(generation, derive=derive)
        except ReaderIncompatible as refusal:
            return Unusable(refusal.reason, refusal.message, refusal, remediation=refusal.remediation)
        except (Refusal, OSError) as error:
            if not still_current(workspace, generation.id):
                continue
            if not isinstance(error, (Refusal, FileNotFoundError)):
                raise
            if isinstance(error, IndexMissing):
                return Unusable(error.reason, error.message, error)
            message = error.message if isinstance(error, Refusal) else "The index file disappeared."
            # A graph.bin found edited while its index was checked is what status calls corrupt.
            return Unusable("corrupt" if isinstance(error, Corrupt) else "unreadable", message, error)
        try:
            return Opened(spec, check_depth(depth, spec), check_budget(node_budget), generation, connection)
        except Refusal:
            connection.close()
            raise
    return Unusable("absent", GRAPH_CHANGED, Absent(GRAPH_CHANGED))


def _on_held(
    question_name: Any, depth: Any, node_budget: Any, status: GraphStatus | None, index: apsw.Connection | None,
) -> Opened | None:
    """The question set up on a resident server's open ``index`` of ``status``'s generation; None
    when there is none to use (the question then opens its own, ``open_question``)."""
    if index is None or status is None or not status.usable or status.generation is None:
        return None
    spec = question(question_name)
    return Opened(spec, check_depth(depth, spec), check_budget(node_budget), status.generation, index)


@record
class Outcome:
    summary: dict[str, Any]
    packet: dict[str, Any] | None
    answer: Answer | None = None
    # The answer as data with its ids (``ask --json``'s object), whenever the target was looked up:
    # an unresolved one too, so a surface gives its ids without asking a second time.
    data: dict[str, Any] | None = None

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
    qualified: bool = False,
    held_index: apsw.Connection | None = None,
    held_gaps: dict[str, list[dict[str, Any]]] | None = None,
) -> Outcome:
    """The question answered and minted into a packet (``open_question`` says what ``derive`` and
    ``status`` do). ``qualified``: read the target by the whole target grammar
    (``query/targets.py``; the agents' ``ask``), not by the seed's three tiers alone (``query``).
    ``held_index``/``held_gaps``: a resident server's open index of ``status``'s generation and
    its recorded gaps, read instead of opening its own; it stays open for the next call."""

    now = now or datetime.now(UTC)
    required = authorization.policy.required

    def unavailable(reason: str, detail: str, **advice: Any) -> Outcome:
        summary = unavailable_outcome(required, reason, detail, QUERY_WORDING, schema=QUERY_SUMMARY_SCHEMA, **advice)
        return Outcome(summary, None)

    opened: Opened | Unusable | None = _on_held(question_name, depth, node_budget, status, held_index)
    held = opened is not None
    if opened is None:
        opened = open_question(workspace, question_name, depth, node_budget, revision=revision, derive=derive,
                               status=status)
    if isinstance(opened, Unusable):
        return unavailable(opened.reason, opened.detail, next_action=opened.remedy, remediation=opened.remediation)
    connection, generation = opened.connection, opened.generation
    try:
        try:
            result = answer(connection, opened.spec, target, opened.depth, opened.budget, qualified=qualified)
            data = asked(connection, result, None, generation.id,
                         held_gaps if held and held_gaps is not None else recorded_gaps(generation))
        except apsw.Error:
            return unavailable("unreadable", INDEX_DAMAGED)
        if not result.resolved:
            return replaced(unavailable("unresolved", "The target names no symbol or path in the graph."),
                            answer=result, data=data)
        limits = authorization.policy.limits
        try:
            documents = build_documents(
                result, CitationChecker(connection), limits["max_documents"],
                limits["max_document_bytes"], limits["max_text_bytes"],
            )
        except apsw.Error:
            return unavailable("unreadable", INDEX_DAMAGED)
    finally:
        if not held:
            connection.close()
    try:
        packet = build_packet(result, documents, authorization, generation.manifest, now)
    except Uncitable as refusal:
        return replaced(unavailable("uncitable", refusal.message, next_action=refusal.next_action), answer=result,
                        data=data)
    return Outcome(available_summary(result, packet, generation.manifest) | answer_ids(data), packet, result, data)
