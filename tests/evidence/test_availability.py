"""One "required pauses, optional degrades" table (``evidence/availability.py``) serves every surface
that can be refused evidence: ``query``, ``session prepare`` and ``context fetch`` say it in the
same words, and no other module spells the unavailable statuses (the seed's one vocabulary)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cm_graph.base import errors
from cm_graph.connections.session import SESSION_WORDING
from cm_graph.evidence.availability import Wording, available_outcome, exit_code, unavailable_outcome
from cm_graph.evidence.packet import QUERY_WORDING
from cm_graph.generation.status import reason_remedy

PACKAGE = Path(errors.__file__).resolve().parent.parent
WORDINGS = [pytest.param(QUERY_WORDING, id="query"), pytest.param(SESSION_WORDING, id="session")]


def test_only_the_availability_module_spells_the_unavailable_statuses() -> None:
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("required_unavailable", "optional_unavailable"):
                spelled.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert {place.split(":")[0] for place in spelled} == {"evidence/availability.py"}, spelled


@pytest.mark.parametrize("wording", WORDINGS)
def test_required_pauses_and_optional_degrades_on_every_surface(wording: Wording) -> None:
    for reason in sorted(errors.REASONS):
        paused = unavailable_outcome(True, reason, "Why.", wording)
        degraded = unavailable_outcome(False, reason, "Why.", wording)
        assert (paused["status"], paused["dependent_work"], exit_code(paused)) == ("required_unavailable", "paused", 1)
        assert (degraded["status"], degraded["dependent_work"], exit_code(degraded)) == (
            "optional_unavailable", "usable", 0,
        )
        assert (paused["reason"], paused["detail"]) == (degraded["reason"], degraded["detail"]) == (reason, "Why.")
        assert degraded["next_action"] == wording.carry_on
        remedy = (wording.own or {}).get(reason) or reason_remedy(reason).text
        assert remedy and paused["next_action"] == remedy + wording.paused
        assert ("owner_action" in paused) is wording.owner_action and "owner_action" not in degraded


@pytest.mark.parametrize("wording", WORDINGS)
def test_every_own_remedy_is_for_a_reason_the_source_can_give(wording: Wording) -> None:
    assert sorted(set(wording.own or {}) - errors.REASONS) == []


def test_the_remedy_of_an_unavailable_reason_is_its_row_of_the_one_table() -> None:
    """Issue 26 item 4: a query told ``stale`` names the refresh, ``index_missing`` the index
    (before, every reason without a query-only remedy got one sentence about building the graph)."""
    for reason, command in (("stale", "cm-graph refresh"), ("absent", "cm-graph build"),
                            ("index_missing", "cm-graph index"), ("unreadable", "cm-graph index --rebuild")):
        told = unavailable_outcome(True, reason, "Why.", QUERY_WORDING)["next_action"]
        assert told == errors.remedy(reason).text + QUERY_WORDING.paused and command in told, (reason, told)
    # A graph found invalid is rebuilt; an invalid input's own remedy is not about the graph.
    assert "cm-graph remove && cm-graph build" in unavailable_outcome(True, "invalid", "Why.", QUERY_WORDING)[
        "next_action"]


def test_a_named_remedy_and_a_remediation_take_precedence_under_their_policies() -> None:
    own = unavailable_outcome(True, "uncitable", "Why.", QUERY_WORDING, next_action="Ask again.")
    assert own["next_action"] == "Ask again. Dependent work is paused until then."
    assert unavailable_outcome(False, "uncitable", "Why.", QUERY_WORDING, next_action="Ask again.")[
        "next_action"
    ] == QUERY_WORDING.carry_on
    fix = {"action": "Upgrade cm-graph.", "installed_cm_graph": "0"}
    for required in (True, False):
        told = unavailable_outcome(required, "reader_incompatible", "Why.", QUERY_WORDING, remediation=fix)
        assert (told["remediation"], told["next_action"]) == (fix, "Upgrade cm-graph.")


def test_available_evidence_lets_dependent_work_go_on() -> None:
    outcome = available_outcome(documents=3)
    assert (outcome, exit_code(outcome)) == ({"status": "available", "dependent_work": "usable", "documents": 3}, 0)
