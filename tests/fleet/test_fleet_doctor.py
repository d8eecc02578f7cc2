"""``cm-graph doctor --fleet``: one verdict per member, on real temporary repositories.

Each scenario issue 17 names is a real git checkout with a real published generation: a commit
after the build (still ok), 60 commits behind (warn), an old bound commit that is behind (warn),
another branch checked out (diverged, fail), a shallow clone that lost the bound commit (fail), a
deleted checkout (fail, not a crash) and git missing from PATH (unknown, a failure: never
fail-open). Exit codes: 0 all ok, 3 warnings only, 1 any failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.fleet.doctor import fleet_doctor
from cm_graph.fleet.members import add_member, member_from

from ..support.g0 import g0_graph, make_g0_repo
from ..support.helpers import FIXED_DATE, git, publish

RUNNER = CliRunner()


def _commits(repo: Path, count: int, date: str = FIXED_DATE, label: str = "c") -> None:
    """``count`` empty commits in one shell (one process for the loop, not one per commit); dates
    are fixed, so ``label`` keeps two branches' commits apart."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["sh", "-c", f'for i in $(seq {count}); do git commit -q --allow-empty -m "{label}$i"; done'],
                   cwd=repo, env=env, check=True)


def _member(tmp_path: Path, state: Path, name: str) -> Path:
    repo = make_g0_repo(tmp_path / name)
    publish(repo, state, g0_graph())
    add_member(state, "f", member_from(state, connection=None, repo_path=repo, repository=name))
    return repo


def _rows(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["repository"]: row for row in report["members"]}


def test_every_verdict_on_real_repositories(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _commits(_member(tmp_path, state, "one-after"), 1)
    _commits(_member(tmp_path, state, "sixty-behind"), 60)
    _commits(_member(tmp_path, state, "old-bound"), 1, date="2026-01-20T12:00:00+00:00")
    deleted = _member(tmp_path, state, "deleted")
    shutil.rmtree(deleted)
    report = fleet_doctor(state, "f")
    rows = _rows(report)
    assert (rows["one-after"]["verdict"], rows["one-after"]["behind"], rows["one-after"]["ahead"]) == ("ok", 1, 0)
    assert rows["one-after"]["state"] == "stale" and rows["one-after"]["search"] == "available"
    assert (rows["sixty-behind"]["verdict"], rows["sixty-behind"]["reason"], rows["sixty-behind"]["behind"]) == (
        "warn", "stale", 60)
    assert rows["sixty-behind"]["next_action"].startswith("cm-graph refresh --repo-path ")
    old = rows["old-bound"]
    assert (old["verdict"], old["reason"], old["behind"], old["commit_age_days"]) == ("warn", "stale", 1, 19.0)
    assert rows["deleted"]["verdict"] == "fail" and rows["deleted"]["reason"] == "checkout_missing"
    assert report["verdict"] == "fail" and report["exit_code"] == 1
    assert report["summary"]["total"] == 4


def test_another_branch_checked_out_is_diverged(tmp_path: Path) -> None:
    state = tmp_path / "state"
    repo = make_g0_repo(tmp_path / "repo")
    git(repo, "branch", "elsewhere")
    _commits(repo, 2)
    publish(repo, state, g0_graph())  # bound to main, two commits past the branch point
    git(repo, "checkout", "-q", "elsewhere")
    _commits(repo, 1, label="branch")
    add_member(state, "f", member_from(state, connection=None, repo_path=repo, repository="repo"))
    [row] = fleet_doctor(state, "f")["members"]
    assert (row["verdict"], row["reason"], row["ahead"], row["behind"]) == ("fail", "diverged", 2, 1)


def test_a_shallow_clone_that_lost_the_bound_commit_fails(tmp_path: Path) -> None:
    state = tmp_path / "state"
    upstream = make_g0_repo(tmp_path / "upstream")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{upstream}", "clone")
    clone = tmp_path / "clone"
    publish(clone, state, g0_graph())
    _commits(upstream, 3)
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main")
    git(clone, "reset", "-q", "--hard", "FETCH_HEAD")
    git(clone, "reflog", "expire", "--expire=now", "--all")
    git(clone, "gc", "-q", "--prune=now")
    add_member(state, "f", member_from(state, connection=None, repo_path=clone, repository="clone"))
    [row] = fleet_doctor(state, "f")["members"]
    assert (row["verdict"], row["reason"], row["shallow"]) == ("fail", "bound_commit_missing", True)
    assert "shallow" in row["detail"] and "--unshallow" in row["next_action"]


def test_git_missing_from_path_is_a_failure_with_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    _member(tmp_path, state, "repo")
    empty = tmp_path / "no-git"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    report = fleet_doctor(state, "f")
    [row] = report["members"]
    assert (row["verdict"], row["reason"]) == ("fail", "unknown")
    assert "Git could not" in row["detail"] and report["exit_code"] == 1


def test_exit_codes_a_script_can_branch_on(tmp_path: Path) -> None:
    state = tmp_path / "state"
    fresh = _member(tmp_path, state, "fresh")
    args = ["doctor", "--fleet", "f", "--state-dir", str(state), "--json"]
    ok = RUNNER.invoke(app, args)
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["summary"] == {"total": 1, "ok": 1, "warn": 0, "fail": 0, "coverage_pct": 100.0}
    (fresh / "example_pkg" / "config.py").write_text("edited\n")  # a tracked edit: counted, not judged
    [row] = json.loads(RUNNER.invoke(app, args).stdout)["members"]
    assert (row["verdict"], row["dirty"], row["built_at"]) == ("ok", 1, "2026-01-01T12:00:00+00:00")
    _commits(fresh, 3)
    warned = RUNNER.invoke(app, [*args, "--max-behind", "2"])
    assert warned.exit_code == 3 and json.loads(warned.stdout)["members"][0]["reason"] == "stale"
    text = RUNNER.invoke(app, ["doctor", "--fleet", "f", "--state-dir", str(state), "--max-behind", "2"])
    assert text.exit_code == 3 and "0 ok, 1 warn, 0 fail of 1" in text.stdout
    unknown = RUNNER.invoke(app, ["doctor", "--fleet", "nope", "--state-dir", str(state)])
    assert unknown.exit_code == 1 and "cm-graph: not_configured:" in unknown.stderr


def test_the_thresholds_hold_at_their_exact_values(tmp_path: Path) -> None:
    """Behind by exactly ``--max-behind`` commits is still ok, one more warns; exactly
    ``--max-age-days`` old is still ok, any older warns (a ``>`` flipped to ``>=`` fails here)."""
    state = tmp_path / "state"
    _commits(_member(tmp_path, state, "three"), 3)
    _commits(_member(tmp_path, state, "old"), 1, date="2026-01-20T12:00:00+00:00")  # 19.0 days after the bound
    at = _rows(fleet_doctor(state, "f", max_behind=3, max_age_days=19.0))
    assert (at["three"]["verdict"], at["three"]["behind"], at["three"]["reason"]) == ("ok", 3, None)
    assert (at["old"]["verdict"], at["old"]["commit_age_days"], at["old"]["reason"]) == ("ok", 19.0, None)
    past = _rows(fleet_doctor(state, "f", max_behind=2, max_age_days=18.99))
    assert (past["three"]["verdict"], past["three"]["reason"]) == ("warn", "stale")
    assert (past["old"]["verdict"], past["old"]["reason"]) == ("warn", "stale")


def test_one_bound_commit_off_head_is_diverged(tmp_path: Path) -> None:
    """``ahead == 1``: the graph's commit is one HEAD does not contain (HEAD went back to its parent
    on another branch), a failure; ``ahead > 1`` in the mutant would call it ok, 0 behind."""
    state = tmp_path / "state"
    repo = make_g0_repo(tmp_path / "repo")
    git(repo, "branch", "elsewhere")
    _commits(repo, 1)
    publish(repo, state, g0_graph())  # bound to main, one commit past the branch point
    git(repo, "checkout", "-q", "elsewhere")
    add_member(state, "f", member_from(state, connection=None, repo_path=repo, repository="repo"))
    [row] = fleet_doctor(state, "f")["members"]
    assert (row["verdict"], row["reason"], row["ahead"], row["behind"]) == ("fail", "diverged", 1, 0)
