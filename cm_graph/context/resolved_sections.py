"""The composers of the resolved sections: what the walk by graph and resolver together reaches
that the graph's own walk of the same row does not (``resolved.py``).

Each runs its row's walk twice, the graph's alone (the graph section beside it shows exactly
that) and the joint one, and lists the difference, every item with the evidence of the step that
reached it and the node it came from. None when the resolver has no definition of the anchor:
the section is then unavailable, and says why.
"""

from __future__ import annotations

from typing import Any

from . import resolved
from .relations import WalkSpec
from .sections import HOP_GROUPS, Found, Reading, Section, filled
from .walks import chain_back
from .walks import walk as graph_walk


def resolved_callers(reading: Reading, row: Section) -> Found | None:
    """The definitions that use the anchor by a resolved reference and that the graph does not
    link to it within the row's depth: its callers, importers, subclasses, decorated definitions."""
    return _beyond_graph(reading, row, tests_only=False)


def resolved_reach(reading: Reading, row: Section) -> Found | None:
    """``resolved_callers`` over several hops, each item with the group its hop puts it in."""
    found = _beyond_graph(reading, row, tests_only=False)
    if found is not None:
        for item in found.items:
            item["group"] = HOP_GROUPS[item["hop"]]
    return found


def resolved_tests(reading: Reading, row: Section) -> Found | None:
    """The tests that run the anchor through a resolved reference somewhere on the way (the graph's
    walk alone does not reach them), each with ``reaching``: the path from the test to the
    anchor, every step with its evidence."""
    return _beyond_graph(reading, row, tests_only=True)


def _beyond_graph(reading: Reading, row: Section, *, tests_only: bool) -> Found | None:
    spec = _spec(row)
    if not resolved.anchor_definitions(reading.connection, reading.node):
        return None
    graph_steps = graph_walk(reading.connection, (reading.node,), spec).steps
    known = {step.reached for step in graph_steps}
    reach = resolved.walk(reading.connection, reading.node, spec, row.roles)
    reading.touched.update(step.reached for step in reach.steps if step.reached > 0)
    # A module's import of the name is no news beside a use in the same file (the graph's or
    # the resolver's): such imports are counted, not listed, so the uses are what the budget keeps.
    used_in = {step.site_path for step in graph_steps} | {
        step.site_path for step in reach.steps if step.relation != "import"}
    beyond = [step for step in reach.steps if step.reached not in known and step.reached != reading.node]
    folded = [step for step in beyond if step.relation == "import" and step.site_path in used_in]
    # In hop order, then where each use is written: a reader goes through them file by file.
    steps = sorted((step for step in beyond if step not in folded),
                   key=lambda s: (s.hop, s.site_path, s.site_line or 0, s.reached))
    by_key = {step.reached: step for step in reach.steps}
    if tests_only:
        heads = resolved.describe_keys(reading.connection, [s.reached for s in steps])
        steps = [step for step in steps if resolved.is_test(heads[step.reached])]
    shown = steps[:reading.limit]
    chains = {step.reached: chain_back(step, by_key, spec.depth) for step in shown}
    wanted = {reading.node} | {s.reached for s in shown} | {link.origin for chain in chains.values() for link in chain}
    named = resolved.describe_keys(reading.connection, sorted(wanted))
    items = []
    for step in shown:
        item: dict[str, Any] = dict(named[step.reached])
        item.update(hop=step.hop, relation=step.relation, confidence=step.confidence, evidence=step.evidence,
                    via=named[step.origin]["label"],
                    site={"path": step.site_path, "line": step.site_line} if step.site_path else None)
        if tests_only:
            item["reaching"] = [named[step.reached]["label"]] + [
                f"{link.relation} ({link.evidence}) {named[link.origin]['label']}" for link in chains[step.reached]]
        items.append(item)
    if not folded:
        return Found(items, len(steps), reach.read_limited)

    def shape(keep: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
        section = filled(row, keep, total, cut)
        section["imports_folded"] = len(folded)
        return section

    return Found(items, len(steps), reach.read_limited, shape)


def _spec(row: Section) -> WalkSpec:
    assert row.walk is not None, row.name
    return row.walk
