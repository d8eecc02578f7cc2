"""Trial findings 5, 11 and 13 on the command line: piped tables never fold a citation, a bad
state directory is named by ``status``, usage errors are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from cm_graph.context.wire import cited as cited_of
from cm_graph.context.wire import section_items

from ..generation.test_lifecycle import cli, where
from ..support.helpers import make_repo, run_installed

USAGE_ERRORS = [
    (["ask", "impact"], "cm-graph: usage: Missing argument 'TARGET...'. (see cm-graph ask --help)"),
    (["context", "bogus", "x"], "cm-graph: usage: No such command 'bogus'. (see cm-graph context --help)"),
    (["feedback", "record", "--answer-id", "a", "--target", "t", "--reads-avoided", "1", "--files-read", "0",
      "--correct"], "cm-graph: usage: Invalid value: give exactly one of --intent (code_context) or --question "
                    "(ask). (see cm-graph feedback record --help)"),
    (["status", "--bogus"], "cm-graph: usage: No such option: --bogus (see cm-graph status --help)"),
]


@pytest.mark.parametrize(("args", "line"), USAGE_ERRORS, ids=[" ".join(a[:2]) for a, _ in USAGE_ERRORS])
def test_a_usage_error_is_one_line_with_exit_2(args: list[str], line: str) -> None:
    ran = cli(*args)
    assert (ran.code, ran.out, ran.err) == (2, "", line + "\n")


def test_the_installed_script_prints_usage_in_one_line_and_help_in_full(tmp_path: Path) -> None:
    usage = run_installed("query", "--question", "blast", "--target", "x", cwd=tmp_path)
    assert (usage.returncode, usage.stdout) == (2, "")
    assert usage.stderr.splitlines() == [
        "cm-graph: usage: Invalid value for '--question': 'blast' is not one of 'impact', 'dependency', "
        "'symbol', 'related_tests'. (see cm-graph query --help)"
    ]
    bare = run_installed(cwd=tmp_path)  # a group without a command: its help, exit 2 as before
    assert bare.returncode == 2 and "Usage: cm-graph [OPTIONS] COMMAND" in bare.stdout and "eval" in bare.stdout
    group = run_installed("context", cwd=tmp_path)
    assert group.returncode == 2 and "Usage: cm-graph context [OPTIONS] COMMAND" in group.stdout
    helped = run_installed("context", "how", "--help", cwd=tmp_path)
    assert (helped.returncode, helped.stderr) == (0, "") and "Usage: cm-graph context how" in helped.stdout


OWNER_ONLY = "Private state is not an owner-only directory."


@pytest.mark.parametrize("shape", ["0755", "a file", "graph/ 0755"])
def test_a_state_directory_that_is_not_owner_only_is_named_not_called_absent(tmp_path: Path, shape: str) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    state = tmp_path / "state"
    if shape == "a file":
        state.write_text("not a directory\n")
    else:
        state.mkdir(mode=0o700)
        (state / "graph").mkdir(mode=0o700)
        (state if shape == "0755" else state / "graph").chmod(0o755)
    # A directory the user made (theirs, 0755) is named with the command that fixes it (issue 32
    # item 1); a file where the directory belongs keeps the plain sentence (chmod would not fix it).
    sentence = OWNER_ONLY if shape == "a file" else not_owner_only(state if shape == "0755" else state / "graph")
    status = cli("status", *where(repo, state), "--json")
    assert status.code == 1 and (status.out["state"], status.out["detail"]) == ("invalid", sentence), status.out
    assert "chmod 700" in status.out["next_action"] and "build" in status.out["next_action"]
    for asked in (("context", "how", "f"), ("ask", "impact", "f")):
        ran = cli(*asked, *where(repo, state))
        assert ran.code == 1 and ran.err.startswith(f"cm-graph: invalid: {sentence}"), (asked, ran.err)
    assert shape == "a file" or state.stat().st_mode & 0o777 == (0o755 if shape == "0755" else 0o700), "never chmod-ed"


def not_owner_only(directory: Path) -> str:
    return (f"The private state directory {directory} is mode 0755, not owner-only; run `chmod 700 {directory}`, "
            "or point CM_GRAPH_HOME or --state-dir at another directory.")


@pytest.mark.provider
def test_refresh_refuses_a_state_directory_that_is_not_owner_only_with_the_same_sentence(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    state.chmod(0o755)
    ran = cli("refresh", "--sandbox", "off", *where(repo, state))
    assert (ran.code, ran.err) == (1, f"cm-graph: invalid: {not_owner_only(state)}\n")
    assert state.stat().st_mode & 0o777 == 0o755 and list(state.iterdir()) == [], "nothing chmod-ed, nothing made"
    state.chmod(0o700)  # the command the sentence names is the whole fix
    assert cli("refresh", "--sandbox", "off", *where(repo, state)).code == 0


LONG_MODULE = "src/a_package_with_a_rather_long_name/and_a_module_whose_name_is_long_too.py"


@pytest.mark.provider
def test_piped_tables_never_fold_a_citation(tmp_path: Path) -> None:
    callers = "".join(f"\n\ndef caller_number_{n}_of_the_long_function():\n    return "
                      f"a_function_with_a_rather_long_name({n})\n" for n in range(12))
    repo = make_repo(tmp_path / "repo", {
        "src/a_package_with_a_rather_long_name/__init__.py": "",
        LONG_MODULE: "def a_function_with_a_rather_long_name(x):\n    return x\n" + callers,
    })
    state = tmp_path / "state"
    assert cli("build", "--sandbox", "off", *where(repo, state)).code == 0
    # a budget that shows several of the long rows (the point is how a piped table draws them)
    asked = ("context", "usage", "a_function_with_a_rather_long_name", "--max-chars", "20000", *where(repo, state))
    answer = cli(*asked, "--json").out
    callers = section_items(answer["sections"]["callers"], cited_of(answer))
    rows = [f"{item['site']['path']}#L{item['site']['line']}" for item in callers]
    assert len(rows) >= 3 and all(len(row) >= 78 for row in rows)  # a 4-column row is wider than 80
    piped = run_installed(*asked, cwd=tmp_path)  # stdout is a pipe: rich would give it 80 columns
    assert piped.returncode == 0, piped.stderr
    assert [row for row in rows if row not in piped.stdout] == [], piped.stdout  # each whole on its line


def test_ctrl_c_in_any_command_is_one_line_and_exit_130() -> None:
    """typer turns a KeyboardInterrupt escaping a command into a silent exit 130; the root group
    says it in the one-line shape first (build and refresh say more themselves)."""
    import subprocess
    import sys

    probe = (
        "import typer\n"
        "from cm_graph.cli.usage import OneLineUsageGroup\n"
        "app = typer.Typer(cls=OneLineUsageGroup)\n"
        "@app.command('stop')\n"
        "def stop() -> None:\n"
        "    raise KeyboardInterrupt\n"
        "@app.command('other')\n"
        "def other() -> None:\n"
        "    pass\n"
        "app()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, "stop"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr == "cm-graph: interrupted: The command was stopped before it finished.\n"
