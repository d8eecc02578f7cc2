"""Issue 18: every answer carries a capability_id (what was asked, the same on every generation) and
an answer_id (what was answered: pins the generation and the arguments, not where HEAD is), on
``code_context``, ``ask --json`` and the query summary, and the summary names the ask answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cm_graph.query.answerids import answer_id

from ..generation.test_lifecycle import cli, where
from ..support.g0 import g0_graph
from ..support.helpers import commit_all, publish


def context_answer(repo: Path, state: Path, intent: str, target: str, *extra: str) -> dict[str, Any]:
    ran = cli("context", intent, target, *where(repo, state), *extra, "--json")
    assert ran.code == 0, ran.err
    return ran.out  # type: ignore[no-any-return]


def ask_answer(repo: Path, state: Path, question: str, target: str, *extra: str) -> dict[str, Any]:
    ran = cli("ask", question, target, *where(repo, state), *extra, "--json")
    assert ran.code == 0, ran.err
    return ran.out["answers"][0]  # type: ignore[index, no-any-return]



def test_every_answer_carries_both_ids_and_query_names_the_ask_answer(g0_repo: Path, state_dir: Path,
                                                                      tmp_path: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    asked = ask_answer(g0_repo, state_dir, "impact", "parse_config")
    assert asked["capability_id"] == "cmg:question:impact:parse_config"
    assert asked["answer_id"] == answer_id(asked) and asked["answer_id"].startswith("sha256:")
    context = context_answer(g0_repo, state_dir, "usage", ".parse_config()")
    assert context["capability_id"] == "cmg:code_context:usage:parse_config"

    auth = tmp_path / "auth.json"
    made = cli("auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
               "--recipient", "claude:builder", *where(g0_repo, state_dir))
    assert made.code == 0, made.err
    auth.write_text(made.out if isinstance(made.out, str) else json.dumps(made.out))
    packet = tmp_path / "packet.json"
    summary = cli("query", "--question", "impact", "--target", "parse_config", "--authorization", str(auth),
                  "--packet-out", str(packet), *where(g0_repo, state_dir), "--json").out
    assert (summary["capability_id"], summary["answer_id"]) == (asked["capability_id"], asked["answer_id"])
    assert "answer_id" not in packet.read_text()  # the packet stays the reference's shape


def test_answer_id_pins_generation_and_arguments_but_not_where_head_is(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    before = context_answer(g0_repo, state_dir, "how", "load")
    depth_one = ask_answer(g0_repo, state_dir, "impact", "parse_config", "--depth", "1")
    assert depth_one["answer_id"] != ask_answer(g0_repo, state_dir, "impact", "parse_config")["answer_id"]

    commit_all(g0_repo, "HEAD moves, the graph does not")  # an empty commit: the graph is now stale
    after = context_answer(g0_repo, state_dir, "how", "load")
    assert after["freshness"]["state"] == "stale" and before["freshness"]["state"] == "current"
    assert after["answer_id"] == before["answer_id"]

    publish(g0_repo, state_dir, g0_graph())  # the same graph as a new generation
    again = context_answer(g0_repo, state_dir, "how", "load")
    assert again["capability_id"] == before["capability_id"]
    assert again["answer_id"] != before["answer_id"]
