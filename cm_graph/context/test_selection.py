"""Which of the tests to run to hand to pytest: the nearest, within a share of the suite.

The ranked tests to run (``testrun``) can reach a third of a suite through one hub (a base class
every schema inherits, an entry point every test calls). An agent runs what ``--format
pytest-args`` prints, and the issue's target is a selection of at most 25 % of the suite: so the
printed list is the longest prefix of the ranked list whose tests stay within ``max_share`` of the
tests the index knows (or within ``FLOOR_TESTS`` tests, if that is more: a small suite is cheap to
run), never less than the nearest one. What is left out is counted, and the flag
that prints it named; the JSON answer keeps every item. Measured on three real suites
(docs/benchmarks.md, "Fault detection on real test suites"): the first failing test of a fault is
almost always among the nearest, so the bound costs little detection and keeps the share.

The suite is counted from the index, not by running pytest: the node ids ``testrun`` gives the
``test*`` functions and the ``test*`` methods of ``Test*`` classes of the files pytest collects by
default (a class nested in a class is not counted). Parametrised cases count once, inherited
test methods not at all; an item that stands for no known test (a test file of no ``test*``
definition) counts as one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .budget import FLOOR_TESTS
from .testrun import collected_file


class KnownTests:
    """The suite's node ids, by file, to count what a pytest argument (an id, a class, a file, a
    directory) runs of it."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.by_file: dict[str, list[str]] = {}
        for test_id in sorted(set(ids)):
            self.by_file.setdefault(test_id.split("::", 1)[0], []).append(test_id)
        self.total = sum(len(ids) for ids in self.by_file.values())

    def runs(self, argument: str) -> list[str]:
        """The known node ids pytest runs for ``argument`` (itself, its cases, a class's or a file's
        tests, a directory's)."""
        argument = argument.rstrip("/")
        file, sep, _ = argument.partition("::")
        if not sep:
            if argument in self.by_file:
                return self.by_file[argument]
            return [test_id for path, ids in self.by_file.items() if path.startswith(argument + "/") for test_id in ids]
        return [test_id for test_id in self.by_file.get(file, ())
                if test_id == argument or test_id.startswith((argument + "::", argument + "["))]

    def covered(self, arguments: Iterable[str]) -> set[str]:
        """The tests ``arguments`` run: known ids, and an argument that stands for none as itself."""
        run: set[str] = set()
        for argument in arguments:
            run.update(self.runs(argument) or (argument,))
        return run


@dataclass(frozen=True)
class Selection:
    """The first ``items`` of the ranked arguments, running ``tests`` of the ``known`` tests; all of
    them would run ``all_tests``."""

    max_share: float
    known: int
    bound: int
    items: int
    tests: int
    all_items: int
    all_tests: int

    def header(self) -> dict[str, Any]:
        return {"max_share": self.max_share, "known_tests": self.known, "bound_tests": self.bound,
                "items": self.items, "tests": self.tests,
                "more_items": self.all_items - self.items, "more_tests": self.all_tests - self.tests}


def left_out(header: dict[str, Any]) -> str | None:
    """What a selection (its ``header``) left out, and the flag that prints it (None: nothing)."""
    if not header["more_items"]:
        return None
    return (f"{header['more_tests']} more test(s) reach the change past the first {header['bound_tests']} "
            f"({header['max_share']:.0%} of the {header['known_tests']} tests the index knows, at least "
            f"{FLOOR_TESTS}); --max-share 1 prints them all.")


def within_share(suite: KnownTests, arguments: Sequence[str], max_share: float, floor: int = FLOOR_TESTS) -> Selection:
    """The longest prefix of ``arguments`` (ranked, nearest first) whose tests are at most
    ``max_share`` of ``suite`` or ``floor`` tests, the first one always; every argument when the
    index knows no test."""
    bound = max(math.floor(max_share * suite.total), floor)
    run: set[str] = set()
    taken = 0
    for argument in arguments:
        added = suite.covered((argument,)) - run
        if suite.total and taken and len(run) + len(added) > bound:
            break
        run |= added
        taken += 1
    every = run | suite.covered(arguments[taken:])
    return Selection(max_share, suite.total, bound, taken, len(run), len(arguments), len(every))


def known_tests(connection: apsw.Connection) -> KnownTests:
    """The node ids of the tests the index's definitions name, in the files pytest collects by
    default (``testrun``'s naming, counted in one pass rather than per definition)."""
    return KnownTests("::".join(part for part in (path, owner, name) if part)
                      for path, owner, name in fetch_rows(connection.execute(query_sql("test_definitions")),
                                                          tuple[str, str, str])
                      if collected_file(path))


def check_share(value: float) -> float:
    """``--max-share``: a share of the suite, more than 0 and at most 1."""
    from ..base.errors import InvalidInput

    if not (math.isfinite(value) and 0 < value <= 1):
        raise InvalidInput("--max-share takes a share of the suite above 0 and at most 1 (0.25 is a quarter).")
    return value
