"""Running ``cm-graph`` in process (typer's ``CliRunner``), as most command tests do, and the list of its commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from cm_graph.cli.app import app

RUNNER = CliRunner()
WIDE = {"COLUMNS": "200"}  # rich tables unwrapped, so a test can read a row as one line


def command_paths(group: Any, prefix: str = "") -> list[str]:
    """Every command as typed after `cm-graph` (typer's groups carry their own click); called
    with ``typer.main.get_command(app)``, the commands of the command table and their groups."""
    paths = []
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            paths += command_paths(command, f"{prefix}{name} ")
        else:
            paths.append(f"{prefix}{name}")
    return paths


def where(repo: Path, state: Path) -> list[str]:
    """The options that point a command at a checkout and a state root."""
    return ["--repo-path", str(repo), "--state-dir", str(state)]


def invoke(*args: Any, env: dict[str, str] | None = None) -> Result:
    """Invoke the app; a traceback (an exception other than an exit) fails the test."""
    result = RUNNER.invoke(app, [str(arg) for arg in args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"cm-graph raised instead of refusing: {result.exception!r}") from result.exception
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    return result


def assert_one_line_refusal(result: Result, reason: str, words: str) -> None:
    """Exit 1, nothing on stdout, and one ``cm-graph: <reason>: …`` line containing ``words``."""
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"cm-graph: {reason}: "), lines[0]
    assert words in lines[0], lines[0]
