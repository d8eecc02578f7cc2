"""`cm-graph symbols PATH` (a file's definitions from the index) and the guided route without
hand-written JSON: `session init` writes the session file, `session prepare --query TEXT`."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.connections.session import parse_session

from ..evidence.test_ask_view import where  # noqa: F401 - the fixture: a graph with methods and classes

RUNNER = CliRunner()


def test_symbols_lists_a_files_definitions_by_line(where: list[str]) -> None:  # noqa: F811
    result = RUNNER.invoke(app, ["symbols", "pkg/other.py", "--json", *where])
    assert result.exit_code == 0, result.stderr
    listed = json.loads(result.stdout)["symbols"]
    assert [(s["label"], s["kind"], s["line"]) for s in listed] == [
        ("Command", "symbol", 2), (".invoke()", "symbol", 5), ("main()", "symbol", 30),
        ("run()", "symbol", 48), ("run()", "symbol", 49),
    ]
    for columns in ("80", "200"):
        table = RUNNER.invoke(app, ["symbols", "pkg/other.py", *where], env={"COLUMNS": columns})
        assert "pkg/other.py: 5 definitions" in table.stdout and "main()" in table.stdout


def test_symbols_of_a_bare_file_name_suggests_the_path(where: list[str]) -> None:  # noqa: F811
    result = RUNNER.invoke(app, ["symbols", "other.py", *where])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("cm-graph: unresolved: ") and "Did you mean: pkg/other.py?" in result.stderr


def test_symbols_takes_a_path_as_a_shell_user_types_it(where: list[str], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    repo = Path(where[where.index("--repo-path") + 1])
    spellings = ["./pkg/other.py", "pkg//other.py", str(repo / "pkg" / "other.py")]
    for spelling in spellings:
        result = RUNNER.invoke(app, ["symbols", spelling, "--json", *where])
        assert result.exit_code == 0, (spelling, result.stderr)
        assert json.loads(result.stdout)["path"] == "pkg/other.py"
    monkeypatch.chdir(repo / "pkg")
    inside = RUNNER.invoke(app, ["symbols", "other.py", "--json", *where])
    assert inside.exit_code == 0 and json.loads(inside.stdout)["path"] == "pkg/other.py", inside.stderr


def test_symbols_of_a_blank_path_is_refused_not_the_pathless_stubs(where: list[str]) -> None:  # noqa: F811
    for blank in ("", "/", "   "):
        result = RUNNER.invoke(app, ["symbols", blank, *where])
        assert result.exit_code == 1 and result.stdout == "", (blank, result.stdout)
        assert result.stderr.startswith("cm-graph: invalid: "), result.stderr


def test_session_init_writes_a_private_file_prepare_reads(tmp_path: Path) -> None:
    out = tmp_path / "work.session.json"
    made = RUNNER.invoke(app, [
        "session", "init", str(out), "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", "--work-item", "issue-6", "--directory", str(tmp_path),
        "--optional",
    ])
    assert made.exit_code == 0, made.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    session = parse_session(out.read_bytes())
    assert (session["work_item"], session["directory"], session["policy"]["required"]) == (
        "issue-6", str(tmp_path), False,
    )
    bad = RUNNER.invoke(app, [
        "session", "init", str(tmp_path / "bad.json"), "--connection", "local-graph",
        "--repository", "owner/repo", "--recipient", "cursor:builder", "--work-item", "w",
    ])
    assert bad.exit_code == 1 and not (tmp_path / "bad.json").exists()

    prepared = RUNNER.invoke(app, [
        "session", "prepare", str(out), "--query", "parse_config", "--json",
        "--state-dir", str(tmp_path / "state"),
    ])
    assert prepared.exit_code == 0, prepared.stderr
    assert json.loads(prepared.stdout)["status"] == "not_configured"  # read the target, went on
    both = RUNNER.invoke(app, ["session", "prepare", str(out), "--query", "x", "--query-stdin"], input="y\n")
    assert both.exit_code == 1 and "Give the target once" in both.stderr
