"""The one table of tools every surface serves: MCP's ``tools/list``, REST's routes, OpenAPI.

A tool is a name agents can rely on, a JSON Schema for its arguments (checked before the
adapter runs, on every surface alike), its output schema (the one reply envelope every tool
answers in, ``base/envelope.py``, naming the whole schema of each of its replies:
``replyschemas.py``), whether it only reads, its REST route, and the adapter
(``answers.py``) that computes the whole answer. A new capability is one
entry here plus one adapter function; nothing in the MCP server or the REST app changes.

Every argument has a description that ends with an example (``described``). Descriptions and
schemas are short on purpose: hosts put each tool's name, description and input schema into the
model's context on every turn (not its output schema or annotations, which they keep to check and
gate replies: anthropics/claude-code#90150), and tests hold that part of ``tools/list`` under 4,000
characters (six tools, 28 arguments) and the whole listing under 6,000.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.envelope import output_schema
from ..base.rules import IDENTIFIER
from ..context.budget import MAX_ITEMS, MIN_CHARS, MIN_ITEMS
from ..context.diffread import MODES
from ..context.intents import INTENT_NAMES
from ..context.spellings import MAX_TASK_CHARS
from ..fleet import usages as fleet_usages
from ..query.answerids import CAPABILITY_PREFIX, ID_PREFIX
from ..query.questions import MAX_DEPTH, MAX_NODE_BUDGET, QUESTION_NAMES
from .answers import (
    ask_answer,
    changes_answer,
    code_context_answer,
    graph_status_answer,
    prime_answer,
)
from .authority import Caller
from .feedbackanswer import graph_feedback_answer
from .fleetanswers import cross_repo_usages_answer
from .limits import HARD_CAP_CHARS
from .replyschemas import answered_in

Adapter = Callable[[Caller, dict[str, Any]], dict[str, Any]]
# An agent's target: at most 256 characters, within the CLI's (``query.questions.MAX_TARGET_CHARS``,
# 512), so every target a tool takes is one the questions and code_context take too.
MCP_TARGET_CHARS = 256
TARGET = {"type": "string", "maxLength": MCP_TARGET_CHARS}  # an empty one is refused by its resolver
# Its default (DEFAULT_REPLY_CHARS) is the adapters'; the listing leaves it out to stay short.
MAX_CHARS_ARGUMENT = {"type": "integer", "minimum": MIN_CHARS, "maximum": HARD_CAP_CHARS}
FLEET = {"type": "string", "pattern": f"^{IDENTIFIER}$"}  # a fleet name (base.rules.identifier)
DEPTH = {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH}
NODE_BUDGET = {"type": "integer", "minimum": 1, "maximum": MAX_NODE_BUDGET}
COUNT = {"type": "integer", "minimum": 0}  # the upper bound is record_outcome's, checked there
# graph_feedback repeats the asking tool's bounds loosely: the re-ask checks their ranges.
INTEGER = {"type": "integer"}


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
        required = {"required": list(self.required)} if self.required else {}  # none: nothing to list
        return {"type": "object", "properties": self.arguments, **required, "additionalProperties": False}


def described(spec: dict[str, Any], description: str, example: Any) -> dict[str, Any]:
    """An argument's schema with its description, which ends with an example the schema accepts
    (``, e.g. <example>``: text as it is, anything else as JSON; tests check each one)."""
    shown = example if isinstance(example, str) else json.dumps(example)
    return {**spec, "description": f"{description}, e.g. {shown}"}


REPLY_CHARS = described(MAX_CHARS_ARGUMENT, "size", 16_000)
SECTION_ITEMS = {"type": "integer", "minimum": MIN_ITEMS, "maximum": MAX_ITEMS}  # default 50 (context/budget.py)
ASKED = "asked"  # graph_feedback: an argument the answer was asked with (when not its default)

TOOLS: tuple[Tool, ...] = (
    Tool(
        "code_context",
        "Before grep/reading files: cited callers, callees, tests, impact.",
        True, "POST", "/graph/analyze/code-context",
        {"target": described(TARGET, "name or path", "Config.load"),
         "intent": described({"enum": list(INTENT_NAMES), "default": "usage"}, "which", "impact"),
         "max_chars": REPLY_CHARS,
         "max_items": described(SECTION_ITEMS, "per section", 20),
         "cursor": described({"type": "string", "maxLength": 128}, "a page action's", "callers.50.8000.50.ab12")},
        ("target",), output_schema(*answered_in("code_context")), code_context_answer,
    ),
    Tool(
        "prime",
        "Task start: the code it names, callers, callees, tests.",
        True, "POST", "/graph/analyze/prime",
        {"task": described({"type": "string", "maxLength": MAX_TASK_CHARS}, "as written", "Fix `Session.send`")},
        ("task",), output_schema(*answered_in("prime")), prime_answer,
    ),
    Tool(
        "ask",
        "One question as cited evidence for HEAD.",
        True, "POST", "/graph/ask",
        {"question": described({"enum": list(QUESTION_NAMES)}, "which", "impact"),
         "target": described(TARGET, "symbol or path", "Config.load"),
         "depth": described(DEPTH, "hops", 3), "node_budget": described(NODE_BUDGET, "nodes", 80),
         "max_chars": REPLY_CHARS},
        ("question", "target"), output_schema(*answered_in("ask")), ask_answer,
    ),
    Tool(
        "changes",
        "Before a commit: your diff's changes, callers, tests to run.",
        True, "POST", "/graph/analyze/changes",
        {"diff": described({"enum": list(MODES)}, "which (worktree)", "staged"),
         "ref": described({"type": "string", "maxLength": 256}, "for base/commit/range", "main"),
         "max_items": described(SECTION_ITEMS, "per list", 20), "max_chars": REPLY_CHARS},
        (), output_schema(*answered_in("changes")), changes_answer,
    ),
    Tool(
        "cross_repo_usages",
        "A symbol's uses across the fleet.",
        True, "POST", "/graph/analyze/cross-repo-usages",
        {"symbol": described({"type": "string", "maxLength": fleet_usages.MAX_SYMBOL_CHARS},
                             "bare or dotted", "lib.Client"),
         "fleet": described(FLEET, "another fleet", "deps"),
         "max_chars": described({**MAX_CHARS_ARGUMENT, "minimum": fleet_usages.MIN_CHARS}, "size", 16_000)},
        ("symbol",), output_schema(*answered_in("cross_repo_usages")), cross_repo_usages_answer,
    ),
    Tool(
        "graph_status",
        "Is the graph ready (state, index, HEAD)?",
        True, "GET", "/graph/status", {"fleet": described(FLEET, "a fleet", "deps")},
        (), output_schema(*answered_in("graph_status")), graph_status_answer,
    ),
    Tool(
        "graph_feedback",
        "After a task: did an answer save reads? Its ids, non-default arguments.",
        False, "POST", "/graph/feedback",
        {"capability_id": described({"type": "string", "pattern": "^" + re.escape(CAPABILITY_PREFIX)},
                                    "the answer's", "cmg:code_context:how:load"),
         "answer_id": described({"type": "string", "pattern": "^" + re.escape(ID_PREFIX) + "[0-9a-f]{64}$"},
                                "the answer's", ID_PREFIX + "0" * 64),
         "reads_avoided": described(COUNT, "reads saved", 2),
         "files_read": described(COUNT, "read anyway", 1),
         "correct": described({"type": "boolean"}, "right?", True),
         "target": described(TARGET, ASKED, ".load()"), "max_chars": described(INTEGER, ASKED, 16_000),
         "max_items": described(INTEGER, ASKED, 20), "depth": described(INTEGER, ASKED, 3),
         "node_budget": described(INTEGER, ASKED, 80)},
        ("capability_id", "answer_id", "reads_avoided", "files_read", "correct"),
        output_schema(*answered_in("graph_feedback")),
        graph_feedback_answer,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
