"""The commands' one error boundary, without typer: a refusal becomes a reason code and one
sentence on stderr (plus a JSON object on stdout with ``--json``) and exit code 1; a damaged index
(``apsw.Error``) and an operating system error become their refusals (``base/refusals.py``), never
a traceback.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw

from ..base.errors import Refusal
from ..base.refusals import refusal_for_os_error, refusal_for_sqlite_error
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
    except BrokenPipeError:
        raise  # the reader went away: the entry point ends quietly, there is no one to tell
    except (apsw.FullError, apsw.ReadOnlyError, apsw.CantOpenError) as error:
        return report_refusal(refusal_for_sqlite_error(error), json_output)
    except apsw.Error:
        damaged = Refusal("An index file is damaged; run `cm-graph index --rebuild`.", reason="unreadable")
        return report_refusal(damaged, json_output)
    except Refusal as refusal:
        return report_refusal(refusal, json_output)
    except OSError as error:
        return report_refusal(refusal_for_os_error(error), json_output)
