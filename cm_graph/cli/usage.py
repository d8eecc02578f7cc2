"""Usage errors as one line: ``cm-graph: usage: <message> (see cm-graph <command> --help)``.

click (through typer) reports a usage error as a usage block and a rich box of six lines or more;
every other failure of ours is one line ``cm-graph: <reason>: <sentence>``, and an agent reading
stderr should not need two parsers. ``OneLineUsageGroup`` is the application's root group, so the
one place a command line is parsed — the console script and ``CliRunner`` alike call its
``main`` — reports usage the same way. Help (``--help``, a group called with no command) still
prints in full; the exit codes stay click's (2 for usage).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from typer import Abort, Exit
from typer._click import exceptions as click  # typer >= 0.24 vendors click; these are its classes
from typer.core import TyperGroup

from ..base.printable import printable
from .boundary import INTERRUPTED, INTERRUPTED_EXIT, print_refusal


def usage_line(error: click.UsageError) -> str:
    """The message in one line, and where the command's help is."""
    message = " ".join(error.format_message().split())
    command = error.ctx.command_path if error.ctx is not None else "cm-graph"
    return f"{message} (see {command} --help)"

class OneLineUsageGroup(TyperGroup):
    """The root group: parse and run in click's non-standalone mode, then say what click would
    have said, in our one-line shape."""

    def invoke(self, ctx: Any) -> Any:
        # typer turns a KeyboardInterrupt escaping a command into a silent exit 130; say it in
        # our one line first (build and refresh catch it themselves to say what was kept).
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            print_refusal(reason="interrupted", message=INTERRUPTED)
            raise Exit(INTERRUPTED_EXIT) from None

    def main(  # type: ignore[override]
        self, args: Sequence[str] | None = None, prog_name: str | None = None,
        complete_var: str | None = None, standalone_mode: bool = True, **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.NoArgsIsHelpError:
            sys.exit(2)  # the help is already printed: a group called without a command
        except click.UsageError as error:
            print_refusal(reason="usage", message=usage_line(error))
            sys.exit(error.exit_code)
        except click.ClickException as error:
            # click's own ``show`` would print the message (which may quote an argument) raw.
            sys.stderr.write(f"Error: {printable(error.format_message())}\n")
            sys.exit(error.exit_code)
        except Abort:
            sys.stderr.write("Aborted!\n")
            sys.exit(1)
        # A returned exit code (typer.Exit) or a command's own return value (None: success).
        sys.exit(result if isinstance(result, int) else 0)
