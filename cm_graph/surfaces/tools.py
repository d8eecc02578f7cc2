"""The one table of tools every surface serves: MCP's ``tools/list``, REST's routes, OpenAPI.

A tool is a name agents can rely on, a JSON Schema for its arguments (checked before the
adapter runs, on every surface alike), a small output schema, whether it only reads, its REST
route, and the adapter (``answers.py``) that computes the whole answer. A new capability is one
entry here plus one adapter function; nothing in the MCP server or the REST app changes.

Descriptions and schemas are short on purpose: hosts put ``tools/list`` into the model's context
on every turn, and tests hold it under 4,000 characters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..context.budget import MIN_CHARS
from ..context.sections import INTENT_NAMES
from ..query.questions import MAX_DEPTH, MAX_NODE_BUDGET, QUESTION_NAMES
from .answers import (
    DEFAULT_REPLY_CHARS,
    HARD_CAP_CHARS,
    ask_answer,
    code_context_answer,
    graph_status_answer,
)
from .authority import Caller

Adapter = Callable[[Caller, dict[str, Any]], dict[str, Any]]
TARGET = {"type": "string", "minLength": 1, "maxLength": 256}
MAX_CHARS_ARGUMENT = {"type": "integer", "minimum": MIN_CHARS, "maximum": HARD_CAP_CHARS,
                      "default": DEFAULT_REPLY_CHARS}


def answer_schema(*required: str) -> dict[str, Any]:
    """Every answer: a schema name, a status and the prose; the rest is the tool's own shape."""
    keys = ("schema", "status", "answer", *required)
    return {"type": "object", "required": list(keys),
            "properties": {key: {"type": "string"} for key in ("schema", "status", "answer")}}


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
        "tests, impact by hop, docstrings). Read only the cited lines you must edit. Check `freshness`.",
        True, "POST", "/graph/analyze/code-context",
        {"target": TARGET, "intent": {"enum": list(INTENT_NAMES), "default": "usage"},
         "max_chars": MAX_CHARS_ARGUMENT},
        ("target",), answer_schema("freshness"), code_context_answer,
    ),
    Tool(
        "ask",
        "One bounded graph question (impact, dependency, symbol, related_tests) as cited evidence "
        "documents, for the checkout's HEAD.",
        True, "POST", "/graph/ask",
        {"question": {"enum": list(QUESTION_NAMES)}, "target": TARGET,
         "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH},
         "node_budget": {"type": "integer", "minimum": 1, "maximum": MAX_NODE_BUDGET},
         "max_chars": MAX_CHARS_ARGUMENT},
        ("question", "target"), answer_schema("freshness"), ask_answer,
    ),
    Tool(
        "graph_status",
        "Whether this checkout's graph can answer now: state, index, generation and commit against HEAD.",
        True, "GET", "/graph/status", {}, (), answer_schema("freshness"),
        graph_status_answer,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
