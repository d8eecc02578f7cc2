"""The second adversarial sweep (issue 25, "Must show"): tried / held / broke per category.

Where ``adversarial.py`` (issue 12) damages graphs, kills builds and fills the disk, this one
tries what issue 25 names, as a hostile user would, with attacks the fixes' own tests do not
make: the fleet and its evidence rule (``sweep_fleet``), the outcome store (``sweep_feedback``),
MCP and REST and the bearer token (``sweep_surfaces``), change-coupling history
(``sweep_history``), what the terminal is sent (``sweep_terminal``), programs a repository
configures (``sweep_git``) and readers during a ``remove`` + ``build`` loop (``removerace``, with
MCP, ``context`` and ``fleet usages`` readers). Each category says what *holds* for it; anything
else broke, with the first few ways it broke. Everything is real: git repositories, SQLite
files, ``cm-graph`` processes and servers; nothing is mocked.

Run in CI at a small size by ``tests/cli/test_adversarial_issue25.py``; by hand, larger::

    python -m tests.support.adversarial2 --seed 25 --count 40 --loops 30
    python -m tests.support.adversarial2 --only terminal_output --count 400
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .adversarial import Tally, report


@dataclass(frozen=True)
class Sizes:
    """How many random trials each category adds to its fixed attacks (``count``), and how many
    removals and rebuilds the concurrency category races its readers against (``loops``)."""

    count: int = 6
    loops: int = 4


# Each category: the module and function that sweep it, called with (base, count or loops, rng, tally).
CATEGORIES: dict[str, tuple[str, str, str]] = {
    "fleet": ("sweep_fleet", "sweep", "count"),
    "feedback_store": ("sweep_feedback", "sweep", "count"),
    "mcp_rest": ("sweep_surfaces", "sweep_mcp_rest", "count"),
    "token": ("sweep_surfaces", "sweep_token", "count"),
    "history": ("sweep_history", "sweep", "count"),
    "terminal_output": ("sweep_terminal", "sweep", "count"),
    "repo_programs": ("sweep_git", "sweep", "count"),
    "concurrency": ("removerace", "sweep", "loops"),
}


def run_sweep(base: Path, sizes: Sizes, seed: int, only: tuple[str, ...] = ()) -> dict[str, Tally]:
    """Every category (or those in ``only``) in its own directory under ``base``."""
    tallies = {}
    for name in CATEGORIES:
        if only and name not in only:
            continue
        tally = tallies[name] = Tally()
        directory = base / name
        directory.mkdir()
        module, function, size = CATEGORIES[name]
        sweep = getattr(importlib.import_module(f"{__package__}.{module}"), function)
        sweep(directory, getattr(sizes, size), random.Random(f"{seed}:{name}"), tally)
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--count", type=int, default=Sizes.count, help="random trials per category")
    parser.add_argument("--loops", type=int, default=Sizes.loops, help="remove + build loops")
    parser.add_argument("--only", action="append", choices=list(CATEGORIES), default=[])
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cm-graph-adversarial2-") as base:
        tallies = run_sweep(Path(base), Sizes(args.count, args.loops), args.seed, tuple(args.only))
    print(f"seed {args.seed}, count {args.count}, loops {args.loops}")
    print(report(tallies))
    print(f"{time.monotonic() - started:.1f} s")
    return 1 if any(tally.broke for tally in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
