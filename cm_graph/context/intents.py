"""The intents of ``code_context``, one row each: its name, the CLI's summary of it, and the intent
its answer suggests next.

Which sections an intent shows is said by each section's row (``section_table.py``: a row names
its intents). This table stays free of everything that composes an answer, so the MCP tool's
``intent`` enum, the CLI's subcommands and the re-ask read it without loading the index code.
"""

from __future__ import annotations

from ..base.records import record


@record
class Intent:
    name: str
    summary: str  # the help of `cm-graph context <name>`
    then: str  # the intent the answer's last next action runs
    # The sections the character budget cuts last (``budget.fit``): what the intent is asked for
    # (usage: the callers, graph and resolved; impact: what breaks, overrides included).
    first: tuple[str, ...]


INTENTS: tuple[Intent, ...] = (
    Intent("how", "How it works: what it calls (depth 2) and defines, with citations.", "usage", ("calls",)),
    Intent("usage", "Where it is used: callers with call sites, references, tests, similar code.", "impact",
           ("callers", "resolved_callers")),
    Intent("impact", "What breaks if it changes: transitive callers by hop, and the tests that reach it.", "tests",
           ("callers_by_hop", "resolved_by_hop", "overrides")),
    Intent("tests", "The tests that reach it, each with its reaching path, and the tests to run, ranked.", "impact",
           ("tests_to_run",)),
)
INTENT_NAMES = tuple(intent.name for intent in INTENTS)
