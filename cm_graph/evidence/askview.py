"""``cm-graph ask`` over several targets: each answered, each as data (answerdata), unresolved
ones with ranked suggestions (suggest), each carrying its generation and its two ids
(query/answerids.py). The CLI only prints what this returns. A target is read by the one target
grammar ``code_context`` reads it by too (``query/targets.py``): the seed's tiers, then the
qualified forms."""

from __future__ import annotations

import apsw

from ..query.answer import Answer, answer
from ..query.answerids import stamp_ids
from ..query.questions import Question
from ..query.suggest import suggestions
from .answerdata import answer_data

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


def answer_targets(
    connection: apsw.Connection, spec: Question, targets: list[str], depth: int, budget: int,
    within: str | None = None, *, generation: str,
) -> list[dict[str, Any]]:
    """One answer object per target, in the order given."""
    return [asked(connection, answer(connection, spec, target, depth, budget, within, qualified=True), within,
                  generation) for target in targets]


def asked(connection: apsw.Connection, result: Answer, within: str | None, generation: str) -> dict[str, Any]:
    """An answer as ``ask --json`` gives it: an unresolved one with its ranked suggestions."""
    near = [] if result.resolved else suggestions(connection, result.target)
    return question_answer(connection, result, within, near, generation)


def question_answer(
    connection: apsw.Connection, result: Answer, within: str | None, near: list[dict[str, Any]],
    generation: str,
) -> dict[str, Any]:
    """One answer as data with its generation and ids: the same object, and so the same
    ``answer_id``, whether ``ask --json`` prints it or ``query`` summarises the packet made of it."""
    data = {"generation": generation, **answer_data(connection, result, within, near)}
    return stamp_ids(data, "question", result.question.name, result.target)
