"""Trial findings 3 and 9: ``eval run`` compares cited sets through the diff between the two
commits (a pure line shift is not a regression), and it refuses outside a checkout or on an
unusable graph instead of passing "empty".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cm_graph.feedback.linemap import map_citations
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current

from ..generation.test_lifecycle import cli, where
from ..support.g0 import g0_graph
from ..support.helpers import commit_all, git, make_repo, publish, write_files
from .test_feedback_real import answer_id

BODY = "".join(f"line {n}\n" for n in range(1, 11))


def test_citations_move_with_a_line_shift_and_stay_put_where_their_lines_changed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": BODY, "b.py": BODY, "gone.py": "gone\n" * 3, "old.py": BODY.upper()})
    before = git(repo, "rev-parse", "HEAD").strip()
    lines = BODY.splitlines(keepends=True)
    lines[6] = "line 7 edited\n"
    write_files(repo, {"a.py": "# inserted\n# twice\n" + BODY, "b.py": "".join(lines)})
    (repo / "gone.py").unlink()
    git(repo, "mv", "old.py", "new.py")
    after = commit_all(repo, "shift a.py, edit b.py, delete gone.py, rename old.py")
    moved = map_citations(repo, before, after, [
        "a.py#L1", "a.py#L3-L5", "a.py", "b.py#L6", "b.py#L7", "b.py#L5-L9", "b.py#L8",
        "gone.py#L2", "old.py#L4",
    ])
    assert moved == {
        "a.py#L1": "a.py#L3", "a.py#L3-L5": "a.py#L5-L7", "a.py": "a.py",
        "b.py#L6": "b.py#L6", "b.py#L8": "b.py#L8",
        "b.py#L7": "b.py#L7", "b.py#L5-L9": "b.py#L5-L9",  # their cited lines changed: not moved
        "gone.py#L2": "gone.py#L2", "old.py#L4": "new.py#L4",
    }
    assert map_citations(repo, "0" * 40, after, ["a.py#L1"]) == {"a.py#L1": "a.py#L1"}  # unknown commit


@pytest.mark.provider
def test_an_inserted_line_above_every_cited_line_leaves_the_answers_unchanged(tmp_path: Path) -> None:
    core = "def helper(x):\n    return x + 1\n\n\ndef load(v):\n    return helper(v)\n"
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": core})
    state = tmp_path / "state"
    assert cli("build", "--sandbox", "off", *where(repo, state)).code == 0
    for intent, target in (("usage", "helper"), ("how", "load")):
        recorded = answer_id(repo, state, "context", intent, target)
        ran = cli("feedback", "record", "--intent", intent, "--target", target, "--answer-id", recorded,
                  "--reads-avoided", "1", "--files-read", "0", "--correct", *where(repo, state), "--json")
        assert ran.code == 0 and ran.out["eval_case"], ran.err
    write_files(repo, {"pkg/core.py": '"""A docstring pushes every line down."""\n' + core})
    commit_all(repo, "one line at the top")
    assert cli("refresh", "--sandbox", "off", *where(repo, state)).code == 0
    later = cli("eval", "run", *where(repo, state), "--json")
    assert (later.code, later.out["status"], later.out["counts"]["unchanged"]) == (0, "passed", 2), later.out
    for result in later.out["results"]:
        assert (result["overlap"], result["lost"], result["gained"]) == (1.0, [], [])


def test_eval_run_refuses_outside_a_checkout_and_on_a_damaged_graph_even_with_no_case(
        g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    nowhere = tmp_path / "not-a-checkout"
    nowhere.mkdir()
    outside = cli("eval", "run", *where(nowhere, state_dir), "--json")
    assert outside.code == 1, outside.out
    assert outside.err.startswith("cm-graph: absent: This directory is not inside a git work tree"), outside.err

    publish(g0_repo, state_dir, g0_graph())
    empty = cli("eval", "run", *where(g0_repo, state_dir), "--json")
    assert (empty.code, empty.out["status"], empty.out["cases"]) == (0, "empty", 0)  # usable graph, no case

    artifact = read_current(Workspace.locate(g0_repo, state_dir)).artifact_path
    with open(artifact, "r+b") as handle:
        handle.truncate(os.path.getsize(artifact) // 2)
    damaged = cli("eval", "run", *where(g0_repo, state_dir), "--json")
    assert damaged.code == 1 and damaged.err.startswith("cm-graph: corrupt: "), damaged.err


def test_a_file_citation_at_line_1_still_matches_after_lines_are_inserted_above_everything(tmp_path: Path) -> None:
    from cm_graph.feedback.evalrun import _as_cited_now

    repo = make_repo(tmp_path / "repo", {"a.py": BODY})
    before = git(repo, "rev-parse", "HEAD").strip()
    write_files(repo, {"a.py": "# inserted\n" + BODY})
    after = commit_all(repo, "one line above everything")
    moved = map_citations(repo, before, after, ["a.py#L1", "a.py#L3"])
    assert moved == {"a.py#L1": "a.py#L2", "a.py#L3": "a.py#L4"}
    now = {"a.py#L1", "a.py#L4"}  # the file's own citation stays at line 1; the definition moved
    assert _as_cited_now(moved, now) == {"a.py#L1": "a.py#L1", "a.py#L3": "a.py#L4"}
    assert _as_cited_now(moved, {"a.py#L2", "a.py#L4"}) == moved


@pytest.mark.parametrize("forged", ["--output={target}", "--ext-diff", "HEAD~1", "-"])
def test_a_commit_that_is_not_an_object_name_reaches_no_git_command(tmp_path: Path, forged: str) -> None:
    """Whatever holds a case's commit, only a full object name is given to ``git diff``: an
    option (``--output=FILE`` would write FILE) or a revision expression maps nothing."""
    repo = make_repo(tmp_path / "repo", {"a.py": BODY})
    write_files(repo, {"a.py": "# inserted\n" + BODY})
    after = commit_all(repo, "shift a.py")
    target = tmp_path / "written-by-git"
    for old, new in ((forged.format(target=target), after), (after, forged.format(target=target))):
        assert map_citations(repo, old, new, ["a.py#L1"]) == {"a.py#L1": "a.py#L1"}
    assert not target.exists()
