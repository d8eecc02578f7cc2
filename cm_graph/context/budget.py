"""The answer's bounds: at most ``max_items`` items a section (``--max-items``, default
``DEFAULT_ITEMS``), and a character budget that whole items are dropped to fit, counting what was
dropped. A cut section is paged (``paging.py``): nothing is cut that no call returns.

The answer is rebuilt for every cut tried (citations and prose follow what is shown), so the
budget bounds the bytes an agent actually receives. Items go in a fixed order, the last shown
item of the section showing the most first (a tie goes to the later section), so the cut is
deterministic and spreads over sections instead of emptying the first one; the number of items
dropped is the smallest that fits, found by bisection (a handful of builds, not one per item).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base.errors import InvalidInput
from ..base.jsonio import dumps_wire

MIN_CHARS, DEFAULT_CHARS, MAX_CHARS = 5000, 8000, 1_000_000
# Items a section shows at most, before the character budget drops any: the default carries
# every caller of a target with up to 50 of them; ``--max-items`` takes up to MAX_ITEMS.
MIN_ITEMS, DEFAULT_ITEMS, MAX_ITEMS = 1, 50, 500
FLOOR = 3  # items each other section keeps, while the budget allows, before they all give way to the first


def check_max_chars(value: Any) -> int:
    if value is None:
        return DEFAULT_CHARS
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_CHARS <= value <= MAX_CHARS:
        raise InvalidInput(f"The character budget must be an integer from {MIN_CHARS} to {MAX_CHARS}.")
    return value


def check_max_items(value: Any) -> int:
    if value is None:
        return DEFAULT_ITEMS
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_ITEMS <= value <= MAX_ITEMS:
        raise InvalidInput(f"The item bound must be an integer from {MIN_ITEMS} to {MAX_ITEMS}.")
    return value


def fit(
    shown: dict[str, int], max_chars: int, build: Callable[[dict[str, int], dict[str, int]], dict[str, Any]],
    first: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``build(shown, dropped)`` renders the answer; cut until its JSON fits ``max_chars``.

    The intent's ``first`` sections (usage's callers, graph and resolved; impact's hops) are cut
    last: the others give up items down to ``FLOOR`` each, then the rest of theirs, and only then
    do the ``first`` lose any (the one showing most first), so the default budget carries every
    caller of a target with up to 50."""
    order = list(shown)
    start = dict(shown)
    plan: list[str] = []  # the victims in drop order: a function of the counts alone
    counts = dict(start)
    others = [name for name in order if name not in first]
    for floor, names in ((FLOOR, others), (0, others), (0, [name for name in order if name in first])):
        while any(counts[name] > floor for name in names):
            victim = max(reversed([name for name in names if counts[name] > floor]), key=lambda name: counts[name])
            counts[victim] -= 1
            plan.append(victim)

    def after(drops: int) -> dict[str, Any]:
        now, gone = dict(start), dict.fromkeys(start, 0)
        for victim in plan[:drops]:
            now[victim] -= 1
            gone[victim] += 1
        return build(now, gone)

    document = after(0)
    if len(dumps_wire(document)) <= max_chars:
        return document
    # The fewest drops that fit, by bisection (size falls as items go), then checked upwards.
    low, high = 0, len(plan)
    while low < high:
        middle = (low + high) // 2
        if len(dumps_wire(after(middle))) <= max_chars:
            high = middle
        else:
            low = middle + 1
    document = after(low)
    size = len(dumps_wire(document))
    if size > max_chars:
        raise InvalidInput(
            f"The answer's fixed part alone needs {size} characters; raise --max-chars.", reason="budget_too_small"
        )
    return document
