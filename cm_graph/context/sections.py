"""Sections: what each intent shows, and how a section says ok / empty / truncated / unavailable.

A section is always present. An empty one says why, in a stable reason code plus one sentence
(an empty walk is "none within depth N in this graph", never "none"); one this build cannot fill
says ``unavailable`` and what would fill it. Items are plain dicts built here in one shape per
section kind; citations are attached later (``shape``), after the budget has chosen what stays.
"""

from __future__ import annotations

from typing import Any

from .budget import MAX_ITEMS
from .relations import WALKS

INTENTS: dict[str, tuple[str, ...]] = {
    "how": ("calls", "defines", "rationale", "concepts", "routes"),
    "usage": ("callers", "references", "mentions", "tests", "similar", "cross_repo"),
    "impact": ("callers_by_hop", "mentions", "tests", "change_coupling", "hidden_coupling"),
    "tests": ("tests", "test_mentions"),
}
# Sections filled from the text index, never from graph relationships (textual.py).
MENTION_SECTIONS = ("mentions", "test_mentions")
INTENT_NAMES = tuple(INTENTS)
PRIMITIVES = {
    "how": ("dependency", "symbol"),
    "usage": ("impact", "related_tests", "similar_by_callees", "text_mentions"),
    "impact": ("impact", "related_tests", "text_mentions"),
    "tests": ("related_tests", "text_mentions"),
}
DYNAMIC = "the provider does not extract dynamic calls, so this is not proof of no use"

UNAVAILABLE: dict[str, tuple[str, str]] = {
    "routes": ("provider_does_not_extract", "The pinned provider emits no route relation."),
    "cross_repo": ("fleet_not_configured", "No fleet of repositories is configured; only this repository is indexed."),
    "change_coupling": ("history_not_built", "Change coupling is not built for this generation: "
                        "run `cm-graph context history`."),
    "hidden_coupling": ("history_not_built", "Coupled files without a graph path need the change-coupling history: "
                        "run `cm-graph context history`."),
}
HISTORY_TRUNCATED = ("history_truncated", "This clone is shallow: its history is cut, so no coupling is computed.")
EMPTY: dict[str, tuple[str, str]] = {
    "calls": ("no_callee_within_depth", "It calls nothing within depth {depth} in this graph; " + DYNAMIC + "."),
    "defines": ("defines_nothing", "The graph records nothing it defines or contains."),
    "callers": ("no_caller_within_depth", "No caller reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
    "references": ("no_reference", "Nothing imports, references, subclasses or re-exports it in this graph."),
    "tests": ("no_test_within_depth", "No test reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
    "rationale": ("no_rationale", "The provider recorded no docstring or NOTE/WHY/HACK-style comment for it."),
    "concepts": ("no_concept_marker", "None of its docstrings or rationale comments starts with CONCEPT:."),
    "similar": ("no_similar_code", "No other code shares at least two callees and half its callee set with it."),
    "callers_by_hop": (
        "no_caller_within_depth", "Nothing reaches it within depth {depth} in this graph; " + DYNAMIC + "."
    ),
}
EMPTY_MENTIONS: dict[str, tuple[str, str]] = {
    "mentions": ("no_mention", "No line of commit {commit} uses `{name}` by name outside the graph's relationships."),
    "test_mentions": ("no_test_mention", "No test file of commit {commit} uses `{name}` by name outside the graph's "
                      "relationships."),
}
NOT_A_NAME = ("no_name_to_search", "The text index searches no name of this anchor (a file, whose importers are "
              "in references, or a name of one character), so no line is listed.")
HOP_GROUPS = {1: "will_break", 2: "likely", 3: "may_need_testing"}


# A section's reason (the sections' own vocabulary) when the walk or the text index could not
# pass records the graph left out beside the anchor (compose._not_none_behind_borders).
UNTRAVERSABLE = "untraversable"


def behind_borders(section: dict[str, Any], detail: str) -> None:
    """Turn an empty section into one that says it is no evidence of none: records next to what
    it searched were left out as untraversable."""
    section["status"], section["reason"], section["detail"] = "truncated", UNTRAVERSABLE, detail


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


def coupling_section(
    name: str, status: str, params: dict[str, str], path: str, revs: int, explained: int,
    items: list[dict[str, Any]], total: int, cut: str | None,
) -> dict[str, Any]:
    """A change-coupling section: the parameters it was computed with, and why it is empty."""
    from .coupling import MIN_DEGREE, MIN_REVS, MIN_SHARED

    window = {"window_commits": int(params["window_commits"]), "commits_read": int(params["commits_read"]),
              "max_changeset": int(params["max_changeset"]), "changesets_dropped": int(params["changesets_dropped"]),
              "min_revs": MIN_REVS, "min_shared": MIN_SHARED, "min_degree": MIN_DEGREE, "revs": revs}
    if status == "unavailable":
        section = _without_items("unavailable", *HISTORY_TRUNCATED)
    elif status == "insufficient_history":
        detail = (f"{path or 'Its file'} changed in {revs} of the {params['commits_read']} commits read; "
                  f"coupling needs at least {MIN_REVS}, so this is not evidence of no coupling.")
        section = _without_items("empty", "insufficient_history", detail)
    elif total == 0 and explained:
        detail = f"All {explained} file(s) coupled with it have a graph path to it within depth 2."
        section = _without_items("empty", "explained_by_graph", detail)
    elif total == 0:
        hidden = " without a graph path between them" if name == "hidden_coupling" else ""
        detail = (f"No file changed together with it in at least {MIN_SHARED} commits at a degree of "
                  f"{MIN_DEGREE}% or more{hidden} ({revs} of {params['commits_read']} commits touch it).")
        section = _without_items("empty", "below_thresholds", detail)
    else:
        section = filled(name, items, total, cut)
    section["parameters"] = window
    return section


def _without_items(status: str, reason: str, detail: str) -> dict[str, Any]:
    """A section that holds nothing, with the section reason code (the sections' own vocabulary,
    not a refusal's) and its sentence."""
    return {"status": status, "reason": reason, "detail": detail, "shown": 0, "total": 0, "items": []}


def mention_section(
    name: str, items: list[dict[str, Any]], total: int, cut: str | None, facts: dict[str, Any], commit: str
) -> dict[str, Any]:
    """A section of textual mentions: empty for this commit, too common a name to list, or the
    mentions; ``homonyms`` says how many definitions share the name (more than one: the mentions
    cannot tell them apart); in ``mentions``, ``calls`` says how many of the lines call it (the
    others import it, name it or read it as an attribute; None when the name is too common to
    list)."""
    from .textual import COMMON_TOTAL, call_lines, common_name_detail

    word = facts["name"]
    if word is None:
        section = _without_items("empty", *NOT_A_NAME)
    elif facts["common"]:
        section = _without_items("truncated", "common_name", common_name_detail(word))
        section["total"] = COMMON_TOTAL  # "more than MAX_KEPT": the text index stops counting there
    elif total == 0 and cut is None:
        reason, detail = EMPTY_MENTIONS[name]
        section = _without_items("empty", reason, detail.format(commit=commit[:12], name=word))
    else:
        section = filled(name, items, total, cut)
    section["homonyms"] = facts["definitions"]
    if name == "mentions":
        section["calls"] = None if facts["common"] else call_lines(facts)
    return section
