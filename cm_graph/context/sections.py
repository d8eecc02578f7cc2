"""Sections: what each intent shows, and how a section says ok / empty / truncated / unavailable.

A section is always present. An empty one says why, in a stable reason code plus one sentence
(an empty walk is "none within depth N in this graph", never "none"); one this build cannot fill
says ``unavailable`` and what would fill it. Items are plain dicts built here in one shape per
section kind; citations are attached later (``shape``), after the budget has chosen what stays.
"""

from __future__ import annotations

from typing import Any

from .relations import WALKS

INTENTS: dict[str, tuple[str, ...]] = {
    "how": ("calls", "defines", "rationale", "concepts", "routes"),
    "usage": ("callers", "references", "tests", "similar", "cross_repo"),
    "impact": ("callers_by_hop", "tests", "change_coupling", "hidden_coupling"),
    "tests": ("tests",),
}
INTENT_NAMES = tuple(INTENTS)
PRIMITIVES = {
    "how": ("dependency", "symbol"),
    "usage": ("impact", "related_tests", "similar_by_callees"),
    "impact": ("impact", "related_tests"),
    "tests": ("related_tests",),
}
MAX_ITEMS = 12
DYNAMIC = "the provider does not extract dynamic calls, so this is not proof of no use"

UNAVAILABLE: dict[str, tuple[str, str]] = {
    "rationale": ("not_indexed", "This index keeps no provider rationale nodes (docstrings, NOTE comments)."),
    "concepts": ("not_indexed", "CONCEPT: markers come from rationale nodes, which this index does not keep."),
    "routes": ("provider_does_not_extract", "The pinned provider emits no route relation."),
    "cross_repo": ("fleet_not_configured", "No fleet of repositories is configured; only this repository is indexed."),
    "change_coupling": ("history_not_built", "Change coupling from git history is not built for this generation."),
    "hidden_coupling": ("history_not_built", "Coupled files without a graph path need the change-coupling history."),
}
EMPTY: dict[str, tuple[str, str]] = {
    "calls": ("no_callee_within_depth", "It calls nothing within depth {depth} in this graph; " + DYNAMIC + "."),
    "defines": ("defines_nothing", "The graph records nothing it defines or contains."),
    "callers": ("no_caller_within_depth", "No caller reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
    "references": ("no_reference", "Nothing imports, references, subclasses or re-exports it in this graph."),
    "tests": ("no_test_within_depth", "No test reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
    "similar": ("no_similar_code", "No other code shares at least two callees and half its callee set with it."),
    "callers_by_hop": (
        "no_caller_within_depth", "Nothing reaches it within depth {depth} in this graph; " + DYNAMIC + "."
    ),
}
HOP_GROUPS = {1: "will_break", 2: "likely", 3: "may_need_testing"}


def unavailable(name: str) -> dict[str, Any]:
    reason, detail = UNAVAILABLE[name]
    return {"status": "unavailable", "reason": reason, "detail": detail, "shown": 0, "total": 0, "items": []}


def filled(name: str, items: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
    """A walked section holding ``items`` (already cut to what is shown) out of ``total``;
    ``cut`` names what cut it (``max_items``, ``max_chars``, ``read_limit``) when shown < total."""
    if total == 0 and cut is None:
        reason, detail = EMPTY[name]
        depth = WALKS[name].depth if name in WALKS else 1
        return {"status": "empty", "reason": reason, "detail": detail.format(depth=depth),
                "shown": 0, "total": 0, "items": []}
    if cut is not None:
        return {"status": "truncated", "reason": cut, "detail": _CUTS[cut], "shown": len(items),
                "total": total, "items": items}
    return {"status": "ok", "reason": None, "detail": None, "shown": len(items), "total": total, "items": items}


_CUTS = {
    "max_items": f"Only the first {MAX_ITEMS} in report order are shown.",
    "max_chars": "Whole items were dropped to fit the character budget.",
    "read_limit": "The walk stopped at its read bound on a large hub; the total is a lower bound.",
}
