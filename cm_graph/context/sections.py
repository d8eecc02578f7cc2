"""Sections: the row that declares one, what its composer reads and hands back, and how a section
says ok / empty / truncated / unavailable.

A section is always present. An empty one says why, in a stable reason code plus one sentence
(an empty walk is "none within depth N in this graph", never "none"); one this build cannot fill
says ``unavailable`` and what would fill it. Items are plain dicts built in one shape per
section kind; citations are attached later (``shape``), after the budget has chosen what stays.
The rows themselves are ``section_table.py``; the composers that fill them, ``composers.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import apsw

from ..base.records import record
from ..index.mentions import defined_name
from . import resolved
from .coupling import MIN_DEGREE, MIN_REVS, MIN_SHARED
from .observed import Observed
from .relations import INCOMING, WalkSpec
from .sites import enclosing_count, site_facts
from .textual import COMMON_TOTAL, call_lines, common_name_detail, mention_facts, use_counts
from .walks import HopReads, Reach, walk

# The fleet's usages of the anchor's label, shown at most (items per repository, characters):
# the ``cross_repo_usages`` answer, or None when the checkout is in no fleet.
FleetUsages = Callable[[str, int, int], dict[str, Any] | None]
# The kept items (already cut to what is shown), their total and what cut them, as a section.
Shape = Callable[[list[dict[str, Any]], int, str | None], dict[str, Any]]

HISTORY_TRUNCATED = ("history_truncated", "This clone is shallow: its history is cut, so no coupling is computed.")
NOT_A_NAME = ("no_name_to_search", "The text index searches no name of this anchor (a file, whose importers are "
              "in references, or a name of one character), so no line is listed.")
HOP_GROUPS = {1: "will_break", 2: "likely", 3: "may_need_testing"}

# A section's reason (the sections' own vocabulary) when the walk or the text index could not
# pass records the graph left out beside the anchor (compose._not_none_behind_borders).
UNTRAVERSABLE = "untraversable"


class Reading:
    """What a section's composer reads for one resolved anchor: the index, the anchor as
    described, the bound commit, the change-coupling history and the fleet when there are any.
    The mention facts are read once, by the first section that asks; ``touched`` collects the
    anchor and every node a walk reached (where an untraversable border shows). ``limit`` is how
    many items of a section are described at most (the item bound, past the page's offset).
    A walk is run once per answer (``walk``, ``resolved_walk``): a resolved section walks its
    graph twin's walk again to tell what is beyond it, and on a hub that walk reads ``MAX_READ``
    rows, so the second is served from the first."""

    def __init__(
        self, connection: apsw.Connection, node: int, anchor: dict[str, Any], commit: str,
        history: apsw.Connection | None, fleet: FleetUsages | None, limit: int,
    ) -> None:
        self.connection, self.node, self.anchor, self.commit = connection, node, anchor, commit
        self.limit = limit
        self.history, self.fleet = history, fleet
        self.observed: Observed | None = None  # the generation's observed test map (compose sets it)
        self.touched = {node}
        self._mentions: dict[str, Any] | None = None
        self._sites: dict[str, Any] | None = None
        self._walks: dict[tuple[Any, ...], Any] = {}
        self.reads: HopReads = {}  # every walk's hop reads (``walks.hop_rows``)

    def walk(self, anchors: tuple[int, ...], spec: WalkSpec) -> Reach:
        """``walks.walk`` from ``anchors``, read once per answer (a ``Reach`` is immutable)."""
        key = ("graph", anchors, spec)
        if key not in self._walks:
            self._walks[key] = walk(self.connection, anchors, spec, self.reads)
        found: Reach = self._walks[key]
        return found

    def resolved_walk(self, spec: WalkSpec, roles: tuple[str, ...]) -> resolved.Reach:
        """``resolved.walk`` from the anchor, read once per answer."""
        key = ("resolved", spec, roles)
        if key not in self._walks:
            self._walks[key] = resolved.walk(self.connection, self.node, spec, roles, self.reads)
        found: resolved.Reach = self._walks[key]
        return found

    def sites(self) -> dict[str, Any]:
        """``sites.site_facts`` of the anchor (its raise and catch sites), read once."""
        if self._sites is None:
            self._sites = site_facts(self.connection, self.node, self.anchor["label"])
        return self._sites

    def mentions(self) -> dict[str, Any]:
        """``textual.mention_facts`` of the anchor's name."""
        if self._mentions is None:
            self._mentions = mention_facts(self.connection, self.anchor["label"], self.node)
        return self._mentions


@record
class Found:
    """What a composer found: the items in report order (only the first ``Reading.limit`` described),
    how many there are, whether a read bound stopped it (the total is then a lower bound), and how
    the kept items become the section (``shape``; None: ``filled`` with the row's empty reason).
    ``freshness`` is added to the answer's ``freshness``: a fact about checkouts now, outside the
    answer's id. ``ran`` is false for a section its ``shape`` says is unavailable (the evidence it
    reads is not there for this generation): its primitive is then not among those used."""

    items: list[dict[str, Any]]
    total: int
    read_limited: bool = False
    shape: Shape | None = None
    freshness: dict[str, Any] | None = None
    ran: bool = True


@record
class Section:
    """One section of ``code_context``, a row of ``section_table.SECTIONS``: its name, the intents
    that show it, the primitive it runs (``used_primitives`` names those of the rows an answer
    filled), its composer (``compose(reading, row)``: a ``Found``, or None when this build has
    nothing to fill it from; no composer: it is always unavailable), the sentence the prose says
    of it when it holds items, its empty reason and sentence template (``{depth}`` is its walk's;
    a composer formats any other field), its unavailable reason and sentence, the walk it runs
    (direction, relation words, depth: ``used_relations``), whether it is filled from the
    text index rather than from graph relationships (``textual``), and, for a headline that must
    count the other evidence kinds of the answer too (``headline``), the sentence that reads the
    whole answer's sections instead of ``sentence``."""

    name: str
    intents: tuple[str, ...]
    primitive: str | None
    compose: Callable[[Reading, Section], Found | None] | None
    sentence: Callable[[dict[str, Any]], str] | None = None
    empty: tuple[str, str] | None = None
    unavailable: tuple[str, str] | None = None
    walk: WalkSpec | None = None
    textual: bool = False
    # A resolved section walks what its graph twins walk (their relation words, ``beside``) and
    # the resolver's references of ``roles`` with them (``resolved.py``).
    beside: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    headline: Callable[[dict[str, Any], dict[str, Any]], str] | None = None

    @property
    def of_users(self) -> bool:
        """Whether its items use the anchor (a walk against the edges): each is cited where it does."""
        return self.walk is not None and self.walk.direction == INCOMING

    def nothing_found(self, **fields: Any) -> tuple[str, str]:
        """The empty reason and its sentence, formatted with the walk's depth (1 for a section
        that does not walk) and ``fields``."""
        assert self.empty is not None, self.name
        reason, template = self.empty
        return reason, template.format(depth=self.walk.depth if self.walk else 1, **fields)


def behind_borders(section: dict[str, Any], detail: str) -> None:
    """Turn an empty section into one that says it is no evidence of none: records next to what
    it searched were left out as untraversable."""
    section["status"], section["reason"], section["detail"] = "truncated", UNTRAVERSABLE, detail


def unavailable(row: Section, why: tuple[str, str] | None = None) -> dict[str, Any]:
    """The row's unavailable section, with its own reason and sentence unless ``why`` gives one
    that knows more (a resolved section: what the resolver made of the anchor's file)."""
    assert row.unavailable is not None, row.name
    reason, detail = why or row.unavailable
    return {"status": "unavailable", "reason": reason, "detail": detail, "shown": 0, "total": 0, "items": []}


def filled(row: Section, items: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
    """A walked section holding ``items`` (already cut to what is shown) out of ``total``;
    ``cut`` names what cut it (``max_items``, ``max_chars``, ``read_limit``) when shown < total."""
    if total == 0 and cut is None:
        return _without_items("empty", *row.nothing_found())
    if cut is not None:
        return {"status": "truncated", "reason": cut, "detail": _CUTS[cut], "shown": len(items),
                "total": total, "items": items}
    return {"status": "ok", "reason": None, "detail": None, "shown": len(items), "total": total, "items": items}


_CUTS = {
    "max_items": "Only the first items in report order are shown (the item bound).",
    "max_chars": "Whole items were dropped to fit the character budget.",
    "read_limit": "The walk stopped at its read bound on a large hub; the total is a lower bound.",
}


def coupling_section(
    row: Section, status: str, params: dict[str, str], path: str, revs: int, explained: int,
    items: list[dict[str, Any]], total: int, cut: str | None, *, hidden: bool,
) -> dict[str, Any]:
    """A change-coupling section: the parameters it was computed with, and why it is empty
    (``hidden``: the coupled files without a graph path to the anchor)."""
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
        without = " without a graph path between them" if hidden else ""
        detail = (f"No file changed together with it in at least {MIN_SHARED} commits at a degree of "
                  f"{MIN_DEGREE}% or more{without} ({revs} of {params['commits_read']} commits touch it).")
        section = _without_items("empty", "below_thresholds", detail)
    else:
        section = filled(row, items, total, cut)
    section["parameters"] = window
    return section


def _without_items(status: str, reason: str, detail: str) -> dict[str, Any]:
    """A section that holds nothing, with the section reason code (the sections' own vocabulary,
    not a refusal's) and its sentence."""
    return {"status": status, "reason": reason, "detail": detail, "shown": 0, "total": 0, "items": []}


def mention_section(
    row: Section, items: list[dict[str, Any]], total: int, cut: str | None, facts: dict[str, Any], commit: str,
    *, calls: bool,
) -> dict[str, Any]:
    """A section of textual mentions: empty for this commit, too common a name to list, or the
    mentions; ``homonyms`` says how many definitions share the name (more than one: the mentions
    cannot tell them apart); with ``calls``, the section's ``calls`` says how many of the lines
    call it (the others import it, name it or read it as an attribute; None when the name is too
    common to list)."""
    section = _by_name(row, items, total, cut, facts, commit)
    section["homonyms"] = facts["definitions"]
    section["bound_elsewhere"] = facts["bound_elsewhere"]
    if facts.get("sites"):
        section["sites"] = facts["sites"]  # raise and catch lines, listed in raises and catches instead
        if section["status"] == "empty":
            section["detail"] += f" Its {facts['sites']} raise or catch line(s) are in raises and catches."
    if calls:
        section["calls"] = None if facts["common"] else call_lines(facts)
    return section


# What an answer searches before it says no use was found (``compose._no_use_found``): the
# dynamic kinds, as the dynamic_uses section's ``searched`` lists them after the use sections.
DYNAMIC_SEARCHED = ("string literals", "`__all__` exports", "getattr and dispatch-table spellings", "decorators",
                    "registries (dicts and lists of callables, register calls)", "template and config files")


def dynamic_section(
    row: Section, items: list[dict[str, Any]], total: int, cut: str | None, facts: dict[str, Any], commit: str,
) -> dict[str, Any]:
    """The dynamic uses of the name (``textual.dynamic_items``): empty for this commit, too common
    a name to list, or the uses, with how many of each kind (``string_mention``, ``export``,
    ``registry``); an answer with no use at all adds what was searched (``compose._no_use_found``)."""
    section = _by_name(row, items, total, cut, facts, commit)
    section.update(use_counts(facts))
    return section


def _by_name(
    row: Section, items: list[dict[str, Any]], total: int, cut: str | None, facts: dict[str, Any], commit: str,
) -> dict[str, Any]:
    """A section the text index fills by the anchor's name: nothing searched (no name), too common a
    name to list, empty for this commit, or the items found."""
    word = facts["name"]
    if word is None:
        return _without_items("empty", *NOT_A_NAME)
    if facts["common"]:
        section = _without_items("truncated", "common_name", common_name_detail(word))
        section["total"] = COMMON_TOTAL  # "more than MAX_KEPT": the text index stops counting there
        return section
    if total == 0 and cut is None:
        return _without_items("empty", *row.nothing_found(commit=commit[:12], name=word))
    return filled(row, items, total, cut)


def site_section(
    row: Section, items: list[dict[str, Any]], total: int, cut: str | None, facts: dict[str, Any], form: str,
    commit: str,
) -> dict[str, Any]:
    """A section of raise or catch sites (``form``): empty for this commit, too common a name to
    list, or the sites, with how many are ``resolved`` and ``textual``, the ``definitions`` they
    are credited to, and the lines the resolver binds to another definition of the name
    (``elsewhere``, not listed)."""
    every = facts["sites"][form]
    section = _by_name(row, items, total, cut, facts, commit)
    resolved = sum(1 for item in every if item["evidence"] == "resolved")
    section.update(resolved=resolved, textual=len(every) - resolved, definitions=enclosing_count(every),
                   elsewhere=facts["elsewhere"][form])
    return section


def override_section(
    row: Section, items: list[dict[str, Any]], total: int, cut: str | None, every: list[dict[str, Any]], label: str,
) -> dict[str, Any]:
    """The overrides section, with how many the ``graph`` and the ``resolver`` each found."""
    if total == 0 and cut is None:
        section = _without_items("empty", *row.nothing_found(name=defined_name(label) or label))
    else:
        section = filled(row, items, total, cut)
    section.update(graph=sum(1 for item in every if "graph" in item["evidence"]),
                   resolved=sum(1 for item in every if "resolved" in item["evidence"]))
    return section
