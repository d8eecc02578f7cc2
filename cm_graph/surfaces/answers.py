"""The checkout's answers a surface serves, each a whole, bounded, JSON-ready object.

Each adapter takes the caller and the validated arguments and returns the structured object
that MCP sends as ``structuredContent`` (and as compact JSON text) and REST sends as its body.
Every call settles the authorization (the connection file is read again) and the consuming
revision (HEAD) again, so a ``disconnect`` or a ``refresh`` between two calls is seen at once;
``code_context`` keeps the graph's judgement and its open index between calls only while every
file they were judged from (HEAD's included, read from git's own files) is unchanged
(``context/resident.py``).

What the graph cannot answer (no graph, a stale one for ``ask``, a missing index, an unresolved
target) is an ordinary answer with ``status``, ``reason`` and ``next_actions``, in the one envelope
every reply has (``base/envelope.py``); only refusals
(bad arguments, a recipient the connection does not name) raise, and the surfaces mark those
``isError``. A missing index is reported, never derived inside a call a host may time out.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..base.envelope import NOT_CUT, next_action, remedy_actions, reply
from ..base.errors import ConnectionRefusal, InvalidInput, Refusal
from ..base.jsonio import dumps_wire
from ..base.printable import printable
from ..context.compose import context_action
from ..context.from_workspace import code_context, settle
from ..context.resident import Resident
from ..context.settled import Settled
from ..context.shape import CODE_CONTEXT_SCHEMA
from ..evidence.ask import ask
from ..evidence.askview import dropped_note
from ..generation.layout import Workspace
from ..generation.status import STATUS_SCHEMA, GraphStatus, graph_status, reason_remedy
from ..index.ensure import has_usable_index
from ..query.answerids import capability_id, stamp_ids
from .authority import Caller, approved_workspace, evidence_authorization, fleet_access, head_commit, located
from .limits import DEFAULT_REPLY_CHARS

ASK_ANSWER_SCHEMA = "cm_graph.askAnswer.v1"
SURFACE_STATUS_SCHEMA = "cm_graph.surfaceStatus.v1"
# The server's one held judgement for code_context (a process serves one connection).
RESIDENT = Resident()


def reason_actions(reason: str | None, **known: str | None) -> list[dict[str, Any]]:
    """What to do about a reason the graph cannot answer for: its remedy as next actions."""
    return remedy_actions(reason, own=reason_remedy(reason), **known) if reason is not None else []


def asked_bounds(arguments: dict[str, Any]) -> dict[str, Any]:
    """The bounds of a call the graph could not answer: what it was asked with, nothing cut."""
    return {"max_chars": arguments.get("max_chars", DEFAULT_REPLY_CHARS), **NOT_CUT}


def _is_refusal(refusal: Refusal) -> bool:
    """Bad arguments and authorization are refusals (``isError``); every other ``Refusal`` says
    what state the graph is in, which is an ordinary answer."""
    return isinstance(refusal, InvalidInput | ConnectionRefusal)


def checked_target(target: Any) -> str:
    """A target refused as the resolver refuses it, before the graph is judged: blank text is a bad
    argument in every state (the schemas leave ``minLength`` out to keep ``tools/list`` short)."""
    if not isinstance(target, str) or not target.strip():
        raise InvalidInput("The target must be non-empty single-line text.")
    return target


def code_context_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    workspace, _ = approved_workspace(caller)
    intent, target = arguments["intent"], checked_target(arguments["target"])
    try:
        return code_context(workspace, intent, target, max_chars=arguments.get("max_chars"), derive=False,
                            fleet_access=fleet_access(caller), max_items=arguments.get("max_items"),
                            cursor=arguments.get("cursor"), resident=RESIDENT,
                            also=(caller.store.state_path(caller.connection),))
    except Refusal as refusal:
        return _unavailable(caller, workspace, refusal, CODE_CONTEXT_SCHEMA, asked_bounds(arguments),
                            unanswered_ids("code_context", intent, target), remedy_target=target, intent=intent,
                            target=target)


def prime_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    """``cm-graph context prime`` for an agent: the code area the task names, bounded for a first
    turn (``context/prime.py``); never derives an index."""
    from ..context.prime import DEFAULT_PRIME_CHARS, PRIME_SCHEMA, prime, task_id

    workspace, _ = approved_workspace(caller)
    task = arguments["task"]
    try:
        return prime(workspace, task, files=arguments.get("files"), changes=bool(arguments.get("changes")),
                     max_chars=arguments.get("max_chars"), derive=False, resident=RESIDENT,
                     also=(caller.store.state_path(caller.connection),))
    except Refusal as refusal:
        return _unavailable(caller, workspace, refusal, PRIME_SCHEMA,
                            {"max_chars": arguments.get("max_chars", DEFAULT_PRIME_CHARS), **NOT_CUT},
                            unanswered_ids("prime", "task", task_id(task)))


def changes_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    """``cm-graph changes`` for an agent: the checkout's diff (``diff``, ``ref``) against the bound
    generation, bounded by ``max_items`` and ``max_chars``; never derives an index."""
    from ..context.changes import CHANGES_SCHEMA, changes
    from ..context.diffread import DiffSpec

    workspace, _ = approved_workspace(caller)
    mode, ref = arguments.get("diff", "worktree"), arguments.get("ref")
    if (ref is None) != (mode in ("worktree", "staged")):
        raise InvalidInput("`ref` names the ref, commit or range of diff base, commit and range, and only theirs.")
    try:
        return changes(workspace, DiffSpec(mode, ref), max_items=arguments.get("max_items"),
                       max_chars=arguments.get("max_chars", DEFAULT_REPLY_CHARS), derive=False)
    except Refusal as refusal:
        return _unavailable(caller, workspace, refusal, CHANGES_SCHEMA, asked_bounds(arguments),
                            unanswered_ids("changes", mode, ref or ""), diff={"mode": mode, "argument": ref})


def _unavailable(
    caller: Caller, workspace: Workspace, refusal: Refusal, schema: str, bounds: dict[str, Any],
    ids: dict[str, Any], *, remedy_target: str | None = None, **body: Any,
) -> dict[str, Any]:
    """A composed tool's answer when the graph cannot give one: the state it is in, where it was
    looked for and its remedy (``remedy_target`` fills the remedy's placeholder), in the tool's own schema
    with ``body`` (what was asked); a bad argument or authorization is raised as the refusal it is."""
    if _is_refusal(refusal):
        raise refusal
    detail, actions = located(caller, workspace, refusal.reason, refusal.message,
                              reason_actions(refusal.reason, target=remedy_target))
    return reply(schema, "unavailable", detail, reason=refusal.reason, detail=detail, **body,
                 freshness=freshness_now(workspace), bounds=bounds, **ids, next_actions=actions)


def unanswered_ids(kind: str, intent: str, target: str) -> dict[str, Any]:
    """The ids of a call the graph could not answer: what was asked, and no answer (``None``: the
    CLI refuses these with the same reason and prints no answer either)."""
    return {"capability_id": capability_id(kind, intent, target), "answer_id": None}


class _Unsettled(Exception):
    """The graph could not be settled for the resident server to hold (absent, damaged, no
    index...): ``ask`` then judges on its own, exactly as before, and says why."""


def _settled_for_ask(workspace: Workspace) -> Settled:
    try:
        return settle(workspace, derive=False, sweep=False)
    except Refusal as refusal:
        raise _Unsettled from refusal


def ask_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    """``ask`` on the resident server's held judgement (the one ``code_context`` keeps) while its
    files are unchanged; a graph that cannot be held is judged for this call alone."""
    workspace, _ = approved_workspace(caller)
    question, target = arguments["question"], checked_target(arguments["target"])
    try:
        with RESIDENT.settled(workspace, lambda: _settled_for_ask(workspace),
                              (caller.store.state_path(caller.connection),)) as held:
            return _ask_once(caller, arguments, question, target, workspace, held)
    except _Unsettled:
        return _ask_once(caller, arguments, question, target, workspace, None)


def _ask_once(
    caller: Caller, arguments: dict[str, Any], question: str, target: str, workspace: Workspace,
    held: Settled | None,
) -> dict[str, Any]:
    now = datetime.now(UTC)

    def judged(asked: Workspace) -> GraphStatus | None:
        return held.status if held is not None and asked == workspace else None

    def freshness() -> dict[str, Any]:
        return freshness_of(held.status, held.head) if held is not None else freshness_now(workspace)

    # The consuming revision is HEAD as read now: one judgement of the graph at HEAD both mints
    # the authorization and answers the question, so the packet's commit is HEAD's.
    try:
        authorization, workspace, status = evidence_authorization(caller, "HEAD", now, judged)
    except Refusal as refusal:
        if _is_refusal(refusal):
            raise
        detail, actions = located(caller, workspace, refusal.reason, refusal.message,
                                  reason_actions(refusal.reason, target=target))
        return _ask_unavailable(arguments, refusal.reason, detail, freshness(), actions=actions)
    outcome = ask(workspace, question, target, authorization, revision="HEAD", depth=arguments.get("depth"),
                  node_budget=arguments.get("node_budget"), now=now, derive=False, status=status, qualified=True,
                  held_index=held.connection if held is not None and status is held.status else None,
                  held_gaps=held.gaps if held is not None and status is held.status else None)
    summary, packet = outcome.summary, outcome.packet
    if packet is None:
        unresolved = outcome.data if summary["reason"] == "unresolved" else None
        return _ask_unavailable(arguments, summary["reason"], summary["detail"], freshness(), unresolved)
    head = packet["source_revision"]
    graph = {"generation": summary["generation"], "commit": head, "built_at": packet["source_built_at"]}
    documents = [{"text": d["text"], "confidence": d["confidence"], "citations": d["citations"]}
                 for d in packet["documents"]]
    max_chars = arguments.get("max_chars", DEFAULT_REPLY_CHARS)
    assert outcome.answer is not None  # a packet is minted from an answer
    walked = {"depth": outcome.answer.depth, "node_budget": outcome.answer.budget, "max_chars": max_chars}
    return fit_documents(documents, max_chars, lambda shown: reply(
        ASK_ANSWER_SCHEMA, "answered",
        _ask_prose(question, target, summary, len(shown), len(documents), (outcome.data or {}).get("chosen_over", [])),
        question=question, target=target, relations=summary["relations"],
        documents={"shown": len(shown), "total": len(documents), "items": shown},
        completeness=packet["completeness"], omissions=packet["omissions"], graph=graph,
        freshness={"state": "current", "head": head},
        bounds={**walked, "truncated": packet["truncated"] or len(shown) < len(documents)},
        capability_id=summary["capability_id"], answer_id=summary["answer_id"],
    ))


def fit_documents(
    documents: list[dict[str, Any]], max_chars: int, build: Callable[[list[dict[str, Any]]], dict[str, Any]]
) -> dict[str, Any]:
    """The answer with as many whole documents, in the answer's order, as fit ``max_chars``
    (never a byte cut: a dropped document is counted in ``shown``/``total``)."""
    for count in range(len(documents), -1, -1):
        answer = build(documents[:count])
        if len(dumps_wire(answer)) <= max_chars:
            return answer
    raise InvalidInput("The answer's fixed part alone exceeds the character budget; raise max_chars.",
                       reason="budget_too_small")


def _ask_prose(
    question: str, target: str, summary: dict[str, Any], shown: int, total: int, chosen_over: list[dict[str, Any]]
) -> str:
    relations = summary["relations"]
    text = (f"{question} of `{target}`: {relations} relationship(s) from {summary['seeds']} definition(s); "
            f"{shown} of {total} cited document(s) shown")
    if chosen_over:  # the definitions outrank a same-named binding, manifest key or declaration-only member
        named = ", ".join(f"`{item['label']}` ({item['citation'] or item['path']})" for item in chosen_over)
        text += f"; chosen over {len(chosen_over)} same-named entr(ies) that define nothing: {named}"
    if summary["truncated"]:
        text += "; the question's bounds cut the walk (raise depth or node_budget)"
    return printable(text + ". Each citation was checked against the bound commit.")


def _ask_unavailable(
    arguments: dict[str, Any], reason: str, detail: str, freshness: dict[str, Any], data: dict[str, Any] | None = None,
    actions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``ask`` when the graph gives no packet. An unresolved target is still an answer (``ask
    --json`` gives it with its ids and suggestions, and an agent may report it unhelpful): ``data``,
    as ``evidence/ask.py`` gave it, so its ids are that answer's and each suggestion is a next
    action; without it ``answer_id`` is None. ``actions``: the reason's next actions, when the
    caller has settled them already (``located``)."""
    question, target = arguments["question"], arguments["target"]
    ids = ({"capability_id": data["capability_id"], "answer_id": data["answer_id"]} if data is not None
           else unanswered_ids("question", question, target))
    similar = [next_action("a similar name", f"cm-graph ask {question} {shlex.quote(str(item['target']))}", "ask",
                           {"question": question, "target": item["target"]})
               for item in (data or {}).get("suggestions", [])]
    if data is not None and data.get("dropped_definitions"):
        # The provider dropped the definition the target names: code_context answers it from the text.
        detail += dropped_note(data)
        similar.insert(0, context_action("the text's answer about a definition the graph lacks", "usage", target))
    return reply(
        ASK_ANSWER_SCHEMA, "unavailable", detail, reason=reason, detail=detail, question=question, target=target,
        freshness=freshness, bounds=asked_bounds(arguments), **ids,
        next_actions=similar or (actions if actions is not None else reason_actions(reason, target=target)),
    )


def graph_status_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    workspace, repositories = approved_workspace(caller)
    if arguments.get("fleet") is not None:
        from .fleetanswers import fleet_status_answer

        return fleet_status_answer(caller, arguments["fleet"], freshness_now(workspace))
    try:
        status = graph_status(workspace, "HEAD", trust_seal=True)
        generation = status.generation
        index = "not_checked" if generation is None else ("ready" if has_usable_index(generation) else "missing")
    except Refusal as refusal:
        if _is_refusal(refusal):
            raise
        # A graph found damaged while it is judged is the answer to "what state is the graph in".
        return stamp_ids(reply(
            SURFACE_STATUS_SCHEMA, "unavailable", refusal.message, reason=refusal.reason,
            connection=caller.connection, recipient=caller.recipient, repositories=list(repositories),
            index="not_checked",
            graph={"schema": STATUS_SCHEMA, "state": refusal.reason, "usable": False, "detail": refusal.message},
            freshness=freshness_now(workspace), bounds=dict(NOT_CUT), next_actions=reason_actions(refusal.reason),
        ), "graph_status", "checkout", caller.connection)
    reason = status.state if status.state != "current" else ("index_missing" if index == "missing" else None)
    if reason is None:
        prose = f"The graph is current for HEAD (generation {generation.id if generation else ''}); ask away."
    else:
        prose = status.detail or f"The graph cannot answer yet ({reason})."
    actions = (remedy_actions(reason, own=status.next_remedy) if reason == status.state
               else reason_actions(reason))
    prose, actions = located(caller, workspace, reason, prose, actions)
    from ..feedback.autograde import last_grading  # only a status reply reads the grading

    graded = last_grading(workspace, generation.id if generation is not None else None)
    body: dict[str, Any] = {"graph": status.to_json()}
    if graded is not None:
        body["eval"] = graded  # the eval corpus graded against this generation when it was published
    return stamp_ids(reply(
        SURFACE_STATUS_SCHEMA, "ready" if reason is None else "unavailable", prose, reason=reason,
        connection=caller.connection, recipient=caller.recipient, repositories=list(repositories), index=index,
        **body, freshness=freshness_now(workspace, status), bounds=dict(NOT_CUT), next_actions=actions,
    ), "graph_status", "checkout", caller.connection)


def _head(workspace: Workspace) -> str | None:
    try:
        return head_commit(workspace)
    except Refusal:  # a GitFailure too
        return None


def freshness_now(workspace: Workspace, status: GraphStatus | None = None) -> dict[str, Any]:
    """The current generation and its commit against HEAD, as read now (a graph that cannot be
    judged is named by its reason: freshness is reported, never a reason to fail the call)."""
    if status is None:
        try:
            status = graph_status(workspace, "HEAD", trust_seal=True)
        except Refusal as refusal:
            return {"state": refusal.reason, "head": _head(workspace), "commit": None, "generation": None}
    return freshness_of(status, _head(workspace))


def freshness_of(status: GraphStatus, head: str | None) -> dict[str, Any]:
    """``freshness`` of a judged graph whose checkout's HEAD is ``head`` (None: git could not say)."""
    generation = status.generation
    return {"state": status.state, "head": head,
            "commit": generation.manifest.commit if generation is not None else None,
            "generation": generation.id if generation is not None else None}
