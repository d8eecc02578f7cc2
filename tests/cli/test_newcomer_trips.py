"""Issue 32: small things a new user trips on, each on the command line over a real git
repository and a real index (G0 published through the shared code; the real provider where a
build is the point)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.cli import WIDE, invoke, where
from ..support.g0 import g0_graph, node
from ..support.helpers import git, make_repo, publish


@pytest.fixture
def g0(g0_repo: Path, state_dir: Path) -> list[str]:
    publish(g0_repo, state_dir, g0_graph())
    return where(g0_repo, state_dir)


@pytest.mark.parametrize("spelled", ["./example_pkg/config.py", "example_pkg//config.py",
                                     "example_pkg/./config.py", "./example_pkg/config.py::parse_config"])
def test_a_path_spelled_as_a_shell_completes_it_resolves_as_written_plainly(g0: list[str], spelled: str) -> None:
    """Item 10: ``./pkg/mod.py`` (tab completion writes it) reads as ``pkg/mod.py`` in ``context``
    and ``ask`` as ``symbols`` reads it: one target grammar, ``query/targets.py``."""
    plain = spelled.replace("./", "").replace("//", "/").removeprefix("./")
    for command in (["context", "usage"], ["ask", "impact"]):
        expected = json.loads(invoke(*command, plain, *g0, "--json").stdout)
        ran = invoke(*command, spelled, *g0, "--json")
        assert ran.exit_code == 0, (command, ran.stderr)
        got = json.loads(ran.stdout)
        if command[0] == "context":
            assert got["anchors"] == expected["anchors"] and got["status"] == "answered", got["anchors"]
        else:
            assert [s["label"] for s in got["answers"][0]["seeds"]] == [
                s["label"] for s in expected["answers"][0]["seeds"]]


BIG = "pkg/big.py"


@pytest.fixture
def big_file(tmp_path: Path, state_dir: Path) -> list[str]:
    """A file of twelve definitions: more than the seed bound (8) keeps for a path target."""
    source = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(12))
    repo = make_repo(tmp_path / "repo", {BIG: source, "README.md": "read me\n"})
    nodes = [node("file", "big.py", BIG, "L1")] + [node(f"f{n}", f"f{n}()", BIG, f"L{1 + 3 * n}") for n in range(12)]
    publish(repo, state_dir, {"nodes": nodes, "edges": []})
    return where(repo, state_dir)


def test_ask_about_a_path_past_the_seed_bound_says_how_to_see_the_rest(big_file: list[str]) -> None:
    """Item 9: the cut names ``cm-graph symbols PATH`` (every definition of the file) and the
    ``PATH::name`` spelling that asks about one, instead of ``--in PATH``, which cannot narrow a
    path; the view prints that command whole, on its own line."""
    (data,) = json.loads(invoke("ask", "impact", BIG, *big_file, "--json").stdout)["answers"]
    [cut] = [cut for cut in data["bounds_hit"] if cut["bound"] == "seeds"]
    assert (cut["matched"], cut["remedy"]) == (13, f"cm-graph symbols {BIG}"), cut
    assert f"ask about one as {BIG}::NAME" in cut["text"] and "--in PATH" not in cut["text"], cut
    shown = invoke("ask", "impact", BIG, *big_file, env={"COLUMNS": "80"}).stdout.splitlines()
    assert f"  cm-graph symbols {BIG}" in shown, shown
    named = json.loads(invoke("ask", "impact", "f1", *big_file, "--json").stdout)["answers"][0]
    assert named["bounds_hit"] == [] or all("symbols" not in cut["text"] for cut in named["bounds_hit"])


def test_symbols_of_a_file_that_is_not_tracked_says_so(big_file: list[str]) -> None:
    """Item 9: a path the bound commit does not track is "no such tracked file"; a tracked file
    the graph holds no definition of keeps its own sentence."""
    missing = invoke("symbols", "pkg/bog.py", *big_file, env=WIDE)
    assert missing.exit_code == 1 and missing.stderr.startswith(
        "cm-graph: unresolved: No such tracked file at the graph's commit: pkg/bog.py."), missing.stderr
    readme = invoke("symbols", "README.md", *big_file)
    assert readme.exit_code == 1 and "The graph has no definition in that file." in readme.stderr, readme.stderr


GONE = ("a build or refresh keeps only the newest generation unless run with --keep-previous, so run the next one "
        "as `cm-graph refresh --keep-previous` to keep the one it replaces.")


@pytest.mark.provider
def test_diff_of_a_generation_a_plain_refresh_pruned_says_why_and_how_to_keep_the_next(tmp_path: Path) -> None:
    """Item 2: both forms of a side (a generation id, a revision) say why the old generation is
    gone and how to keep the next one; the id form said only "no such generation"."""
    repo = make_repo(tmp_path / "repo", {"pkg/a.py": "def f():\n    return 1\n"})
    places = where(repo, tmp_path / "state")
    old = json.loads(invoke("build", "--sandbox", "off", *places, "--json").stdout)["generation"]
    (repo / "pkg" / "b.py").write_text("def g():\n    return 2\n")
    git(repo, "add", "pkg/b.py")
    git(repo, "commit", "-q", "-m", "two")
    new = json.loads(invoke("refresh", "--sandbox", "off", *places, "--json").stdout)["generation"]
    for sides in ((old, new), ("HEAD~1", "HEAD")):
        diffed = invoke("diff", *sides, *places)
        assert diffed.exit_code == 1 and GONE in diffed.stderr, (sides, diffed.stderr)
        assert diffed.stderr.count("\n") == 1, diffed.stderr


def test_status_counts_changed_files_as_git_diff_stat_does(g0_repo: Path, state_dir: Path) -> None:
    """Item 6: every tracked path that differs from HEAD, staged or not, a rename as its two
    paths (the old one is gone, the new one is new: answers know neither), as ``git diff --stat
    --no-renames HEAD`` lists them; untracked files are not tracked. ``git status --porcelain``
    gave a staged rename one line."""
    publish(g0_repo, state_dir, g0_graph())
    git(g0_repo, "mv", "example_pkg/report.py", "example_pkg/summary.py")  # staged rename: two paths
    with (g0_repo / "example_pkg" / "config.py").open("a") as handle:  # unstaged edit
        handle.write("# edited\n")
    (g0_repo / "notes.txt").write_text("untracked\n")
    stat = git(g0_repo, "diff", "--stat", "--no-renames", "HEAD").splitlines()
    assert stat[-1].strip().startswith("3 files changed"), stat
    value = json.loads(invoke("status", *where(g0_repo, state_dir), "--json").stdout)
    assert value["cm_graph"]["changed_tracked_files"] == 3, value["cm_graph"]
    assert value["cm_graph"]["working_tree"].startswith("3 tracked files changed since the bound commit")


def test_status_and_doctor_print_the_command_to_run_whole_at_80_columns(g0_repo: Path, state_dir: Path) -> None:
    """Item 12: the command a stale graph's next action names is printed on its own line, whole,
    below the table (in a cell at 80 columns it is wrapped with the sentence around it)."""
    publish(g0_repo, state_dir, g0_graph())
    (g0_repo / "NEWS").write_text("moved on\n")
    git(g0_repo, "add", "NEWS")
    git(g0_repo, "commit", "-q", "-m", "after the build")
    narrow = {"COLUMNS": "80"}
    status = invoke("status", *where(g0_repo, state_dir), env=narrow)
    assert status.exit_code == 1 and status.stdout.splitlines()[-1] == "  cm-graph refresh", status.stdout
    doctor = invoke("doctor", *where(g0_repo, state_dir), env=narrow).stdout.splitlines()
    assert doctor[doctor.index("generation:") + 1] == "  cm-graph refresh", doctor
    checks = json.loads(invoke("doctor", *where(g0_repo, state_dir), "--json").stdout)["checks"]
    assert [c.get("command") for c in checks if c["check"] == "generation"] == ["cm-graph refresh"]
