"""Messages that lead somewhere (issue 15, item 9): each names the situation and the next step.

Real directories, real git repositories (an empty one, a dirty one), a published generation and
the typer app; the missing provider is the real verifier handed no executable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.provider.run import ProviderRefusal, verify_provider

from ..support.askkit import ask_graph
from ..support.cli import where
from ..support.g0 import g0_graph
from ..support.helpers import git, publish

RUNNER = CliRunner()
README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_outside_a_work_tree_status_ask_and_doctor_say_so(tmp_path: Path, state_dir: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    status = RUNNER.invoke(app, ["status", "--json", *where(plain, state_dir)])
    value = json.loads(status.stdout)
    assert status.exit_code == 1 and value["state"] == "absent"
    assert "not inside a git work tree" in value["detail"] and "--repo-path" in value["next_action"]
    asked = RUNNER.invoke(app, ["ask", "impact", "x", *where(plain, state_dir)])
    assert asked.exit_code == 1 and "not inside a git work tree" in asked.stderr
    doctor = json.loads(RUNNER.invoke(app, ["doctor", "--json", *where(plain, state_dir)]).stdout)
    assert doctor["status"] == "fail"
    (check,) = [c for c in doctor["checks"] if c["check"] == "generation"]
    assert check["status"] == "fail" and "not inside a git work tree" in check["message"]


def test_an_empty_repository_says_there_is_no_commit(tmp_path: Path, state_dir: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    status = json.loads(RUNNER.invoke(app, ["status", "--json", *where(empty, state_dir)]).stdout)
    assert "no commit yet" in status["detail"] and "git commit" in status["next_action"]
    asked = RUNNER.invoke(app, ["ask", "impact", "x", *where(empty, state_dir)])
    assert asked.exit_code == 1 and "no commit yet" in asked.stderr


def test_a_dirty_tree_is_named_in_status_and_in_an_unresolved_answer(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    (g0_repo / "example_pkg" / "config.py").write_text("edited\n")
    status = json.loads(RUNNER.invoke(app, ["status", "--json", *where(g0_repo, state_dir)]).stdout)
    assert status["cm_graph"]["changed_tracked_files"] == 1
    assert "changed since the bound commit" in status["cm_graph"]["working_tree"]
    asked = RUNNER.invoke(app, ["ask", "impact", "new_function", *where(g0_repo, state_dir)])
    assert asked.exit_code == 1 and "the graph (and every answer) is of the commit" in asked.stderr


def test_a_missing_provider_is_remedied_as_the_readme_installs(tmp_path: Path) -> None:
    with pytest.raises(ProviderRefusal) as caught:
        verify_provider(None)
    assert "python -m pip install -e '.[provider,mcp,dev]'" in caught.value.message
    assert "python -m pip install -e '.[provider,mcp,dev]'" in README


def test_diff_without_a_previous_generation_mentions_keep_previous(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    diffed = RUNNER.invoke(app, ["diff", "HEAD~0", "0" * 7 + "1", *where(g0_repo, state_dir)])
    assert diffed.exit_code == 1
    (g0_repo / "x.py").write_text("x\n")
    git(g0_repo, "add", "x.py")
    git(g0_repo, "commit", "-q", "-m", "two")
    publish(g0_repo, state_dir, g0_graph())
    diffed = RUNNER.invoke(app, ["diff", "HEAD~1", "HEAD", *where(g0_repo, state_dir)])
    assert diffed.exit_code == 1 and "--keep-previous" in diffed.stderr


def test_an_empty_query_answer_says_there_is_nothing_within_the_bounds(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "dependency", "parse_config")
    summary = outcome.summary
    assert summary["reason"] == "uncitable"
    assert "no dependency relationship (calls, imports, references)" in summary["detail"]
    assert "depth 2 and node budget 40" in summary["detail"]
    assert "cm-graph ask symbol TARGET" in summary["next_action"]


def test_an_unknown_revision_never_advises_removing_a_good_graph(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    status = RUNNER.invoke(app, ["status", "--json", "--revision", "nosuchrev", *where(g0_repo, state_dir)])
    value = json.loads(status.stdout)
    assert status.exit_code == 1 and value["state"] == "invalid"
    assert "remove" not in value["next_action"] and "revision" in value["next_action"]
    assert RUNNER.invoke(app, ["status", "--json", *where(g0_repo, state_dir)]).exit_code == 0
    # The doctor gives the judgement's own remedy too (issue 26 item 4; it gave the state's,
    # "Remove and rebuild the graph", before).
    doctor = RUNNER.invoke(app, ["doctor", "--json", "--revision", "nosuchrev", *where(g0_repo, state_dir)])
    [generation] = [c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "generation"]
    assert "remove" not in generation["remediation"] and "revision" in generation["remediation"], generation
