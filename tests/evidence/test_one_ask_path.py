"""One ``ask`` path (issue 26 item 3): one question set-up in ``evidence/ask.py`` (``open_question``),
the ids of an unresolved answer from the one asking, and one target grammar for ``ask`` and
``code_context`` (``query/targets.py``), while ``query``'s packets keep the seed's three tiers.

Real git repositories, real published generations and indexes, the real entry points."""

from __future__ import annotations

from pathlib import Path

import pytest

from cm_graph.base.errors import InvalidInput, Refusal
from cm_graph.context.from_workspace import code_context
from cm_graph.evidence.ask import Opened, Unusable, ask, open_question
from cm_graph.feedback.reask import reask
from cm_graph.index.ensure import ensure_index

from ..support.askkit import T, authorization
from ..support.g0 import g0_graph, g0_with_two_loads
from ..support.helpers import commit_all, publish, write_files


def test_an_unresolved_answer_carries_the_ids_the_replay_gives(g0_repo: Path, state_dir: Path) -> None:
    """The agents' ``ask`` took an unresolved target's ids from a second asking (the feedback
    replay); ``evidence/ask.py`` now gives them with the outcome, equal to the replay's."""
    workspace = publish(g0_repo, state_dir, g0_graph())
    outcome = ask(workspace, "impact", "no_such_symbol", authorization(workspace), now=T, qualified=True)
    assert outcome.summary["reason"] == "unresolved" and outcome.packet is None
    assert outcome.data is not None and outcome.data["resolved"] is False
    replayed = reask(workspace, "question", "impact", "no_such_symbol", {})
    assert (outcome.data["capability_id"], outcome.data["answer_id"]) == (replayed.capability_id, replayed.answer_id)
    # An answered one carries the same ids in its summary as in its data.
    answered = ask(workspace, "impact", "parse_config", authorization(workspace), now=T)
    assert answered.data is not None and answered.summary["answer_id"] == answered.data["answer_id"]


def test_every_spelling_code_context_offers_is_one_ask_resolves(g0_repo: Path, state_dir: Path) -> None:
    """``code_context`` names each candidate of an ambiguous target by a spelling that resolves to
    it (``path::name``, ``path::name#L<n>``, ``path#L<n>``); the agents' ``ask`` reads it the same
    way, while ``query`` keeps the seed's three tiers (its packets are Code Mower's)."""
    workspace = publish(g0_repo, state_dir, g0_with_two_loads())
    ambiguous = code_context(workspace, "how", "load")
    assert ambiguous["status"] == "ambiguous"
    offered = [candidate["resolve_as"] for candidate in ambiguous["anchors"]]
    assert len(offered) == 2 and all(offered), offered
    for spelling, candidate in zip(offered, ambiguous["anchors"], strict=True):
        agents = ask(workspace, "impact", spelling, authorization(workspace), now=T, qualified=True)
        assert agents.answer is not None and [(s.path, s.line) for s in agents.answer.seeds] == [
            (candidate["path"], candidate["line"])], spelling
        seed_tiers = ask(workspace, "impact", spelling, authorization(workspace), now=T)
        assert seed_tiers.summary["reason"] == "unresolved", spelling
    # The seed's own tiers give the same packet on either reading.
    plain = ask(workspace, "impact", "parse_config", authorization(workspace), now=T)
    read = ask(workspace, "impact", "parse_config", authorization(workspace), now=T, qualified=True)
    assert plain.packet == read.packet and plain.packet is not None


def test_the_question_set_up_judges_opens_and_bounds_once(g0_repo: Path, state_dir: Path) -> None:
    """``open_question`` is what ``query``, ``ask`` (CLI and agents) and the replay share: an
    unusable graph is an ``Unusable`` with the reason an outcome carries and the refusal a
    command raises (the state's own remedy in its sentence); the bounds are checked only once
    the graph is known to be usable."""
    workspace = publish(g0_repo, state_dir, g0_graph())
    missing = open_question(workspace, "impact", None, None, derive=False)
    assert isinstance(missing, Unusable) and missing.reason == "index_missing"
    ensure_index(workspace)
    opened = open_question(workspace, "impact", None, 12)
    assert isinstance(opened, Opened) and (opened.depth, opened.budget) == (2, 12)
    opened.connection.close()
    with pytest.raises(InvalidInput, match="node budget"):
        open_question(workspace, "impact", None, 0)
    write_files(g0_repo, {"NOTES.md": "moved on\n"})
    commit_all(g0_repo, "move HEAD")
    stale = open_question(workspace, "impact", None, 0)  # the graph first: the bad budget is not reached
    assert isinstance(stale, Unusable) and stale.reason == "stale"
    assert isinstance(stale.error, Refusal) and stale.error.reason == "stale"
