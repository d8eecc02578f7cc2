"""``code_context`` next to records the graph left out (issue 25, item 6).

A tracked file whose name holds a tab, an ESC or a DEL is legal, but no ``path#L<n>`` citation can
carry it: its records are untraversable, by design, and the seed's questions say
``provider_warning`` when a walk touches one of their neighbours. Every intent of ``code_context``
says so too (``bounds.omissions``: ``by: "untraversable"``), on the CLI's library and on the MCP
surface alike, and never that nothing calls, reaches or mentions the anchor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cm_graph.connections.store import ConnectionStore, connect
from cm_graph.context.from_workspace import code_context
from cm_graph.context.intents import INTENT_NAMES
from cm_graph.generation.layout import Workspace
from cm_graph.surfaces.authority import Caller
from cm_graph.surfaces.dispatch import call_tool
from cm_graph.surfaces.tools import BY_NAME

from ..support.contextkit import readable
from ..support.g0 import edge, node
from ..support.helpers import inventory_for, make_repo, publish

CORE = "def helper():\n    return 1\n\n\ndef lone():\n    return 2\n"
ODD_CALLER = "from pkg.core import helper\n\n\ndef odd_caller():\n    return helper()\n"
TESTS = "from pkg.core import lone\n\n\ndef test_lone():\n    assert lone() == 2\n"
# What the answer may not say of an anchor with a caller it could not walk to.
NONE_SAID = ("no caller", "nothing reaches", "no test reaches", "no line of commit", "nothing imports")


def _graph(odd: str) -> dict[str, Any]:
    """helper() is called (and imported) only from the oddly named file; lone() only by a test."""
    return {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("helper", "helper()", "pkg/core.py", "L1"),
                      node("lone", "lone()", "pkg/core.py", "L5"),
                      node("odd", odd.rsplit("/", 1)[1], odd, "L1"), node("odd_caller", "odd_caller()", odd, "L4"),
                      node("t", "test_core.py", "tests/test_core.py", "L1"),
                      node("t_lone", "test_lone()", "tests/test_core.py", "L4")],
            "edges": [edge("core", "helper", "contains", path="pkg/core.py", location="L1"),
                      edge("core", "lone", "contains", path="pkg/core.py", location="L5"),
                      edge("odd_caller", "helper", "calls", path=odd, location="L5"),
                      edge("odd", "helper", "imports_from", path=odd, location="L1"),
                      edge("t_lone", "lone", "calls", path="tests/test_core.py", location="L5")]}


@pytest.fixture(params=["odd/tab\tname.py", "odd/esc\x1b[31m.py", "odd/del\x7fname.py"], ids=["tab", "esc", "del"])
def odd_checkout(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path]:
    odd = request.param
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, odd: ODD_CALLER, "tests/test_core.py": TESTS}
    repo = make_repo(tmp_path / "repo", files)
    state = tmp_path / "state"
    publish(repo, state, _graph(odd), inventory=inventory_for(repo, sorted(files)))
    connect(ConnectionStore(state), "local-graph", repo, ["owner/repo"], ["claude:builder"])
    return repo, state


def _asked(repo: Path, state: Path, intent: str, target: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The library's answer and the MCP tool's, for one intent."""
    direct = code_context(Workspace.locate(repo, state), intent, target)
    reply = call_tool(Caller(state, "local-graph", "claude:builder"), BY_NAME["code_context"],
                      {"intent": intent, "target": target})
    assert not reply.is_error, reply.payload
    return readable(direct), readable(reply.payload)


def test_every_intent_says_the_graph_left_records_out_beside_the_anchor(odd_checkout: tuple[Path, Path]) -> None:
    repo, state = odd_checkout
    for intent in INTENT_NAMES:
        for answer in _asked(repo, state, intent, "helper"):
            assert answer["status"] == "answered"
            assert answer["bounds"]["truncated"] is True, (intent, answer["bounds"])
            prose = answer["answer"].lower()
            assert not [words for words in NONE_SAID if words in prose], (intent, answer["answer"])
            assert "(untraversable)" in answer["answer"]
            walked = [s for s in answer["sections"].values() if s["total"] == 0 and s["status"] != "unavailable"
                      and s["reason"] not in ("no_rationale", "no_concept_marker", "no_similar_code")]
            assert walked and {s["reason"] for s in walked} == {"untraversable"}, (intent, answer["sections"])
            assert "odd" not in answer["answer"] and "\x1b" not in str(answer) and "\x7f" not in str(answer)


def test_an_anchor_away_from_every_border_answers_as_before(odd_checkout: tuple[Path, Path]) -> None:
    repo, state = odd_checkout
    for intent in INTENT_NAMES:
        for answer in _asked(repo, state, intent, "lone"):
            assert "untraversable" not in answer["answer"] and "untraversable" not in str(answer["sections"])
    usage, _ = _asked(repo, state, "usage", "lone")
    assert [i["label"] for i in usage["sections"]["callers"]["items"]] == ["test_lone()"]
