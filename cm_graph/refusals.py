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

REFUSED = 1


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
    except apsw.Error:
        damaged = Refusal("An index file is damaged; run `cm-graph index --rebuild`.", reason="unreadable")
        return report_refusal(damaged, json_output)
    except Refusal as refusal:
        return report_refusal(refusal, json_output)
