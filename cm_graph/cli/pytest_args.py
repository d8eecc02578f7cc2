"""``--format pytest-args``: the tests to run as pytest node ids, one a line, for ``pytest $(…)``.

An id made only of characters no shell treats specially (letters, digits, ``_ . / : - + = , @ %``)
is printed as it is; any other is quoted for a POSIX shell (``shlex.quote``). An id holding a
character no output may carry raw (``printable.UNPRINTABLE``: a control, a bidi override) is not
printed at all: its visible spelling would name another test, so stderr names it, escaped, and
says it was left out. With nothing to run, nothing is printed and stderr says so; the exit is 0
either way (an empty selection is an answer, not a failure).
"""

from __future__ import annotations

import re
import shlex
import sys
from typing import Any

from ..base.printable import UNPRINTABLE, printable

FORMATS = ("text", "json", "pytest-args")
_PLAIN = re.compile(r"[A-Za-z0-9_./:+=,@%-]+")


def check_format(value: str | None, json_output: bool) -> str:
    """The output format named by ``--format`` (default text; ``--json`` is ``json``)."""
    from ..base.errors import InvalidInput

    if value is None:
        return "json" if json_output else "text"
    if value not in FORMATS:
        raise InvalidInput(f"--format takes one of {', '.join(FORMATS)}.")
    if json_output and value != "json":
        raise InvalidInput("Name one format: --json or --format.")
    return value


def check_share_with(shape: str, value: float | None) -> float:
    """``--max-share``'s share (default ``DEFAULT_SHARE``), refused with any format but pytest-args."""
    from ..base.errors import InvalidInput
    from ..context.budget import DEFAULT_SHARE
    from ..context.test_selection import check_share

    if value is None:
        return DEFAULT_SHARE
    if shape != "pytest-args":
        raise InvalidInput("--max-share bounds the tests --format pytest-args prints; the answer lists them all.")
    return check_share(value)


def shell_word(test_id: str) -> str | None:
    """``test_id`` as one shell word (None: it holds an unprintable character)."""
    if UNPRINTABLE.search(test_id):
        return None
    return test_id if _PLAIN.fullmatch(test_id) and not test_id.startswith("-") else shlex.quote(test_id)


def write_pytest_args(items: list[dict[str, Any]], total: int, selection: dict[str, Any] | None = None) -> None:
    """Print the pytest ids among ``items`` (runner ``pytest``), one a line, as ``testrun.to_run``
    chooses them (a recorded run's observed tests replace a definition's static ones), the first
    ``selection["items"]`` of them (``test_selection``: within a share of the suite; None: all); say on stderr
    what is not printed (static tests a recorded run replaced, other runners' test files,
    unprintable ids, tests past the share, items past the item bound)."""
    from ..context.test_selection import left_out
    from ..context.testrun import to_run

    shown = len(items)
    items, replaced = to_run(items)
    if selection is not None:
        items = items[:selection["items"]]
    printed, other, unsafe = 0, [], []
    for item in items:
        if item.get("runner") != "pytest":
            other.append(item["id"])
            continue
        word = shell_word(item["id"])
        if word is None:
            unsafe.append(item["id"])
            continue
        sys.stdout.write(word + "\n")
        printed += 1
    if not printed:
        sys.stderr.write("cm-graph: no test to run was found (nothing printed).\n")
    for test_id in unsafe:
        sys.stderr.write(f"cm-graph: left out a test whose id holds a control character: {printable(test_id)}\n")
    if other:
        sys.stderr.write(f"cm-graph: {len(other)} test file(s) pytest does not run were not printed: "
                         + ", ".join(printable(test_id) for test_id in other) + "\n")
    if replaced:
        sys.stderr.write(f"cm-graph: {replaced} static test(s) not printed: the recorded run saw which tests "
                         "execute each changed definition (--json lists them all).\n")
    past_share = left_out(selection) if selection is not None else None
    if past_share:
        sys.stderr.write(f"cm-graph: {past_share}\n")
    if total > shown:
        sys.stderr.write(f"cm-graph: {total - shown} more test(s) than the item bound were not printed.\n")
