"""``cm-graph ask`` over several targets: each answered, each as data (answerdata), unresolved
ones with ranked suggestions (suggest). The CLI only prints what this returns."""

from __future__ import annotations

from typing import Any

import apsw

from ..query.answer import answer
from ..query.questions import Question
from ..query.suggest import suggestions
from .answerdata import answer_data


def answer_targets(
    connection: apsw.Connection, spec: Question, targets: list[str], depth: int, budget: int,
    within: str | None = None,
) -> list[dict[str, Any]]:
    """One answer object per target, in the order given."""
    answers = []
    for target in targets:
        result = answer(connection, spec, target, depth, budget, within)
        near = [] if result.resolved else suggestions(connection, target)
        answers.append(answer_data(connection, result, within, near))
    return answers
