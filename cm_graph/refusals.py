"""The commands' one error boundary, without typer: a refusal becomes a reason code and one
sentence on stderr (plus a JSON object on stdout with ``--json``) and exit code 1.

A damaged index surfaces from SQLite as ``apsw.Error`` anywhere a command reads it; it is reported
as the ``unreadable`` refusal with the one remedy that works, never as a traceback.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw

from .errors import Refusal
from .output import print_json, print_refusal

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

REFUSED = 1


def report_refusal(refusal: Refusal, json_output: bool) -> int:
    if json_output:
        print_json({"status": "refused", "reason": refusal.reason, "detail": refusal.message})
    print_refusal(refusal.reason, refusal.message)
    return REFUSED


def run_refusing(body: Callable[[], T], json_output: bool) -> T | int:
    """``body()``'s result, or ``REFUSED`` once the refusal it raised has been reported."""
    try:
        return body()
    except apsw.Error:
        damaged = Refusal("An index file is damaged; run `cm-graph index --rebuild`.", reason="unreadable")
        return report_refusal(damaged, json_output)
    except Refusal as refusal:
        return report_refusal(refusal, json_output)
