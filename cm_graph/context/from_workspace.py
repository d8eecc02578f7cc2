"""``code_context`` from a workspace: settle the graph's usability, bind the current generation
and its change-coupling history, compose (and ``context history``: build that history).

A graph that is current for HEAD answers with ``freshness.state = current``. One bound to an
older commit still answers (every citation is checked against the commit it is bound to, so
the claims stay true of that commit) but says ``stale`` and names ``cm-graph refresh`` first;
every other state (absent, partial, corrupt, ...) is a refusal with the lifecycle's reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from ..base.errors import INDEX_DAMAGED, Absent, InvalidInput, Refusal
from ..base.git import GitFailure, resolve_revision
from ..generation.definitions import recorded_gaps
from ..generation.layout import Workspace
from ..generation.scratch import scratch_owner
from ..generation.status import GRAPH_CHANGED, GraphStatus, graph_status
from ..generation.store import Generation, still_current
from ..index.ensure import open_current_index, open_index_for
from .budget import check_max_chars, check_max_items
from .compose import compose
from .coupling import build_history, history_path, open_history
from .intents import INTENT_NAMES
from .observed import load_observed
from .paging import parse_cursor
from .settled import Settled
from .test_selection import KnownTests, known_tests

if TYPE_CHECKING:
    from ..fleet.members import MemberAccess
    from .resident import Resident  # the server's; a CLI question never loads it

ANSWERABLE = ("current", "stale")


def code_context(
    workspace: Workspace, intent: str, target: Any, *, max_chars: Any = None, derive: bool = True,
    fleet_access: MemberAccess | None = None, max_items: Any = None, cursor: Any = None,
    resident: Resident | None = None, also: tuple[Path, ...] = (),
) -> dict[str, Any]:
    """The composed answer; ``derive=False`` refuses (``index_missing``) rather than derive an index.
    ``fleet_access`` says which fleet members' evidence the ``cross_repo`` section may carry (an
    agent surface passes its recipient's rule, ``fleet.members.member_authorizes``; None, the
    local operator's CLI: every member). ``max_items`` bounds every section's items; ``cursor``
    (a next action's) asks for the page of a cut section instead (``paging.py``). ``resident``: a
    long-lived server's held judgement, reused while its files (and the files ``also`` names, the
    connection's) are unchanged (``resident.py``)."""
    if intent not in INTENT_NAMES:
        raise InvalidInput(f"The intent must be one of: {', '.join(INTENT_NAMES)}.")
    budget = check_max_chars(max_chars)
    items = check_max_items(max_items)
    page = parse_cursor(cursor)

    def answer(settled: Settled) -> dict[str, Any]:
        graph = bound_graph(settled)
        freshness = {"state": settled.status.state, "head": settled.head}

        def fleet(label: str, max_items: int, max_chars: int) -> dict[str, Any] | None:
            if not (workspace.root / "fleet").is_dir():
                return None  # no fleet under this state root, so none has the checkout: the fleet stays unloaded
            from ..fleet.usages import own_definition_usages

            return own_definition_usages(workspace.root, workspace.checkout, label, fleet_access, max_items, max_chars)

        try:
            return compose(settled.connection, intent, target, graph, freshness, budget, settled.history, fleet,
                           settled.gaps, max_items=items, cursor=page, observed=settled.observed)
        except apsw.Error:
            raise Refusal(INDEX_DAMAGED, reason="unreadable") from None

    return on_settled(workspace, answer, derive=derive, resident=resident, also=also)


def on_settled(
    workspace: Workspace, answer: Callable[[Settled], dict[str, Any]], *, derive: bool,
    resident: Resident | None, also: tuple[Path, ...],
) -> dict[str, Any]:
    """``answer`` on the resident server's held judgement (``resident``), else on one settled now
    and closed after: every answer composed from a workspace (``code_context``, ``prime``)."""
    if resident is not None:
        with resident.settled(workspace, lambda: settle(workspace, derive=derive, sweep=False), also) as held:
            return answer(held)
    settled = settle(workspace, derive=derive)
    try:
        return answer(settled)
    finally:
        settled.close()


def bound_graph(settled: Settled) -> dict[str, Any]:
    """The generation an answer is read from, as every answer names it (``graph``)."""
    generation, manifest = settled.generation, settled.generation.manifest
    return {"generation": generation.id, "commit": manifest.commit, "tree": manifest.tree,
            "provider": manifest.provider.requirement, "built_at": manifest.built_at}


def answerable(workspace: Workspace, judged: list[GraphStatus], *, sweep: bool = True) -> Callable[[], Generation]:
    """The judge ``open_current_index`` calls: the graph for HEAD, trusting the seals as a
    question does, refused with the lifecycle's reason unless it is current or stale; each
    status it judged is appended to ``judged`` (the caller answers from the last)."""

    def judge() -> Generation:
        status = graph_status(workspace, "HEAD", trust_seal=True, sweep=sweep)
        if status.state not in ANSWERABLE or status.generation is None:
            raise Refusal(status.detail, reason=status.state)
        judged.append(status)
        return status.generation

    return judge


def settle(workspace: Workspace, *, derive: bool = True, sweep: bool = True) -> Settled:
    """Judge the graph for HEAD and open its index: what one ``code_context`` answers from (a
    refusal, with the lifecycle's reason, when it is neither current nor stale). ``sweep=False``:
    the caller sweeps scratch itself (a resident server, on a timer)."""
    judged: list[GraphStatus] = []
    generation, connection = open_current_index(workspace, answerable(workspace, judged, sweep=sweep), derive=derive)
    try:
        status = judged[-1]
        head: str | None = generation.manifest.commit  # current: the status just resolved HEAD to this commit
        if status.state != "current":
            try:
                head = resolve_revision(workspace.checkout, "HEAD").commit
            except GitFailure:
                head = None
        history = _open_history(workspace.index_path(generation.id))
        observed = load_observed(workspace.indexes_dir, generation.id)
        return Settled(status, generation, connection, history, head, recorded_gaps(generation), observed)
    except BaseException:
        connection.close()
        raise


def _open_history(index_path: Path) -> apsw.Connection | None:
    """The generation's change-coupling history when it was built (never built here: a question
    does not wait for git history); an unreadable one counts as not built."""
    path = history_path(index_path)
    if not path.is_file():
        return None
    try:
        return open_history(path)
    except Refusal:
        return None


def build_history_for(workspace: Workspace) -> dict[str, Any]:
    """``cm-graph context history``: derive the current generation's change-coupling file.

    It takes no lock, as readers take none: when the write fails because the generation stopped
    being current meanwhile (a removal or a refresh took it), nothing is damaged, and the answer
    is the readers' one, the graph changed (``GRAPH_CHANGED``)."""
    status = graph_status(workspace, "HEAD", trust_seal=True)
    if status.state not in ANSWERABLE or status.generation is None:
        raise Refusal(status.detail, reason=status.state)
    generation = status.generation
    started = time.perf_counter()
    try:
        connection = open_index_for(generation)
        try:
            with scratch_owner(workspace) as token:
                report = build_history(workspace.checkout, generation.manifest.commit, connection,
                                       history_path(workspace.index_path(generation.id)), token=token)
        finally:
            connection.close()
    except (Refusal, OSError, apsw.Error):
        if not still_current(workspace, generation.id):
            raise Absent(GRAPH_CHANGED) from None
        raise
    return {"status": "built", "generation": generation.id, "commit": generation.manifest.commit,
            "commits_read": report.commits, "commits_reused": report.reused,
            "changesets_dropped": report.dropped, "shallow": report.shallow,
            "elapsed_seconds": round(time.perf_counter() - started, 3)}


def known_suite(workspace: Workspace) -> KnownTests:
    """The tests the current generation's index knows (``test_selection``): what a share of the
    suite is counted against, for ``--format pytest-args``."""
    _, connection = open_current_index(workspace, answerable(workspace, []), derive=False)
    try:
        return known_tests(connection)
    except apsw.Error:
        raise Refusal(INDEX_DAMAGED, reason="unreadable") from None
    finally:
        connection.close()
