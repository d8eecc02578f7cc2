"""Plain output that every command needs, without loading rich: JSON on stdout, refusals on stderr.

Kept apart from ``render`` so that ``--json`` runs and refusals never pay for importing the table
renderer.
"""

from __future__ import annotations

import sys

from ..base.jsonio import dumps_pretty

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any



def print_json(value: Any) -> None:
    sys.stdout.write(dumps_pretty(value) + "\n")
    sys.stdout.flush()


def print_refusal(reason: str, message: str) -> None:
    """``cm-graph: <reason>: <sentence>`` on stderr (bold red on a terminal)."""
    line = f"cm-graph: {reason}: {message}"
    if sys.stderr.isatty():
        line = f"\033[1;31mcm-graph: {reason}\033[0m: {message}"
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
