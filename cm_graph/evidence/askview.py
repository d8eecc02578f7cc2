"""``cm-graph ask`` over several targets: each answered, each as data (answerdata), unresolved
ones with ranked suggestions (suggest), each carrying its generation and its two ids
(query/answerids.py). The CLI only prints what this returns. A target is read by the one target
grammar ``code_context`` reads it by too (``query/targets.py``): the seed's tiers, then the
qualified forms."""

from __future__ import annotations

import shlex

import apsw

from ..generation.definitions import named_gaps
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
    within: str | None = None, *, generation: str, gaps: dict[str, list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """One answer object per target, in the order given; an unresolved one that names a
    definition the provider dropped (``gaps``, per file) carries where the text defines it."""
    return [asked(connection, answer(connection, spec, target, depth, budget, within, qualified=True), within,
                  generation, gaps) for target in targets]


def asked(
    connection: apsw.Connection, result: Answer, within: str | None, generation: str,
    gaps: dict[str, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """An answer as ``ask --json`` gives it: an unresolved one with its ranked suggestions and,
    when it names a definition the provider dropped, where the text defines it (textual)."""
    near = [] if result.resolved else suggestions(connection, result.target)
    data = question_answer(connection, result, within, near, generation)
    dropped = [] if result.resolved else named_gaps(gaps or {}, result.target)
    if dropped:
        data["dropped_definitions"] = [{"path": path, **item, "evidence": "textual"} for path, item in dropped]
    return data


DROPPED_SAID = 3  # dropped definitions an unresolved answer names


def dropped_note(data: dict[str, Any]) -> str:
    """What an unresolved answer says of the definitions the provider dropped that its target
    names (``dropped_definitions``, at most three), each a sentence with a leading space; "" when none."""
    return "".join(
        f" The text of the bound commit defines {item['name']} at {item['path']}:{item['line']}, but the provider "
        f"dropped it (an extraction gap; textual): cm-graph context usage {shlex.quote(data['target'])} answers it "
        "from the text." for item in data.get("dropped_definitions", [])[:DROPPED_SAID])


def question_answer(
    connection: apsw.Connection, result: Answer, within: str | None, near: list[dict[str, Any]],
    generation: str,
) -> dict[str, Any]:
    """One answer as data with its generation and ids: the same object, and so the same
    ``answer_id``, whether ``ask --json`` prints it or ``query`` summarises the packet made of it."""
    data = {"generation": generation, **answer_data(connection, result, within, near)}
    return stamp_ids(data, "question", result.question.name, result.target)
