"""Issue 30 item 6: the eval corpus graded automatically on every publish, within a bounded time,
reported in the build's summary and by ``graph_status``; ``eval run`` stays for CI.

Real git repositories (G0), real outcome stores written through ``feedback record``, generations
published with ``build --from-graph`` (the same publish ``refresh`` ends with), the MCP SDK's
own client for ``graph_status``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from cm_graph.feedback.autograde import grading_path
from cm_graph.generation.layout import Workspace

from ..generation.test_lifecycle import cli, where
from ..query.test_answer_ids import context_answer
from ..support.g0 import g0_graph
from ..support.helpers import code_paths, commit_all, inventory_for, publish, write_files, write_output
from .test_eval_gates import CORRECT, GONE, cited, recorded_as
from .test_feedback import record


def _build(repo: Path, state: Path, *flags: str) -> Any:
    out = write_output(state.parent / f"out-{os.urandom(4).hex()}", g0_graph(), inventory_for(repo, code_paths(repo)))
    return cli("build", "--from-graph", str(out), *where(repo, state), *flags, "--json")


def _recorded(repo: Path, state: Path) -> dict[str, Any]:
    publish(repo, state, g0_graph())
    answer = context_answer(repo, state, "usage", "parse_config")
    assert record(repo, state, answer, *CORRECT, intent="usage").code == 0
    write_files(repo, {"NOTES.md": "notes\n"})
    commit_all(repo, "an unrelated file")
    return answer


def test_a_publish_grades_the_corpus_and_says_so_in_its_summary(g0_repo: Path, state_dir: Path) -> None:
    _recorded(g0_repo, state_dir)
    built = _build(g0_repo, state_dir)
    assert built.code == 0, built.err
    graded = built.out["eval"]
    assert graded["generation"] == built.out["generation"]
    assert (graded["status"], graded["graded"], graded["not_graded"]) == ("passed", 1, 0)
    assert graded["counts"]["unchanged"] == 1 and graded["regressions"] == []
    assert oct(grading_path(Workspace.locate(g0_repo, state_dir)).stat().st_mode & 0o777) == "0o600"


def test_a_regressed_case_is_reported_and_never_fails_the_publish(g0_repo: Path, state_dir: Path) -> None:
    answer = _recorded(g0_repo, state_dir)
    recorded_as(state_dir, answer, cited(answer) + [GONE.format(900), GONE.format(901), GONE.format(902)])
    built = _build(g0_repo, state_dir)
    assert built.code == 0, built.err  # the generation is current: a regressed answer is news, not a failed build
    assert built.out["usable"] is True
    graded = built.out["eval"]
    assert (graded["status"], graded["counts"]["regressed"]) == ("failed", 1)
    assert graded["regressions"] == [answer["answer_id"]]
    # CI's gate is still `eval run`, which fails on it
    assert cli("eval", "run", *where(g0_repo, state_dir), "--json").code == 1


def test_no_time_means_no_grading_and_a_bad_bound_is_refused(g0_repo: Path, state_dir: Path) -> None:
    _recorded(g0_repo, state_dir)
    built = _build(g0_repo, state_dir, "--eval-seconds", "0")
    assert built.code == 0 and "eval" not in built.out
    refused = _build(g0_repo, state_dir, "--eval-seconds", "-1")
    assert refused.code != 0 and "--eval-seconds" in refused.err


def test_no_case_means_no_grading(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    built = _build(g0_repo, state_dir)
    assert built.code == 0 and "eval" not in built.out
    assert not grading_path(Workspace.locate(g0_repo, state_dir)).exists()


@pytest.mark.anyio
async def test_graph_status_reports_the_grading_of_the_current_generation(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")
    from ..support.surfacekit import connected
    from ..surfaces.test_mcp_fleet_feedback import call
    from ..surfaces.test_mcp_server import stdio

    served = connected(tmp_path)
    answer = context_answer(served.repo, served.state, "usage", "parse_config")
    assert record(served.repo, served.state, answer, *CORRECT, intent="usage").code == 0
    write_files(served.repo, {"NOTES.md": "notes\n"})
    commit_all(served.repo, "an unrelated file")
    built = _build(served.repo, served.state)
    assert built.code == 0, built.err
    async with stdio(served) as client:
        status = await call(client, "graph_status", {})
    assert status["eval"]["generation"] == built.out["generation"]
    assert (status["eval"]["status"], status["eval"]["graded"]) == ("passed", 1)
    # published again without grading: the kept grading is of an earlier generation, and says so
    again = _build(served.repo, served.state, "--eval-seconds", "0")
    async with stdio(served) as client:
        status = await call(client, "graph_status", {})
    assert status["eval"] == {"status": "not_graded", "reason": "graded_an_earlier_generation",
                              "of_generation": built.out["generation"]}
    assert again.out["generation"] != built.out["generation"]
