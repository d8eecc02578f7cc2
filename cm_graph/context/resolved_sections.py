"""The composers of the resolved sections: what the walk by graph and resolver together reaches
that the graph's own walk of the same row does not (``resolved.py``).

Each runs its row's walk twice, the graph's alone (the graph section beside it shows exactly
that) and the joint one, and lists the difference, every item with the evidence of the step that
reached it and the node it came from. None when the resolver has no definition of the anchor:
the section is then unavailable, and says why.
"""

from __future__ import annotations

import json
from typing import Any

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.mentions import defined_name
from . import resolved
from .relations import CALLS, MEMBERS, OUTGOING, WalkSpec
from .sections import HOP_GROUPS, Found, Reading, Section, filled
from .shape import LIST_HEAD
from .walks import MAX_READ, chain_back

CALL_ROLES = ("call", "instantiate")
UNKNOWN_RECEIVER = "call (receiver type unknown)"
DISPATCH = "may dispatch to (override)"  # a call bound to a base method may run this override of it
OVERRIDE_DEPTH = 4  # as deep as the overrides section walks subclasses


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
    graph_steps = reading.walk((reading.node,), spec).steps
    known = {step.reached for step in graph_steps}
    reach = reading.resolved_walk(spec, row.roles)
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
    unseen = {} if tests_only else _unbound_calls(reading, spec, graph_steps, reach.steps)
    if not folded and not unseen:
        return Found(items, len(steps), reach.read_limited)

    def shape(keep: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
        section = filled(row, keep, total, cut)
        if folded:
            section["imports_folded"] = len(folded)
            section["detail"] = _folded_detail(folded, section["detail"])
        if unseen:
            section["unbound_calls"] = sum(unseen.values())
            named = (f"`{next(iter(unseen))}`" if len(unseen) == 1 else
                     ", ".join(f"`{name}` ({calls})" for name, calls in sorted(unseen.items())[:LIST_HEAD]))
            more = f", …and {len(unseen) - LIST_HEAD} more name(s)" if len(unseen) > LIST_HEAD else ""
            said = (f"{sum(unseen.values())} call(s) of {named}{more} on values of unknown type bind to no "
                    "definition: each may be a use this list misses (see mentions).")
            section["detail"] = f"{section['detail']} {said}" if section["detail"] else said
        return section

    return Found(items, len(steps), reach.read_limited, shape)


def _folded_detail(folded: list[Any], detail: str | None) -> str:
    """Where the folded imports are: a rename edits them too, and no item carries their lines."""
    lines = sorted({(step.site_path, step.site_line or 0) for step in folded})
    named = ", ".join(f"{path} L{line}" for path, line in lines[:LIST_HEAD])
    more = f", …and {len(lines) - LIST_HEAD} more" if len(lines) > LIST_HEAD else ""
    said = (f"{len(folded)} import(s) of it in files whose use is listed are not listed as items: "
            f"{named}{more}.")
    return f"{detail} {said}" if detail else said


def _unbound_calls(reading: Reading, spec: WalkSpec, *walks: tuple[Any, ...]) -> dict[str, int]:
    """The calls the resolver left unbound under the name of the anchor or of a definition a hop
    before the walk's last reached (what the next hop would have walked from): name -> calls."""
    keys = {reading.node} | {step.reached for steps in walks for step in steps if step.hop < spec.depth}
    names = sorted({name for head in resolved.describe_keys(reading.connection, sorted(keys)).values()
                    if (name := defined_name(head["label"])) is not None})
    if not names:
        return {}
    return dict(fetch_rows(reading.connection.execute(query_sql("unbound_calls_named"), {"names": json.dumps(names)}),
                           tuple[str, int]))


def _spec(row: Section) -> WalkSpec:
    assert row.walk is not None, row.name
    return row.walk


def resolved_calls(reading: Reading, row: Section) -> Found | None:
    """What the anchor (its methods and nested definitions too) calls by the resolver's references
    and the graph's ``calls`` walk does not reach; then its calls on values of unknown type, which
    the resolver binds to nothing: each is named with how many definitions carry the name, and
    with the definition itself when only one does (``evidence: textual``: a match by name, never
    a binding). None when the resolver has no definition of the anchor."""
    connection = reading.connection
    definitions = resolved.anchor_definitions(connection, reading.node)
    if not definitions:
        return None
    members = {s.reached for s in reading.walk((reading.node,), WalkSpec(OUTGOING, MEMBERS, 1)).steps}
    starts = (reading.node, *sorted(members - {reading.node}))
    known = set(starts) | {s.reached for s in reading.walk(starts, WalkSpec(OUTGOING, CALLS, 2)).steps}
    rows = fetch_rows(connection.execute(query_sql("resolved_calls_from"), {
        "definitions": json.dumps(definitions), "roles": json.dumps(list(CALL_ROLES)), "limit": MAX_READ + 1}),
        tuple[int | None, int | None, str, str, int, int, int | None])
    limited = len(rows) > MAX_READ
    bound: dict[int, tuple[str, int]] = {}
    unbound: dict[str, tuple[str, int, int]] = {}
    called: dict[int, tuple[int, str, int]] = {}  # each definition called: its key, where first (overrides run there)
    own = set(definitions)
    for definition, node, name, path, line, candidates, init_of in rows[:MAX_READ]:
        if definition is None:
            unbound.setdefault(name, (path, line, candidates))
        elif definition not in own and init_of not in known:  # an instantiation the graph has as its class's
            key = node if node is not None else -definition
            called.setdefault(definition, (key, path, line))
            if key not in known:
                bound.setdefault(key, (path, line))
    dispatched = _dispatch_targets(reading, called, set(bound) | known)
    single = _single_definitions(reading, [name for name, (_, _, n) in unbound.items() if n == 1])
    named = resolved.describe_keys(connection, sorted(set(bound) | set(single.values()) | set(dispatched)
                                                      | {base for base, _ in dispatched.values()}))
    items: list[dict[str, Any]] = []
    for key, (path, line) in sorted(bound.items(), key=lambda kv: (kv[1], kv[0])):
        items.append({**named[key], "hop": 1, "relation": "call", "confidence": resolved.RESOLVED,
                      "evidence": resolved.RESOLVED, "site": {"path": path, "line": line}})
    for key, (base, (path, line)) in sorted(dispatched.items(), key=lambda kv: (kv[1][1], kv[0])):
        items.append({**named[key], "hop": 1, "relation": DISPATCH, "confidence": resolved.RESOLVED,
                      "evidence": resolved.RESOLVED, "via": named[base]["label"], "site": {"path": path, "line": line}})
    for name, (path, line, candidates) in sorted(unbound.items(), key=lambda kv: (kv[1][:2], kv[0])):
        head = dict(named[single[name]]) if name in single else {"label": name, "kind": "name", "path": path,
                                                                 "line": line}
        items.append({**head, "hop": 1, "relation": UNKNOWN_RECEIVER, "confidence": "name_match",
                      "evidence": "textual", "candidates": candidates, "site": {"path": path, "line": line}})
    unknown = len(unbound)
    shown = items[:reading.limit]

    def shape(keep: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
        section = filled(row, keep, total, cut)
        section["unknown_receivers"] = unknown
        if unknown and section["detail"] is None:
            section["detail"] = (f"{unknown} call(s) in it are on values whose type the resolver cannot tell, "
                                 "matched by name only: what it calls may be incomplete, or another definition.")
        return section

    return Found(shown, len(items), limited, shape)


def _dispatch_targets(reading: Reading, called: dict[int, tuple[int, str, int]],
                      listed: set[int]) -> dict[int, tuple[int, tuple[str, int]]]:
    """The overrides of each definition called (a call bound to a base method may run any of
    them), as walk keys: override -> (the called method's key, the call site); none already listed."""
    if not called:
        return {}
    found: dict[int, tuple[int, tuple[str, int]]] = {}
    for base, definition, node in fetch_rows(reading.connection.execute(query_sql("dispatch_targets"), {
            "definitions": json.dumps(sorted(called)), "depth": OVERRIDE_DEPTH, "limit": MAX_READ}),
            tuple[int, int, int | None]):
        key = node if node is not None else -definition
        if key not in listed and key not in found:
            base_key, path, line = called[base]
            found[key] = (base_key, (path, line))
    return found


def _single_definitions(reading: Reading, names: list[str]) -> dict[str, int]:
    """The one definition (as a walk key) of each name only one definition carries."""
    if not names:
        return {}
    found: dict[str, int] = {}
    for name, definition, node in fetch_rows(reading.connection.execute(
            query_sql("definitions_named"), {"names": json.dumps(sorted(names))}), tuple[str, int, int | None]):
        found[name] = node if node is not None else -definition
    return found
