"""The one table of tools every surface serves: MCP's ``tools/list``, REST's routes, OpenAPI.

A tool is a name agents can rely on, a JSON Schema for its arguments (checked before the
adapter runs, on every surface alike), its output schema (the one reply envelope every tool
answers in, ``base/envelope.py``), whether it only reads, its REST route, and the adapter
(``answers.py``) that computes the whole answer. A new capability is one
entry here plus one adapter function; nothing in the MCP server or the REST app changes.

Descriptions and schemas are short on purpose: hosts put ``tools/list`` into the model's context
on every turn, and tests hold it under 4,700 characters (six tools).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.envelope import output_schema
from ..base.rules import IDENTIFIER
from ..context.budget import MAX_ITEMS, MIN_CHARS, MIN_ITEMS
from ..context.diffread import MODES
from ..context.intents import INTENT_NAMES
from ..fleet import usages as fleet_usages
from ..query.answerids import CAPABILITY_PREFIX, ID_PREFIX
from ..query.questions import MAX_DEPTH, MAX_NODE_BUDGET, QUESTION_NAMES
from .answers import (
    DEFAULT_REPLY_CHARS,
    HARD_CAP_CHARS,
    ask_answer,
    changes_answer,
    code_context_answer,
    graph_status_answer,
)
from .authority import Caller
from .feedbackanswer import graph_feedback_answer
from .fleetanswers import cross_repo_usages_answer

Adapter = Callable[[Caller, dict[str, Any]], dict[str, Any]]
# An agent's target: at most 256 characters, within the CLI's (``query.questions.MAX_TARGET_CHARS``,
# 512), so every target a tool takes is one the questions and code_context take too.
MCP_TARGET_CHARS = 256
TARGET = {"type": "string", "minLength": 1, "maxLength": MCP_TARGET_CHARS}
MAX_CHARS_ARGUMENT = {"type": "integer", "minimum": MIN_CHARS, "maximum": HARD_CAP_CHARS,
                      "default": DEFAULT_REPLY_CHARS}
FLEET = {"type": "string", "pattern": f"^{IDENTIFIER}$"}  # a fleet name (base.rules.identifier)
DEPTH = {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH}
NODE_BUDGET = {"type": "integer", "minimum": 1, "maximum": MAX_NODE_BUDGET}
COUNT = {"type": "integer", "minimum": 0}  # the upper bound is record_outcome's, checked there
INTEGER = {"type": "integer"}  # graph_feedback repeats the asking tool's; the re-ask checks its range


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    read_only: bool
    method: str
    route: str
    arguments: dict[str, Any]
    required: tuple[str, ...]
    output: dict[str, Any]
    adapter: Adapter

    @property
    def input_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": self.arguments, "required": list(self.required),
                "additionalProperties": False}


TOOLS: tuple[Tool, ...] = (
    Tool(
        "code_context",
        "Call before grep or reading files: one cited answer about a symbol or path (callers, callees, "
        "tests, impact by hop, docstrings); a cut list names its next page. Check `freshness`.",
        True, "POST", "/graph/analyze/code-context",
        {"target": TARGET, "intent": {"enum": list(INTENT_NAMES), "default": "usage"},
         "max_chars": MAX_CHARS_ARGUMENT,
         "max_items": {"type": "integer", "minimum": MIN_ITEMS, "maximum": MAX_ITEMS},  # default 50 (budget.py)
         "cursor": {"type": "string", "maxLength": 128}},
        ("target",), output_schema(), code_context_answer,
    ),
    Tool(
        "ask",
        "One bounded graph question as cited evidence documents for HEAD.",
        True, "POST", "/graph/ask",
        {"question": {"enum": list(QUESTION_NAMES)}, "target": TARGET,
         "depth": DEPTH, "node_budget": NODE_BUDGET, "max_chars": MAX_CHARS_ARGUMENT},
        ("question", "target"), output_schema(), ask_answer,
    ),
    Tool(
        "changes",
        "Before a commit: the definitions your diff changed, and their callers.",
        True, "POST", "/graph/analyze/changes",
        {"diff": {"enum": list(MODES)}, "ref": {"type": "string", "maxLength": 256},
         "max_items": {"type": "integer", "minimum": MIN_ITEMS, "maximum": MAX_ITEMS},
         "max_chars": MAX_CHARS_ARGUMENT},
        (), output_schema(), changes_answer,
    ),
    Tool(
        "cross_repo_usages",
        "Where a symbol is defined and used across this checkout's fleet, by repository, anchored by "
        "import or receiver type.",
        True, "POST", "/graph/analyze/cross-repo-usages",
        {"symbol": {"type": "string", "minLength": 1, "maxLength": fleet_usages.MAX_SYMBOL_CHARS}, "fleet": FLEET,
         "max_chars": {**MAX_CHARS_ARGUMENT, "minimum": fleet_usages.MIN_CHARS}},
        ("symbol",), output_schema(), cross_repo_usages_answer,
    ),
    Tool(
        "graph_status",
        "Can this checkout's graph answer now (state, index, commit vs HEAD)? With `fleet`: the "
        "fleet doctor's report.",
        True, "GET", "/graph/status", {"fleet": FLEET}, (), output_schema(),
        graph_status_answer,
    ),
    Tool(
        "graph_feedback",
        "After a task: did an answer save file reads? Its two ids, plus any non-default argument it "
        "was asked with.",
        False, "POST", "/graph/feedback",
        {"capability_id": {"type": "string", "pattern": "^" + re.escape(CAPABILITY_PREFIX)},
         "answer_id": {"type": "string", "pattern": "^" + re.escape(ID_PREFIX) + "[0-9a-f]{64}$"},
         "reads_avoided": COUNT, "files_read": COUNT, "correct": {"type": "boolean"},
         "target": TARGET, "max_chars": INTEGER, "max_items": INTEGER, "depth": INTEGER, "node_budget": INTEGER},
        ("capability_id", "answer_id", "reads_avoided", "files_read", "correct"), output_schema(),
        graph_feedback_answer,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
