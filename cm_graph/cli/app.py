"""The ``cm-graph`` typer application: the command table's commands, assembled from their groups.

Each command lives in a command-group module under ``cli/`` (``graph_commands``,
``question_commands``, ``audit_commands``, ``connection_commands``, ``context_commands``); the
command table (``command_table.py``, typer-free, also read by the fast entry) says which function
or sub-application each command is and gives its help, so this module only assembles. One error
boundary: every expected refusal becomes a reason code and one sentence on stderr (and a JSON
object on stdout with ``--json``) with exit code 1. Usage errors are one line too
(``usage.py``) and exit 2. Bugs still raise.
"""

from __future__ import annotations

import importlib
import sys

import typer

from .boundary import INTERRUPTED, INTERRUPTED_EXIT, print_refusal
from .command_table import COMMANDS, SUMMARY
from .usage import OneLineUsageGroup

app = typer.Typer(
    cls=OneLineUsageGroup,
    name="cm-graph",
    help=SUMMARY,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _command in COMMANDS:
    _target = getattr(importlib.import_module(f"{__package__}.{_command.module}"), _command.attribute)
    if isinstance(_target, typer.Typer):
        app.add_typer(_target, name=_command.name, help=_command.summary)
    else:
        app.command(_command.name, help=_command.summary)(_target)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print_refusal(reason="interrupted", message=INTERRUPTED)
        sys.exit(INTERRUPTED_EXIT)
