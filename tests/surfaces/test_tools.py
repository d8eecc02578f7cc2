"""The tool table's argument bounds are the bounds of the checks behind them: a schema that is
looser than its check refuses later and less clearly, one that is tighter refuses what the CLI
takes. Each bound is one named constant of the stage whose check owns the rule."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("jsonschema", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

import jsonschema  # noqa: E402

from cm_graph.base.errors import InvalidInput  # noqa: E402
from cm_graph.base.rules import identifier  # noqa: E402
from cm_graph.fleet.usages import MAX_SYMBOL_CHARS, split_symbol  # noqa: E402
from cm_graph.query.answerids import ID_PREFIX, capability_id  # noqa: E402
from cm_graph.query.questions import MAX_TARGET_CHARS  # noqa: E402
from cm_graph.surfaces.tools import BY_NAME, MCP_TARGET_CHARS  # noqa: E402


def _takes(tool: str, argument: str, value: Any) -> bool:
    schema = BY_NAME[tool].input_schema["properties"][argument]
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def _passes(check: Any, value: Any) -> bool:
    try:
        check(value)
    except InvalidInput:
        return False
    return True


def test_an_agents_target_is_bounded_by_the_mcp_limit_within_the_clis() -> None:
    assert MCP_TARGET_CHARS == 256 and MAX_TARGET_CHARS == 512  # docs/mcp.md and docs/cli.md say so
    for tool in ("code_context", "ask", "graph_feedback"):
        assert _takes(tool, "target", "x" * MCP_TARGET_CHARS) and not _takes(tool, "target", "x" * 257), tool


def test_a_symbol_and_a_fleet_name_are_bounded_as_the_fleet_checks_them() -> None:
    for symbol in ("a" * MAX_SYMBOL_CHARS, "a" * (MAX_SYMBOL_CHARS + 1)):
        assert _takes("cross_repo_usages", "symbol", symbol) == _passes(split_symbol, symbol)
    for name in ("deps", "a" * 64, "a" * 65, "Deps", "-x", "d.e"):
        for tool in ("cross_repo_usages", "graph_status"):
            assert _takes(tool, "fleet", name) == _passes(lambda n: identifier(n, "The fleet name"), name), name


def test_the_feedback_ids_are_shaped_as_every_answer_mints_them() -> None:
    assert _takes("graph_feedback", "capability_id", capability_id("code_context", "how", "load"))
    assert _takes("graph_feedback", "answer_id", ID_PREFIX + "0" * 64)
    assert not _takes("graph_feedback", "answer_id", ID_PREFIX + "0" * 63)


def test_max_items_is_bounded_as_the_context_check_bounds_it() -> None:
    from cm_graph.context.budget import check_max_items

    for value in (0, 1, 50, 500, 501, True):
        assert _takes("code_context", "max_items", value) == _passes(check_max_items, value), value
