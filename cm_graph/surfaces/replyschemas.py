"""The reply schemas in full: one row per ``schema`` a tool answers in, its JSON Schema (draft
2020-12) a data file of this package (``schemas/<schema>.json``), served as the resource
``cmgraph://schemas/<schema>``.

Two schemas for each reply, on purpose. A tool's ``outputSchema`` in ``tools/list`` is the
envelope in brief (``base/envelope.py`` ``output_schema``), because hosts keep every tool's
listing in the model's context or beside it on every turn; its ``$comment`` names the resource that
holds the whole reply: every key, its type, the shape of each nested object, closed
(``additionalProperties: false``) wherever the shape is fixed, one branch per ``status``. Tests
validate every reply of every tool, answered, unavailable and refused, against both.

A schema describes the program, not a checkout: reading one needs no graph and names nothing of
the repository.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from ..base.envelope import REFUSED_SCHEMA
from ..base.errors import Refusal
from ..context.changes import CHANGES_SCHEMA
from ..context.prime import PRIME_SCHEMA
from ..context.shape import CODE_CONTEXT_SCHEMA
from ..feedback.record import RECORD_SCHEMA
from ..fleet.usages import USAGES_SCHEMA
from .answers import ASK_ANSWER_SCHEMA, SURFACE_STATUS_SCHEMA
from .fleetanswers import FLEET_STATUS_SCHEMA

SCHEMAS_URI = "cmgraph://schemas/"


@dataclass(frozen=True)
class ReplySchema:
    """A reply schema: its name (the reply's ``schema`` key) and the tools that answer in it."""

    name: str
    tools: tuple[str, ...]

    @property
    def uri(self) -> str:
        return SCHEMAS_URI + self.name

    def document(self) -> dict[str, Any]:
        return whole_schema(self.name)


ALL_TOOLS = ("code_context", "prime", "ask", "changes", "cross_repo_usages", "graph_status", "graph_feedback")
REPLY_SCHEMAS: tuple[ReplySchema, ...] = (  # each name the constant its answer is stamped with
    ReplySchema(CODE_CONTEXT_SCHEMA, ("code_context",)),
    ReplySchema(PRIME_SCHEMA, ("prime",)),
    ReplySchema(ASK_ANSWER_SCHEMA, ("ask",)),
    ReplySchema(CHANGES_SCHEMA, ("changes",)),
    ReplySchema(USAGES_SCHEMA, ("cross_repo_usages",)),
    ReplySchema(SURFACE_STATUS_SCHEMA, ("graph_status",)),
    ReplySchema(FLEET_STATUS_SCHEMA, ("graph_status",)),
    ReplySchema(RECORD_SCHEMA, ("graph_feedback",)),
    ReplySchema(REFUSED_SCHEMA, ALL_TOOLS),  # every tool's refusal
)
BY_SCHEMA = {row.name: row for row in REPLY_SCHEMAS}


@cache
def _text(name: str) -> str:
    return files(__package__).joinpath("schemas", f"{name}.json").read_text(encoding="utf-8")


def whole_schema(name: str) -> dict[str, Any]:
    """The whole JSON Schema of the reply schema ``name`` (a fresh copy: callers may change it)."""
    if name not in BY_SCHEMA:
        raise Refusal(f"No reply schema {name[:80]!r}; each tool's outputSchema names its own in $comment.",
                      reason="not_found")
    return dict(json.loads(_text(name)))


def answered_in(tool: str) -> list[str]:
    """The schemas ``tool`` answers in, its own first (the refusal, which every tool shares, last)."""
    return [row.name for row in REPLY_SCHEMAS if tool in row.tools and row.tools != ALL_TOOLS]
