"""Fit an answer into a character budget by dropping whole items, and count what was dropped.

The answer is rebuilt after every cut (citations and prose follow what is shown), so the
budget bounds the bytes an agent actually receives. The item dropped is the last shown item of
the section showing the most (a tie goes to the later section), so the cut is deterministic
and spreads over sections instead of emptying the first one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidInput
from .shape import dumps

MIN_CHARS, DEFAULT_CHARS, MAX_CHARS = 4000, 8000, 1_000_000


def check_max_chars(value: Any) -> int:
    if value is None:
        return DEFAULT_CHARS
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_CHARS <= value <= MAX_CHARS:
        raise InvalidInput(f"The character budget must be an integer from {MIN_CHARS} to {MAX_CHARS}.")
    return value


def fit(
    shown: dict[str, int], max_chars: int, build: Callable[[dict[str, int], dict[str, int]], dict[str, Any]]
) -> dict[str, Any]:
    """``build(shown, dropped)`` renders the answer; cut until its JSON fits ``max_chars``."""
    dropped = dict.fromkeys(shown, 0)
    order = list(shown)
    while True:
        document = build(shown, dropped)
        size = len(dumps(document))
        if size <= max_chars:
            return document
        candidates = [name for name in order if shown[name] > 0]
        if not candidates:
            raise InvalidInput(
                f"The answer's fixed part alone needs {size} characters; raise --max-chars.",
                reason="budget_too_small",
            )
        victim = max(reversed(candidates), key=lambda name: shown[name])
        shown[victim] -= 1
        dropped[victim] += 1
