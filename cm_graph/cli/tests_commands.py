"""``cm-graph tests record``: run the project's own pytest once, contained, and keep what each test executed.

Registered from the command table (``command_table.py``), which gives the group its name and help.
The project's code runs only here, only because the user asked (``context/observed_record.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..generation.layout import Workspace
from .command_kit import Json, RepoPath, StateDir, refusals_exit, show_mapping

tests_app = typer.Typer(help="Observed test evidence: record what the project's own suite executes.",
                        no_args_is_help=True)

_Python = Annotated[Path | None, typer.Option("--python", help="The interpreter that runs the suite (the "
                                                               "project's venv python; default: the one running "
                                                               "cm-graph). It must import pytest.")]
_Timeout = Annotated[float, typer.Option("--timeout", help="Seconds the suite may run before it is stopped and "
                                                           "nothing is recorded (default 1800).")]
_Args = Annotated[list[str] | None, typer.Argument(help="Arguments for pytest, after `--` (default: none, "
                                                        "the project's own configuration).")]


@tests_app.command("record")
@refusals_exit
def tests_record_command(
    pytest_args: _Args = None,
    python: _Python = None,
    timeout: _Timeout = 1800.0,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Run the project's pytest once in a contained scratch copy of the bound commit (no network) and
    store the test -> definition map of the generation (used as `observed` by `context tests` and
    `changes`)."""
    from ..context.observed_record import record_tests

    summary = record_tests(Workspace.locate(repo_path, state_dir), python=python, args=tuple(pytest_args or ()),
                           timeout=timeout)
    show_mapping("Observed test map recorded", summary, json_output)
