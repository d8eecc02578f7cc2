"""Compose one intent: resolve the anchor, run its bounded walks, shape and budget the answer.

Reads only the open index (nodes, adjacency, edges, census), never git or the provider's JSON,
so an answer is a function of the generation, the intent, the target and the budget. The
generation's identity and freshness come in from the caller (``run``) as plain data. The prose
(``answer``, each section's ``detail``, the next actions) names labels and paths as they are,
then is made ``printable_prose`` once, before the answer's id: a host that prints it prints no
control character, while ``path``/``label``/``cite`` keep the exact name.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import Any

import apsw

from ..base.envelope import next_action, remedy_actions, reply
from ..base.printable import printable_prose
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..evidence.documents import CitationChecker
from ..fleet.usages import FleetSection, unsearched_note
from ..query.answerids import answer_id
from .budget import fit
from .coupling import coupled_with, read_params
from .relations import CALLS, WALKS, used_relations
from .resolve import Resolution, followable, resolve
from .sections import (
    HOP_GROUPS,
    INTENTS,
    MAX_ITEMS,
    MENTION_SECTIONS,
    PRIMITIVES,
    UNTRAVERSABLE,
    behind_borders,
    coupling_section,
    filled,
    mention_section,
    unavailable,
)
from .shape import CODE_CONTEXT_SCHEMA, ID_PLACEHOLDER, LIST_HEAD, CitationBook, capability_id, listed, shown_cite, tag
from .textual import homonym_note, mention_facts, mention_items
from .walks import MAX_READ, walk

NEXT_INTENT = {"how": "usage", "usage": "impact", "impact": "tests", "tests": "impact"}


def compose(
    connection: apsw.Connection, intent: str, target: str, graph: dict[str, Any],
    freshness: dict[str, Any], max_chars: int, history: apsw.Connection | None = None,
    cross_repo: Callable[[str], FleetSection | None] | None = None,
) -> dict[str, Any]:
    """The answer; ``history`` is the generation's change-coupling file when it is built;
    ``cross_repo`` gives the fleet's section for the anchor's label (None: no fleet), whose
    members' freshness goes under ``freshness.fleet`` (outside the id, as the checkout's own)."""
    resolution = resolve(connection, target)
    names = INTENTS[intent]
    if resolution.status != "resolved":
        return _unanswered(connection, intent, target, resolution, names, graph, freshness, max_chars)
    node = resolution.anchors[0]
    anchor = _describe(connection, [node])[node]
    aside = list(_describe(connection, list(resolution.set_aside)).values()) if resolution.set_aside else []
    facts = mention_facts(connection, anchor["label"], node) if set(names) & set(MENTION_SECTIONS) else None
    touched = {node}  # the anchor and every node a walk reached: where an untraversable border shows
    raw = {name: _section(connection, name, node, history, anchor["path"], facts, touched) for name in names}
    untraversable = _borders_among(connection, touched)
    fleet = cross_repo(anchor["label"]) if cross_repo is not None and "cross_repo" in names else None
    fleet_section = fleet.section if fleet is not None else None
    if fleet is not None:
        freshness = {**freshness, "fleet": fleet.freshness}
    book_checker = CitationChecker(connection)

    def build(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        book = CitationBook(book_checker.confirms, graph["commit"])
        anchor_item = _cited(dict(anchor), book)
        bindings = [_cited(dict(item), book) for item in aside[:LIST_HEAD]]  # the prose names these
        sections: dict[str, Any] = {}
        omissions = []
        for name in names:
            found = raw[name]
            if found is None:
                sections[name] = fleet_section if name == "cross_repo" and fleet_section else unavailable(name)
                continue
            items, total, read_limited, *coupling = found
            keep = [_cited(dict(item), book) for item in items[: shown[name]]]
            dropped_by = "max_chars" if dropped[name] else "max_items" if shown[name] < total else None
            # A walk cut at its read bound keeps saying so whatever else cut the list: its total
            # is then a lower bound, and the prose must say "at least".
            cut = "read_limit" if read_limited else dropped_by
            if name in MENTION_SECTIONS and facts is not None:
                sections[name] = mention_section(name, keep, total, cut, facts, graph["commit"])
            elif coupling:
                status, params, path, revs, explained = coupling[0]
                sections[name] = coupling_section(name, status, params, path, revs, explained, keep, total, cut)
            else:
                sections[name] = filled(name, keep, total, cut)
            if total > len(keep):
                omissions.append({"section": name, "dropped": total - len(keep), "by": dropped_by or cut})
        if untraversable:
            _not_none_behind_borders(sections, facts, graph["commit"])
            omissions.append({"section": None, "dropped": None, "by": "untraversable"})
        if "mentions" in sections:
            _not_uncalled(sections)
        document = reply(
            CODE_CONTEXT_SCHEMA, "answered",
            _prose(anchor_item, sections, bindings, len(resolution.set_aside), untraversable),
            intent=intent, target=target, anchors=[anchor_item], sections=sections, citations=book.entries,
            used_primitives=list(PRIMITIVES[intent]), used_relations=used_relations(names), graph=graph,
            freshness=freshness,
            bounds={"max_items": MAX_ITEMS, "max_chars": max_chars, "max_read": MAX_READ,
                    "truncated": bool(omissions), "unverified_citations": book.unverified, "omissions": omissions},
            capability_id=capability_id(intent, target), answer_id=ID_PLACEHOLDER,
            next_actions=_next_actions(intent, target, freshness, omissions, max_chars),
        )
        printable_prose(document)
        document["answer_id"] = answer_id(document)
        return document

    shown = {name: min(len(found[0]), MAX_ITEMS) for name, found in raw.items() if found is not None}
    shown.update({name: 0 for name, found in raw.items() if found is None})
    return fit(shown, max_chars, build)


UNTRAVERSABLE_PROSE = ("Next to what it reached, the graph left out records in files whose names no citation "
                       "can carry (a tab, an escape or another control character in the name): their relationships "
                       "are in no section (untraversable).")


def _borders_among(connection: apsw.Connection, nodes: set[int]) -> bool:
    """Whether any of ``nodes`` borders an untraversable record (``query/answer.py`` raises the
    seed questions' ``provider_warning`` from the same table)."""
    rows = connection.execute(query_sql("borders_among"), {"nodes": json.dumps(sorted(nodes))})
    return any(True for _ in rows)


def _not_none_behind_borders(sections: dict[str, Any], facts: dict[str, Any] | None, commit: str) -> None:
    """An empty walk or mention section next to an untraversable border is no evidence of none:
    the walk could not pass the records the graph left out, and the text index never reads a
    file no citation can name. Such a section says so (``untraversable``) instead of "none"."""
    for name, section in sections.items():
        if section["status"] != "empty":
            continue
        if name in WALKS:
            detail = (f"The {name.replace('_', ' ')} walk found none it can cite within depth {WALKS[name].depth}, "
                      "but records next to it were left out (files whose names no citation can carry), so this "
                      "is not evidence of none.")
        elif name in MENTION_SECTIONS and facts is not None and facts["name"] is not None:
            detail = (f"The lines of commit {commit[:12]} the text index read hold no use of `{facts['name']}` "
                      "outside the graph's relationships, but it reads no file whose name no citation can carry, "
                      "and the graph left out records of such files next to it.")
        else:
            continue
        behind_borders(section, detail)


def _not_uncalled(sections: dict[str, Any]) -> None:
    """An empty graph caller section beside textual mentions must not read as "no callers": the
    name is used in this commit, only the graph does not carry those uses. A name too common to
    list says so, since the mentions section then holds nothing to look at."""
    mentions = sections["mentions"]
    if not mentions["total"]:
        return
    if mentions["reason"] == "common_name":
        used = (f"more than {mentions['total'] - 1} line(s) of this commit use it by name, too common a name "
                "to list them (common_name)")
    else:
        used = f"{mentions['total']} line(s) of this commit use it by name (see mentions)"
    for name in ("callers", "callers_by_hop"):
        section = sections.get(name)
        if section is not None and section["status"] == "empty":
            depth = WALKS[name].depth
            section["detail"] = f"The graph holds none of its callers within depth {depth}, but {used}."


def _describe(connection: apsw.Connection, numbers: list[int]) -> dict[int, dict[str, Any]]:
    rows = connection.execute(query_sql("describe_nodes"), {"nodes": json.dumps(sorted(set(numbers)))})
    return {row[0]: {"label": row[1], "kind": row[4], "path": row[2], "line": row[3]} for row in rows}


def _section(
    connection: apsw.Connection, name: str, node: int, history: apsw.Connection | None, path: str,
    facts: dict[str, Any] | None, touched: set[int],
) -> tuple[Any, ...] | None:
    """(items in report order, total, read_limited[, coupling facts]) for a section this index
    (and history) can fill, else None; a walk adds every node it reached to ``touched``."""
    if name in MENTION_SECTIONS:
        assert facts is not None
        return (*mention_items(connection, facts, tests_only=name == "test_mentions"), False)
    if name in ("change_coupling", "hidden_coupling"):
        return None if history is None else _coupling(connection, history, path, hidden=name == "hidden_coupling")
    if name == "similar":
        return _similar(connection, node)
    if name in ("rationale", "concepts"):
        return _rationale(connection, node, concepts_only=name == "concepts")
    if name not in WALKS:
        return None
    reach = walk(connection, (node,), WALKS[name])
    steps = list(reach.steps)
    touched.update(s.reached for s in steps)
    by_node = {s.reached: s for s in steps if s.reached != s.origin}  # a self-loop leads nowhere
    if name == "tests":
        rows = connection.execute(query_sql("tests_among"), {"nodes": json.dumps([s.reached for s in steps])})
        tests = {row[0] for row in rows}
        steps = [s for s in steps if s.reached in tests]
    # Only what can be shown is described: a hub's thousands of callers are counted, not built.
    shown = steps[:MAX_ITEMS]
    wanted = {node} | {s.reached for s in shown} | {s.origin for s in shown}
    if name == "tests":
        for step in shown:
            wanted.update(s.origin for s in _chain(step, by_node))
    nodes = _describe(connection, list(wanted))
    items = []
    for step in shown:
        item = dict(nodes[step.reached])
        item.update(hop=step.hop, relation=step.relation, confidence=step.confidence,
                    via=nodes[step.origin]["label"],
                    site={"path": step.site_path, "line": step.site_line} if step.site_path else None)
        if name == "callers_by_hop":
            item["group"] = HOP_GROUPS[step.hop]
        if name == "tests":
            item["reaching"] = _reaching(step, by_node, nodes)
        items.append(item)
    return items, len(steps), reach.read_limited


def _chain(step: Any, by_node: dict[int, Any]) -> list[Any]:
    """The steps from a reached node back to the anchor (at most the walk's depth)."""
    chain = []
    for _ in range(WALKS["tests"].depth):
        if step is None:
            break
        chain.append(step)
        step = by_node.get(step.origin)
    return chain


def _reaching(step: Any, by_node: dict[int, Any], nodes: dict[int, dict[str, Any]]) -> list[str]:
    """The labels from the test to the anchor along the edges that reached it."""
    return [nodes[step.reached]["label"]] + [f"{s.relation} {nodes[s.origin]['label']}" for s in _chain(step, by_node)]


def _similar(connection: apsw.Connection, node: int) -> tuple[list[dict[str, Any]], int, bool]:
    rows = fetch_rows(connection.execute(
        query_sql("similar_by_callees"),
        {"anchor": node, "relations": json.dumps(list(CALLS)), "limit": MAX_READ + 1},
    ), tuple[int, int, int, int])
    limited = len(rows) > MAX_READ
    rows = rows[:MAX_READ]
    nodes = _describe(connection, [row[0] for row in rows[:MAX_ITEMS]])
    items = []
    for peer, shared, theirs, ours in rows[:MAX_ITEMS]:
        item = dict(nodes[peer])
        item.update(shared=shared, jaccard=f"{shared}/{ours + theirs - shared}")
        items.append(item)
    return items, len(rows), limited


def _rationale(
    connection: apsw.Connection, node: int, *, concepts_only: bool
) -> tuple[list[dict[str, Any]], int, bool]:
    rows = fetch_rows(
        connection.execute(query_sql("rationale_of"), {"node": node, "limit": MAX_READ + 1}),
        tuple[str, int, str, int],
    )
    limited = len(rows) > MAX_READ
    items = [{"text": text, "truncated": bool(truncated), "path": path, "line": line}
             for path, line, text, truncated in rows[:MAX_READ]
             if not concepts_only or is_concept(text)]
    return items, len(items), limited


def _coupling(connection: apsw.Connection, history: apsw.Connection, path: str, *, hidden: bool) -> tuple[Any, ...]:
    found = coupled_with(history, path) if path else None
    if found is None:
        params = read_params(history)
        return [], 0, False, ("insufficient_history", params, path, 0, 0)
    pairs = list(found.pairs)
    explained = 0
    if hidden and pairs:
        rows = connection.execute(query_sql("file_neighbourhood"), {"path": path, "limit": MAX_READ})
        near = {row[0] for row in rows}
        unexplained = [pair for pair in pairs if pair[0] not in near and pair[0] != path]
        pairs, explained = unexplained, len(pairs) - len(unexplained)
    items = [{"label": other, "kind": "file", "path": other, "line": None, "shared": shared, "revs": revs_other,
              "degree": degree} for other, shared, _, revs_other, degree in pairs[:MAX_ITEMS]]
    return items, len(pairs), False, (found.status, found.params, path, found.revs, explained)


def is_concept(text: str) -> bool:
    """A ``CONCEPT:`` marker, behind whatever comment leader the language uses."""
    return text.lstrip("#/*! ").startswith("CONCEPT:")


def _cited(item: dict[str, Any], book: CitationBook) -> dict[str, Any]:
    item["cite"] = book.cite(item["path"], item["line"])
    site = item.get("site")
    if site is not None:
        item["site"] = {"path": site["path"], "line": site["line"], "cite": book.cite(site["path"], site["line"])}
    return item


def _prose(
    anchor: dict[str, Any], sections: dict[str, Any], bindings: list[dict[str, Any]], set_aside: int,
    untraversable: bool,
) -> str:
    where = (f"{anchor['path']}#L{anchor['line']}" if anchor["line"] else anchor["path"]) or "no source location"
    sentences = [f"{tag(anchor['label'], anchor['cite'])} ({anchor['kind']}) is defined at {where}."]
    if set_aside:
        named = [tag(item["label"], item["cite"]) for item in bindings]
        sentences.append(f"It was chosen over {set_aside} variable binding(s) of the same name, which define "
                         f"nothing themselves: {listed(named, set_aside)}.")
    missing = []
    for name, section in sections.items():
        if section["status"] == "unavailable":
            missing.append(f"{name} ({section['reason']})")
        elif section["status"] == "empty" or section.get("reason") == UNTRAVERSABLE:
            sentences.append(section["detail"])
        elif section.get("reason") == "read_limit" and not section["items"]:
            sentences.append(f"The {name.replace('_', ' ')} walk stopped at its read bound on a large hub before "
                             "finding any, so this is not evidence of none.")
        else:
            sentences.append(_SENTENCES[name](section))
    if untraversable:
        sentences.append(UNTRAVERSABLE_PROSE)
    if missing:
        sentences.append("Not available: " + ", ".join(missing) + ".")
    return " ".join(sentences)


def _names(section: dict[str, Any]) -> list[str]:
    """Each item's name with the id its table row shows (``shown_cite``), so prose and table agree."""
    return [tag(item["label"], shown_cite(item)) for item in section["items"]]


def _count(section: dict[str, Any]) -> str:
    """The section's total as the prose may state it: a walk cut at its read bound counted only
    what it read, so its total is a lower bound."""
    return f"at least {section['total']}" if section.get("reason") == "read_limit" else str(section["total"])


def _list(section: dict[str, Any], parts: list[str] | None = None) -> str:
    """The section's items for the prose ("…and N more", "at least" at the read bound)."""
    return listed(_names(section) if parts is None else parts, section["total"],
                  at_least=section.get("reason") == "read_limit")


def _by_hop(section: dict[str, Any]) -> str:
    groups = []
    for hop, group in HOP_GROUPS.items():
        members = [item for item in section["items"] if item["hop"] == hop]
        if members:
            names = [tag(i["label"], shown_cite(i)) for i in members]
            groups.append(f"{group.replace('_', ' ')} (hop {hop}): {listed(names, len(names))}")
    return f"Changing it reaches {_count(section)} node(s) — " + "; ".join(groups) + "."


def _quotes(section: dict[str, Any]) -> str:
    quotes = [f"“{item['text']}”" + (f" [{item['cite']}]" if item["cite"] else "") for item in section["items"]]
    return f"It says about itself ({_count(section)}): {_list(section, quotes)}."


def _mentioned(section: dict[str, Any], tests: bool) -> str:
    """The textual uses, never worded as calls unless they are: ``calls`` counts the lines whose
    form is a call (``name(``, ``x.name(``); the rest (import lists, ``x.name``, a bare name)
    are other references."""
    if section["reason"] == "common_name":
        return section["detail"]
    if tests:
        text = f"{section['total']} test(s) use it by name, not in the graph (textual): {_list(section)}."
    else:
        calls, others = section["calls"], section["total"] - section["calls"]
        text = (f"{section['total']} more line(s) use it by name, not in the graph (textual; {calls} call(s), "
                f"{others} other reference(s)): {_list(section)}.")
    elsewhere = sum(1 for item in section["items"] if "linked_to" in item)
    if elsewhere:
        text += (f" The graph links {elsewhere} of those shown to another definition of the name (linked_to), "
                 "not to this one.")
    note = homonym_note(section["homonyms"])
    return text if note is None else f"{text} {note}"


def _coupled(section: dict[str, Any], hidden: bool) -> str:
    parts = [f"{tag(i['label'], i['cite'])} in {i['shared']} commits ({i['degree']}%)" for i in section["items"]]
    tail = ", with no graph path between them" if hidden else ""
    return f"Changed together with {listed(parts, section['total'])}{tail}."


_SENTENCES = {
    "change_coupling": lambda s: _coupled(s, False),
    "hidden_coupling": lambda s: _coupled(s, True),
    "rationale": _quotes,
    "concepts": lambda s: "Concept markers: " + _list(s, [f"“{i['text']}” [{i['cite']}]" for i in s["items"]]) + ".",
    "calls": lambda s: f"It calls {_count(s)}: {_list(s)}.",
    "defines": lambda s: f"It defines {_count(s)}: {_list(s)}.",
    "callers": lambda s: f"Used by {s['shown']} of {_count(s)} caller(s): {_list(s)}.",
    "references": lambda s: f"Referenced by {_count(s)}: {_list(s)}.",
    "tests": lambda s: f"{_count(s)} test(s) reach it: {_list(s)}.",
    "similar": lambda s: f"Structurally similar (shared callees): {_list(s)}.",
    "cross_repo": lambda s: f"Used from other repositories of the fleet {s['fleet']} ({s['total']}): "
    + _list(s, [f"{i['repository']} {i['citation']}" for i in s["items"]]) + unsearched_note(s["coverage"]) + ".",
    "callers_by_hop": _by_hop,
    "mentions": lambda s: _mentioned(s, False),
    "test_mentions": lambda s: _mentioned(s, True),
}


def context_action(why: str, intent: str, target: str, max_chars: int | None = None) -> dict[str, Any]:
    """A next action that asks ``code_context`` again: its command and its tool call."""
    arguments: dict[str, Any] = {"target": target, "intent": intent}
    command = f"cm-graph context {intent} {shlex.quote(target)}"
    if max_chars is not None:
        arguments["max_chars"] = max_chars
        command += f" --max-chars {max_chars}"
    return next_action(why, command, "code_context", arguments)


def _next_actions(
    intent: str, target: str, freshness: dict[str, Any], omissions: list[dict[str, Any]], max_chars: int
) -> list[dict[str, Any]]:
    actions = []
    if freshness.get("state") != "current":
        actions += remedy_actions("stale")
    if any(o["by"] == "max_chars" for o in omissions):
        actions.append(context_action("items were dropped to fit the budget", intent, target, max_chars * 2))
    follow = NEXT_INTENT[intent]
    actions.append(context_action(f"then the {follow} intent", follow, target))
    return actions


def _unanswered(
    connection: apsw.Connection, intent: str, target: str, resolution: Resolution, names: tuple[str, ...],
    graph: dict[str, Any], freshness: dict[str, Any], max_chars: int,
) -> dict[str, Any]:
    """Ambiguous (candidates, never a silent pick) or unresolved (ranked suggestions)."""
    nodes = _describe(connection, list(resolution.anchors))
    book = CitationBook(CitationChecker(connection).confirms, graph["commit"])
    candidates = [_cited(dict(nodes[n]), book) for n in resolution.anchors]
    if resolution.status == "ambiguous":
        # Each candidate carries the target that resolves to it (checked by resolving it): two
        # definitions in one file are told apart by line, never by a path::name that is ambiguous again.
        for number, candidate in zip(resolution.anchors, candidates, strict=True):
            candidate["resolve_as"] = followable(connection, number, candidate["path"], candidate["label"],
                                                 candidate["line"])
        named = [tag(c["resolve_as"] or c["label"], c["cite"]) for c in candidates]
        text = f"`{target}` names {resolution.total} definitions; name one as {listed(named, resolution.total)}."
        actions = [context_action(f"the one at {c['path']}" + (f"#L{c['line']}" if c["line"] else ""), intent,
                                  c["resolve_as"]) for c in candidates if c["resolve_as"]]
    else:
        hint = f" Similar names: {', '.join(resolution.suggestions)}." if resolution.suggestions else ""
        text = f"`{target}` names no symbol or path in this graph.{hint}"
        actions = [context_action("a similar name", intent, s) for s in resolution.suggestions]
    document = reply(
        CODE_CONTEXT_SCHEMA, resolution.status, text, intent=intent, target=target, anchors=candidates,
        candidates={"shown": len(candidates), "total": resolution.total}, suggestions=list(resolution.suggestions),
        sections={}, citations=book.entries, used_primitives=[], used_relations=used_relations(names), graph=graph,
        freshness=freshness,
        bounds={"max_items": MAX_ITEMS, "max_chars": max_chars, "max_read": MAX_READ, "truncated": False,
                "unverified_citations": book.unverified, "omissions": []},
        capability_id=capability_id(intent, target), answer_id=ID_PLACEHOLDER, next_actions=actions,
    )
    printable_prose(document)
    document["answer_id"] = answer_id(document)
    return document
