"""The commands' one error boundary and the plain output every command needs, without typer or
rich: JSON on stdout (``dumps_pretty``: no control character raw); a refusal becomes a reason code
and one ``printable`` sentence on stderr (plus a JSON object on stdout with ``--json``) and exit
code ``EXIT_CODES["refused"]`` (1); a damaged index (``apsw.Error``) and an operating system
error become their refusals (``base/refusals.py``), never a traceback.

Kept apart from ``render`` so that ``--json`` runs and refusals never pay for importing rich.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import apsw

from ..base.errors import EXIT_CODES, INDEX_DAMAGED, Refusal
from ..base.jsonio import dumps_pretty
from ..base.printable import printable
from ..base.refusals import refusal_for_os_error, refusal_for_sqlite_error

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

INTERRUPTED = "The command was stopped before it finished."  # Ctrl-C, exit 130
REFUSED = EXIT_CODES["refused"]
INTERRUPTED_EXIT = EXIT_CODES["interrupted"]


def print_json(value: Any) -> None:
    sys.stdout.write(dumps_pretty(value) + "\n")
    sys.stdout.flush()


def print_refusal(reason: str, message: str) -> None:
    """``cm-graph: <reason>: <sentence>`` on stderr (bold red on a terminal), the sentence
    ``printable`` (it may quote a target, a name or an argument as typed)."""
    reason, message = printable(reason), printable(message)
    line = f"cm-graph: {reason}: {message}"
    if sys.stderr.isatty():
        line = f"\033[1;31mcm-graph: {reason}\033[0m: {message}"
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def report_refusal(refusal: Refusal, json_output: bool) -> int:
    if json_output:
        print_json({"status": "refused", "reason": refusal.reason, "detail": refusal.message})
    print_refusal(refusal.reason, refusal.message)
    return REFUSED


def run_refusing(body: Callable[[], int | None], json_output: bool) -> int:
    """The exit code ``body()`` returns (None counts as 0), or ``REFUSED`` once the refusal it
    raised has been reported."""
    try:
        return body() or 0
    except BrokenPipeError:
        raise  # the reader went away: the entry point ends quietly, there is no one to tell
    except (apsw.FullError, apsw.ReadOnlyError, apsw.CantOpenError) as error:
        return report_refusal(refusal_for_sqlite_error(error), json_output)
    except apsw.Error:
        damaged = Refusal(INDEX_DAMAGED, reason="unreadable")
        return report_refusal(damaged, json_output)
    except Refusal as refusal:
        return report_refusal(refusal, json_output)
    except OSError as error:
        return report_refusal(refusal_for_os_error(error), json_output)
