"""The answer's bounds: at most ``max_items`` items a section (``--max-items``, default
``DEFAULT_ITEMS``), and a character budget that whole items are dropped to fit, counting what was
dropped. A cut section is paged (``paging.py``): nothing is cut that no call returns.

The answer is rebuilt for every cut tried (citations and prose follow what is shown), so the
budget bounds the bytes an agent actually receives. Items go in a fixed order, the last shown
item of the section showing the most first (a tie goes to the later section), so the cut is
deterministic and spreads over sections instead of emptying the first one; the number of items
dropped is the smallest that fits, found by a search that guesses the cut from the sizes at the
ends of its bracket and bisects every other step (a handful of builds, not one per item).
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
# The share of the suite the tests handed to pytest stay within (``test_selection``, ``--max-share``),
# and the tests it never cuts a selection below (a small suite's tests are cheap to run).
DEFAULT_SHARE, FLOOR_TESTS = 0.25, 20
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

    built: dict[int, tuple[int, dict[str, Any]]] = {}

    def size(drops: int) -> int:
        if drops not in built:
            document = after(drops)
            built[drops] = (len(dumps_wire(document)), document)
        return built[drops][0]

    if size(0) <= max_chars:
        return built[0][1]
    low, high = 0, len(plan)  # size(low) is over the budget; the fewest drops that fit are in (low, high]
    if size(high) > max_chars:
        raise InvalidInput(
            f"The answer's fixed part alone needs {size(high)} characters; raise --max-chars.",
            reason="budget_too_small")
    # Size falls about linearly as items go: guess the cut from the two ends of the bracket, and
    # bisect every other step, so a build count stays logarithmic when the guess is poor.
    guessing = True
    while high - low > 1:
        if guessing:
            over, span = size(low) - max_chars, size(low) - size(high)
            middle = low + -(-over * (high - low) // max(span, 1))
        else:
            middle = (low + high) // 2
        middle = min(max(middle, low + 1), high - 1)
        if size(middle) <= max_chars:
            high = middle
        else:
            low = middle
        guessing = not guessing
    return built[high][1]
