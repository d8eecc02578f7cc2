"""The composers: what each section reads from the index, the history or the fleet.

A composer is ``compose(reading, row) -> Found | None``, named by its section's row
(``section_table.py``). It reads only what its section shows (a hub's thousands of callers are
counted, not described), adds every node a walk reached to ``reading.touched``, and returns None
when this build holds nothing to fill the section from (no history, no fleet): the section then
says ``unavailable`` with its row's reason.
"""

from __future__ import annotations

import json
from typing import Any

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .coupling import coupled_with, read_params
from .nodes import describe
from .overrides import is_method, overriding
from .relations import CALLS, MEMBERS, OUTGOING, WalkSpec
from .sections import (
    HOP_GROUPS,
    Found,
    Reading,
    Section,
    coupling_section,
    dynamic_section,
    filled,
    mention_section,
    override_section,
    site_section,
)
from .sentences import unsearched_note
from .sites import anchor_definition, is_class
from .textual import dynamic_items, mention_items, without_sites
from .walks import MAX_READ, Step, chain_back

DYNAMIC = "the provider does not extract dynamic calls, so this is not proof of no use"
FLEET_ITEMS = 5  # per repository, in the cross_repo section
FLEET_CHARS = 4_000


def walked(reading: Reading, row: Section) -> Found:
    """The nodes the row's walk reaches, each with its hop, relation, confidence, the node it was
    reached from (``via``) and its call or reference site."""
    steps, limited = _steps(reading, _spec(row))
    return Found(_items(reading, steps)[0], len(steps), limited)


def walked_with_members(reading: Reading, row: Section) -> Found:
    """``walked`` from the anchor and its own methods together: a class calls little itself,
    its methods do the calling, so what a class calls is what it and its methods call. Each item
    reached through a method says which (``through``); calls among the methods are the class's
    own business and are not listed. An anchor with no methods is walked as ``walked`` walks it."""
    members = reading.walk((reading.node,), WalkSpec(OUTGOING, MEMBERS, 1)).steps
    methods = tuple(sorted({s.reached for s in members} - {reading.node}))
    if not methods:
        return walked(reading, row)
    reach = reading.walk((reading.node, *methods), _spec(row))
    reading.touched.update(methods)
    reading.touched.update(s.reached for s in reach.steps)
    steps = list(reach.steps)
    by_node = {s.reached: s for s in steps if s.reached != s.origin}
    items, nodes = _items(reading, steps, set(methods))
    for item, step in zip(items, steps[: len(items)], strict=True):
        root = chain_back(step, by_node, _spec(row).depth)[-1].origin
        if root != reading.node:
            item["through"] = nodes[root]["label"]

    def shape(keep: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
        section = filled(row, keep, total, cut)
        section["members"] = len(methods)
        if section["status"] == "empty":
            section["detail"] = (f"Neither it nor its {len(methods)} method(s) call anything within depth "
                                 f"{_spec(row).depth} in this graph; {DYNAMIC}.")
        return section

    return Found(items, len(steps), reach.read_limited, shape)


def walked_by_hop(reading: Reading, row: Section) -> Found:
    """``walked``, each item with the group its hop puts it in (will break, likely, may need testing)."""
    found = walked(reading, row)
    for item in found.items:
        item["group"] = HOP_GROUPS[item["hop"]]
    return found


def tests_reached(reading: Reading, row: Section) -> Found:
    """The tests the walk reaches, each with ``reaching``: the path from it to the anchor."""
    spec = _spec(row)
    steps, limited = _steps(reading, spec)
    by_node = {s.reached: s for s in steps if s.reached != s.origin}  # a self-loop leads nowhere
    rows = reading.connection.execute(query_sql("tests_among"), {"nodes": json.dumps([s.reached for s in steps])})
    tests = {test[0] for test in rows}
    steps = [s for s in steps if s.reached in tests]
    chains = {s.origin for step in steps[:reading.limit] for s in chain_back(step, by_node, spec.depth)}
    items, nodes = _items(reading, steps, chains)
    for item, step in zip(items, steps[: len(items)], strict=True):
        item["reaching"] = [nodes[step.reached]["label"]] + [
            f"{s.relation} {nodes[s.origin]['label']}" for s in chain_back(step, by_node, spec.depth)]
    return Found(items, len(steps), limited)


def _spec(row: Section) -> WalkSpec:
    assert row.walk is not None, row.name
    return row.walk


def _steps(reading: Reading, spec: WalkSpec) -> tuple[list[Step], bool]:
    reach = reading.walk((reading.node,), spec)
    reading.touched.update(s.reached for s in reach.steps)
    return list(reach.steps), reach.read_limited


def _items(
    reading: Reading, steps: list[Step], also: set[int] | None = None
) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """The first ``reading.limit`` steps as items, and the described nodes (those and ``also``)."""
    shown = steps[:reading.limit]
    wanted = {reading.node} | {s.reached for s in shown} | {s.origin for s in shown} | (also or set())
    nodes = describe(reading.connection, list(wanted))
    items = []
    for step in shown:
        item = dict(nodes[step.reached])
        item.update(hop=step.hop, relation=step.relation, confidence=step.confidence,
                    via=nodes[step.origin]["label"],
                    site={"path": step.site_path, "line": step.site_line} if step.site_path else None)
        items.append(item)
    return items, nodes


def similar_by_callees(reading: Reading, row: Section) -> Found:
    rows = fetch_rows(reading.connection.execute(
        query_sql("similar_by_callees"),
        {"anchor": reading.node, "relations": json.dumps(list(CALLS)), "limit": MAX_READ + 1},
    ), tuple[int, int, int, int])
    limited = len(rows) > MAX_READ
    rows = rows[:MAX_READ]
    nodes = describe(reading.connection, [peer for peer, *_ in rows[:reading.limit]])
    items = []
    for peer, shared, theirs, ours in rows[:reading.limit]:
        item = dict(nodes[peer])
        item.update(shared=shared, jaccard=f"{shared}/{ours + theirs - shared}")
        items.append(item)
    return Found(items, len(rows), limited)


def rationale(reading: Reading, row: Section) -> Found:
    """Its docstrings and NOTE/WHY/HACK-style comments."""
    return _rationale(reading, concepts_only=False)


def concept_markers(reading: Reading, row: Section) -> Found:
    """Its rationale that starts ``CONCEPT:``."""
    return _rationale(reading, concepts_only=True)


def _rationale(reading: Reading, *, concepts_only: bool) -> Found:
    rows = fetch_rows(
        reading.connection.execute(query_sql("rationale_of"), {"node": reading.node, "limit": MAX_READ + 1}),
        tuple[str, int, str, int],
    )
    limited = len(rows) > MAX_READ
    items = [{"text": text, "truncated": bool(truncated), "path": path, "line": line}
             for path, line, text, truncated in rows[:MAX_READ]
             if not concepts_only or is_concept(text)]
    return Found(items, len(items), limited)


def is_concept(text: str) -> bool:
    """A ``CONCEPT:`` marker, behind whatever comment leader the language uses."""
    return text.lstrip("#/*! ").startswith("CONCEPT:")


def mention_lines(reading: Reading, row: Section) -> Found:
    """The lines of the bound commit that use the anchor's name outside the graph's relationships."""
    return _mentions(reading, row, tests_only=False)


def test_mention_lines(reading: Reading, row: Section) -> Found:
    """The tests that use the anchor's name outside the graph's relationships."""
    return _mentions(reading, row, tests_only=True)


def _mentions(reading: Reading, row: Section, *, tests_only: bool) -> Found:
    facts = reading.mentions()
    if not tests_only and is_class(reading.connection, reading.node, reading.anchor["label"]):
        facts = without_sites(facts)  # a class's raise and catch lines are its raises and catches
    items, total = mention_items(reading.connection, facts, reading.limit, tests_only=tests_only)
    return Found(items, total, False, lambda keep, total, cut: mention_section(
        row, keep, total, cut, facts, reading.commit, calls=not tests_only))


def dynamic_lines(reading: Reading, row: Section) -> Found:
    """The lines that name the anchor without calling it: in a string literal, an export, a
    registry or decorator, a getattr or dispatch-table spelling, a template or config file."""
    facts = reading.mentions()
    items, total = dynamic_items(reading.connection, facts, reading.limit)
    return Found(items, total, False, lambda keep, total, cut: dynamic_section(
        row, keep, total, cut, facts, reading.commit))


def raise_sites(reading: Reading, row: Section) -> Found | None:
    """The lines that raise the anchor, a class (None: the anchor is no class)."""
    return _sites(reading, row, "raise")


def catch_sites(reading: Reading, row: Section) -> Found | None:
    """The lines that catch the anchor, a class (None: the anchor is no class)."""
    return _sites(reading, row, "catch")


def _sites(reading: Reading, row: Section, form: str) -> Found | None:
    if not is_class(reading.connection, reading.node, reading.anchor["label"]):
        return None
    facts = reading.sites()
    items = facts["sites"][form]
    return Found(items[:reading.limit], len(items), False, lambda keep, total, cut: site_section(
        row, keep, total, cut, facts, form, reading.commit))


def overrides(reading: Reading, row: Section) -> Found | None:
    """The same-named methods of the anchor's class's subclasses (None: the anchor is no method)."""
    label = reading.anchor["label"]
    if not is_method(anchor_definition(reading.connection, reading.node), label):
        return None
    items, touched, limited = overriding(reading.connection, reading.node, label, _spec(row), describe)
    reading.touched.update(touched)
    return Found(items[:reading.limit], len(items), limited, lambda keep, total, cut: override_section(
        row, keep, total, cut, items, label))


def coupled_files(reading: Reading, row: Section) -> Found | None:
    """The files changed together with the anchor's file (None: the history is not built)."""
    return _coupling(reading, row, hidden=False)


def hidden_coupled_files(reading: Reading, row: Section) -> Found | None:
    """``coupled_files`` without those that have a graph path to it within depth 2."""
    return _coupling(reading, row, hidden=True)


def _coupling(reading: Reading, row: Section, *, hidden: bool) -> Found | None:
    history, path = reading.history, reading.anchor["path"]
    if history is None:
        return None
    found = coupled_with(history, path) if path else None
    if found is None:
        params = read_params(history)
        return Found([], 0, False, lambda keep, total, cut: coupling_section(
            row, "insufficient_history", params, path, 0, 0, keep, total, cut, hidden=hidden))
    pairs = list(found.pairs)
    explained = 0
    if hidden and pairs:
        rows = reading.connection.execute(query_sql("file_neighbourhood"), {"path": path, "limit": MAX_READ})
        near = {other[0] for other in rows}
        unexplained = [pair for pair in pairs if pair[0] not in near and pair[0] != path]
        pairs, explained = unexplained, len(pairs) - len(unexplained)
    items = [{"label": other, "kind": "file", "path": other, "line": None, "shared": shared, "revs": revs_other,
              "degree": degree} for other, shared, _, revs_other, degree in pairs[:reading.limit]]
    return Found(items, len(pairs), False, lambda keep, total, cut: coupling_section(
        row, found.status, found.params, path, found.revs, explained, keep, total, cut, hidden=hidden))


def fleet_usages(reading: Reading, row: Section) -> Found | None:
    """The other members' usages of this repository's definitions of the anchor's name, from the
    fleet's answer (None: the checkout is in no fleet). The section is the fleet's, shown as it
    came (``FLEET_ITEMS`` per repository within ``FLEET_CHARS``), so the budget drops none of it;
    the members' freshness goes under ``freshness.fleet``."""
    answer = reading.fleet(reading.anchor["label"], FLEET_ITEMS, FLEET_CHARS) if reading.fleet else None
    if answer is None:
        return None
    fleet, groups, cover = answer["fleet"], answer["usages_by_repository"], answer["coverage"]
    items = [{"repository": repository, **item} for repository, group in groups.items() for item in group["items"]]
    total = sum(group["total"] for group in groups.values())
    section: dict[str, Any] = {
        "status": "ok" if items and len(items) == total else "truncated" if items else "empty",
        "fleet": fleet, "shown": len(items), "total": total, "items": items,
        "name_matches": sum(group["total"] for group in answer["name_matches_by_repository"].values()),
        "coverage": cover,
    }
    if not items:
        reason, detail = row.nothing_found(fleet=fleet, unsearched=unsearched_note(cover))
        section.update(reason=reason, detail=detail)
    return Found([], 0, False, lambda keep, total, cut: section, {"fleet": {"fleet": fleet, **answer["freshness"]}})
