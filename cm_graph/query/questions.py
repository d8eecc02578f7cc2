"""The four bounded questions: direction, relationship filter and default depth of each.

These are the seed's table, not the reference code's (which also walks ``inherits`` for impact
and dependency). Free-form traversal is deliberately not offered: a walk whose shape comes from
the question text cannot be bounded or reproduced.
"""

from __future__ import annotations

from ..base.errors import InvalidInput
from ..base.records import record
from ..index.graphmodel import KINDS

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


OUTGOING, INCOMING = 0, 1
MAX_DEPTH = 4
DEFAULT_NODE_BUDGET = 40
MAX_NODE_BUDGET = 200
MAX_SEEDS = 8
MAX_TARGET_CHARS = 512  # a target wherever it is checked (an agent surface takes at most 256 of them)


@record
class Question:
    name: str
    directions: tuple[int, ...]
    kinds: tuple[str, ...]
    default_depth: int
    tests_only: bool = False


QUESTIONS: dict[str, Question] = {
    q.name: q
    for q in (
        Question("impact", (INCOMING,), ("calls", "imports", "references", "tests"), 2),
        Question("dependency", (OUTGOING,), ("calls", "imports", "references"), 2),
        Question("symbol", (OUTGOING, INCOMING), KINDS, 1),
        Question(
            "related_tests", (INCOMING,), ("tests", "calls", "imports", "references"), 2,
            tests_only=True,
        ),
    )
}
QUESTION_NAMES = tuple(QUESTIONS)


def question(name: Any) -> Question:
    if name not in QUESTIONS:
        raise InvalidInput(f"The question must be one of: {', '.join(QUESTION_NAMES)}.")
    return QUESTIONS[name]


def check_depth(value: Any, spec: Question) -> int:
    if value is None:
        return spec.default_depth
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DEPTH:
        raise InvalidInput(f"The depth must be an integer from 1 to {MAX_DEPTH}.")
    return value


def check_budget(value: Any) -> int:
    if value is None:
        return DEFAULT_NODE_BUDGET
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_NODE_BUDGET:
        raise InvalidInput(f"The node budget must be an integer from 1 to {MAX_NODE_BUDGET}.")
    return value
