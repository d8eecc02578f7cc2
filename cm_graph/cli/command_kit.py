"""What every command group shares: the refusal decorator, the common options, the state root.

The same flag means the same thing on every command, so each shared option is declared once
here; the ones ``query`` also takes read their help from the command table, which the fast entry
parses them by (``command_table.QUERY_OPTIONS``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from ..context.budget import DEFAULT_SHARE
from ..generation.layout import default_state_root
from .boundary import print_json, run_refusing
from .command_table import QUERY_OPTIONS


def table_option(flag: str) -> Any:
    """The typer option for ``flag`` with the help the command table gives it."""
    return typer.Option(flag, help=QUERY_OPTIONS[flag].help)


RepoPath = Annotated[Path | None, table_option("--repo-path")]
StateDir = Annotated[Path | None, table_option("--state-dir")]
Revision = Annotated[str | None, typer.Option("--revision", help="A revision the generation must be bound to.")]
AnswerRevision = Annotated[str, table_option("--revision")]
Json = Annotated[bool, table_option("--json")]
Depth = Annotated[int | None, table_option("--depth")]
Budget = Annotated[int | None, table_option("--node-budget")]
MaxShare = Annotated[float | None, typer.Option(
    "--max-share", help="With --format pytest-args: the nearest tests up to this share of the suite "
                        f"(default {DEFAULT_SHARE}; 1 prints every test).")]
Connection = Annotated[str, typer.Option("--connection", help="Connection name (lowercase identifier).")]

F = TypeVar("F", bound=Callable[..., Any])


def exit_refusing(body: Callable[[], Any], json_output: bool) -> None:
    """Run ``body``; a Refusal becomes reason + sentence on stderr (JSON on stdout with --json)
    and a non-zero exit."""
    code = run_refusing(body, json_output)
    if code:
        raise typer.Exit(code)


def exit_with(code: int) -> None:
    """End a typer command with ``code`` (a ``run_*`` body's exit code; 0 returns)."""
    if code:
        raise typer.Exit(code)


def refusals_exit(func: F) -> F:
    """Turn a Refusal into reason + sentence on stderr, JSON on stdout with --json, exit 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        exit_refusing(lambda: func(*args, **kwargs), bool(kwargs.get("json_output")))

    return wrapper  # type: ignore[return-value]


class QuestionName(StrEnum):
    impact = "impact"
    dependency = "dependency"
    symbol = "symbol"
    related_tests = "related_tests"


def show_mapping(title: str, value: dict[str, Any], json_output: bool) -> None:
    """One result on stdout: JSON with --json, else a titled table."""
    if json_output:
        print_json(value)
        return
    from .render import console, print_mapping

    print_mapping(console(), title, value)


def state_root(state_dir: Path | None) -> Path:
    """``--state-dir``, else the default root (commands that need no checkout)."""
    return Path(state_dir) if state_dir is not None else default_state_root()
