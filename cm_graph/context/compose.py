"""Compose one intent: resolve the anchor, fill its sections (their rows, ``section_table.py``),
shape and budget the answer.

Reads only the open index (nodes, adjacency, edges, census), the change-coupling history and the
fleet's usages the caller hands in, never git or the provider's JSON, so an answer is a function
of the generation, the intent, the target and the budget. The generation's identity and freshness
come in from the caller (``from_workspace``) as plain data. The prose (``answer``, each section's
``detail``, the next actions) names labels and paths as they are, then is made ``printable_prose``
once, before the answer's id: a host that prints it prints no control character, while
``path``/``label``/``cite`` keep the exact name.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import apsw

from ..base.envelope import next_action, remedy_actions, reply
from ..base.printable import printable_prose
from ..base.sqlfiles import query_sql
from ..evidence.documents import CitationChecker
from ..query.answerids import answer_id, capability_id
from .budget import MAX_ITEMS, fit
from .composers import describe
from .intents import INTENTS
from .resolve import Resolution, followable, resolve
from .section_table import BY_NAME, SECTIONS_OF, used_primitives, used_relations
from .sections import UNTRAVERSABLE, FleetUsages, Reading, Section, behind_borders, filled, unavailable
from .shape import CODE_CONTEXT_SCHEMA, ID_PLACEHOLDER, LIST_HEAD, CitationBook, listed, tag
from .walks import MAX_READ

NEXT_INTENT = {intent.name: intent.then for intent in INTENTS}


def compose(
    connection: apsw.Connection, intent: str, target: str, graph: dict[str, Any],
    freshness: dict[str, Any], max_chars: int, history: apsw.Connection | None = None,
    fleet: FleetUsages | None = None,
) -> dict[str, Any]:
    """The answer; ``history`` is the generation's change-coupling file when it is built; ``fleet``
    gives the fleet's usages of the anchor's label (None: no fleet), whose members' freshness goes
    under ``freshness.fleet`` (outside the id, as the checkout's own)."""
    resolution = resolve(connection, target)
    rows = SECTIONS_OF[intent]
    if resolution.status != "resolved":
        return _unanswered(connection, intent, target, resolution, rows, graph, freshness, max_chars)
    node = resolution.anchors[0]
    anchor = describe(connection, [node])[node]
    aside = list(describe(connection, list(resolution.set_aside)).values()) if resolution.set_aside else []
    reading = Reading(connection, node, anchor, graph["commit"], history, fleet)
    raw = {row.name: row.compose(reading, row) if row.compose is not None else None for row in rows}
    ran = [row for row in rows if raw[row.name] is not None]
    untraversable = _borders_among(connection, reading.touched)
    for found in raw.values():
        if found is not None and found.freshness is not None:
            freshness = {**freshness, **found.freshness}
    book_checker = CitationChecker(connection)

    def build(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        book = CitationBook(book_checker.confirms, graph["commit"])
        anchor_item = _cited(dict(anchor), book)
        bindings = [_cited(dict(item), book) for item in aside[:LIST_HEAD]]  # the prose names these
        sections: dict[str, Any] = {}
        omissions = []
        for row in rows:
            name, found = row.name, raw[row.name]
            if found is None:
                sections[name] = unavailable(row)
                continue
            keep = [_cited(dict(item), book) for item in found.items[: shown[name]]]
            dropped_by = "max_chars" if dropped[name] else "max_items" if shown[name] < found.total else None
            # A walk cut at its read bound keeps saying so whatever else cut the list: its total
            # is then a lower bound, and the prose must say "at least".
            cut = "read_limit" if found.read_limited else dropped_by
            sections[name] = (found.shape(keep, found.total, cut) if found.shape is not None
                              else filled(row, keep, found.total, cut))
            if found.total > len(keep):
                omissions.append({"section": name, "dropped": found.total - len(keep), "by": dropped_by or cut})
        if untraversable:
            _not_none_behind_borders(rows, sections, reading)
            omissions.append({"section": None, "dropped": None, "by": "untraversable"})
        if "mentions" in sections:
            _not_uncalled(sections)
        document = reply(
            CODE_CONTEXT_SCHEMA, "answered",
            _prose(anchor_item, rows, sections, bindings, len(resolution.set_aside), untraversable),
            intent=intent, target=target, anchors=[anchor_item], sections=sections, citations=book.entries,
            used_primitives=used_primitives(ran), used_relations=used_relations(rows), graph=graph,
            freshness=freshness,
            bounds={"max_items": MAX_ITEMS, "max_chars": max_chars, "max_read": MAX_READ,
                    "truncated": bool(omissions), "unverified_citations": book.unverified, "omissions": omissions},
            capability_id=capability_id("code_context", intent, target), answer_id=ID_PLACEHOLDER,
            next_actions=_next_actions(intent, target, freshness, omissions, max_chars),
        )
        printable_prose(document)
        document["answer_id"] = answer_id(document)
        return document

    shown = {row.name: min(len(found.items), MAX_ITEMS) if (found := raw[row.name]) is not None else 0
             for row in rows}
    return fit(shown, max_chars, build)


UNTRAVERSABLE_PROSE = ("Next to what it reached, the graph left out records in files whose names no citation "
                       "can carry (a tab, an escape or another control character in the name): their relationships "
                       "are in no section (untraversable).")


def _borders_among(connection: apsw.Connection, nodes: set[int]) -> bool:
    """Whether any of ``nodes`` borders an untraversable record (``query/answer.py`` raises the
    seed questions' ``provider_warning`` from the same table)."""
    rows = connection.execute(query_sql("borders_among"), {"nodes": json.dumps(sorted(nodes))})
    return any(True for _ in rows)


def _not_none_behind_borders(rows: tuple[Section, ...], sections: dict[str, Any], reading: Reading) -> None:
    """An empty walk or mention section next to an untraversable border is no evidence of none:
    the walk could not pass the records the graph left out, and the text index never reads a
    file no citation can name. Such a section says so (``untraversable``) instead of "none"."""
    for row in rows:
        section = sections[row.name]
        if section["status"] != "empty":
            continue
        if row.walk is not None:
            detail = (f"The {row.name.replace('_', ' ')} walk found none it can cite within depth {row.walk.depth}, "
                      "but records next to it were left out (files whose names no citation can carry), so this "
                      "is not evidence of none.")
        elif row.textual and (word := reading.mentions()["name"]) is not None:
            detail = (f"The lines of commit {reading.commit[:12]} the text index read hold no use of `{word}` "
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
        walk = BY_NAME[name].walk
        if section is not None and section["status"] == "empty" and walk is not None:
            section["detail"] = f"The graph holds none of its callers within depth {walk.depth}, but {used}."


def _cited(item: dict[str, Any], book: CitationBook) -> dict[str, Any]:
    item["cite"] = book.cite(item["path"], item["line"])
    site = item.get("site")
    if site is not None:
        item["site"] = {"path": site["path"], "line": site["line"], "cite": book.cite(site["path"], site["line"])}
    return item


def _prose(
    anchor: dict[str, Any], rows: tuple[Section, ...], sections: dict[str, Any], bindings: list[dict[str, Any]],
    set_aside: int, untraversable: bool,
) -> str:
    where = (f"{anchor['path']}#L{anchor['line']}" if anchor["line"] else anchor["path"]) or "no source location"
    sentences = [f"{tag(anchor['label'], anchor['cite'])} ({anchor['kind']}) is defined at {where}."]
    if set_aside:
        named = [tag(item["label"], item["cite"]) for item in bindings]
        sentences.append(f"It was chosen over {set_aside} variable binding(s) of the same name, which define "
                         f"nothing themselves: {listed(named, set_aside)}.")
    missing = []
    for row in rows:
        name, section = row.name, sections[row.name]
        if section["status"] == "unavailable":
            missing.append(f"{name} ({section['reason']})")
        elif section["status"] == "empty" or section.get("reason") == UNTRAVERSABLE:
            sentences.append(section["detail"])
        elif section.get("reason") == "read_limit" and not section["items"]:
            sentences.append(f"The {name.replace('_', ' ')} walk stopped at its read bound on a large hub before "
                             "finding any, so this is not evidence of none.")
        else:
            assert row.sentence is not None, name  # a section holding items was filled: its row says it
            sentences.append(row.sentence(section))
    if untraversable:
        sentences.append(UNTRAVERSABLE_PROSE)
    if missing:
        sentences.append("Not available: " + ", ".join(missing) + ".")
    return " ".join(sentences)


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
    connection: apsw.Connection, intent: str, target: str, resolution: Resolution, rows: tuple[Section, ...],
    graph: dict[str, Any], freshness: dict[str, Any], max_chars: int,
) -> dict[str, Any]:
    """Ambiguous (candidates, never a silent pick) or unresolved (ranked suggestions)."""
    nodes = describe(connection, list(resolution.anchors))
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
        sections={}, citations=book.entries, used_primitives=[], used_relations=used_relations(rows), graph=graph,
        freshness=freshness,
        bounds={"max_items": MAX_ITEMS, "max_chars": max_chars, "max_read": MAX_READ, "truncated": False,
                "unverified_citations": book.unverified, "omissions": []},
        capability_id=capability_id("code_context", intent, target), answer_id=ID_PLACEHOLDER, next_actions=actions,
    )
    printable_prose(document)
    document["answer_id"] = answer_id(document)
    return document
