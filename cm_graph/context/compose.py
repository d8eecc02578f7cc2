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
from ..base.printable import PROSE_FIELDS, printable, printable_prose
from ..base.records import record
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..evidence.documents import CitationChecker
from ..query.answerids import answer_id, capability_id
from ..query.targets import reexport_entry
from .budget import DEFAULT_ITEMS, fit
from .gaps import gaps_note, item_paths, textual_answer, textual_definition
from .intents import INTENTS
from .nodes import describe
from .observed import Observed
from .paging import Cursor, check_answer, check_generation, cursor_for
from .relations import REACHES_TESTS
from .resolve import Resolution, followable, resolve
from .resolved import file_status
from .section_table import BY_NAME, NOT_RESOLVED, RESOLVER_SILENCE, SECTIONS_OF, used_primitives, used_relations
from .sections import (
    DYNAMIC_SEARCHED,
    UNTRAVERSABLE,
    FleetUsages,
    Found,
    Reading,
    Section,
    behind_borders,
    filled,
    unavailable,
)
from .sentences import count, dynamic_uses, resolved_more, textual_tests, unseen
from .shape import (
    AT_SITE,
    CODE_CONTEXT_SCHEMA,
    ID_PLACEHOLDER,
    LIST_HEAD,
    CitationBook,
    encode,
    listed,
    navigated,
    shown_cite,
    tag,
)
from .sites import local_name
from .use_lines import add_also, add_self_uses, lines_left_out, use_lines
from .walks import MAX_READ

NEXT_INTENT = {intent.name: intent.then for intent in INTENTS}
FIRST_SECTION = {intent.name: intent.first for intent in INTENTS}


@record
class _Read:
    """One resolved anchor and what its sections found, before the budget chooses what is shown."""

    rows: tuple[Section, ...]
    anchor: dict[str, Any]
    aside: list[dict[str, Any]]  # the variable bindings it was chosen over, described
    set_aside: int
    reading: Reading
    raw: dict[str, Found | None]
    ran: list[Section]
    untraversable: bool
    freshness: dict[str, Any]
    reexported_by: str | None  # the package entry file a public import path resolved through
    unavailable: dict[str, tuple[str, str]]  # resolved sections with nothing: why (``unavailable_reasons``)


_LANGUAGE_RESOLVERS = {"python": "Python", "javascript": "JavaScript/TypeScript", "typescript": "JavaScript/TypeScript"}


def silence(connection: apsw.Connection, anchor: dict[str, Any]) -> tuple[str, str]:
    """Why the resolver has no definition of ``anchor``, by what it made of the anchor's file (one
    row of ``RESOLVER_SILENCE``)."""
    path = anchor.get("path") or ""
    found = file_status(connection, path) if path else None
    reason, template = RESOLVER_SILENCE[found[1] if found is not None else None]
    language = _LANGUAGE_RESOLVERS.get(found[0], found[0]) if found is not None else ""
    return reason, template.format(path=path or "its file", language=language)


def unavailable_reasons(
    connection: apsw.Connection, anchor: dict[str, Any], rows: tuple[Section, ...], raw: dict[str, Found | None],
) -> dict[str, tuple[str, str]]:
    """The reason and sentence of each resolved section that found nothing to fill it from, read
    once per anchor (a section not listed says its row's own): what every answer composed from
    sections (``code_context``, ``prime``) shows for them."""
    silent = [row.name for row in rows if raw[row.name] is None and row.unavailable == NOT_RESOLVED]
    if not silent:
        return {}
    why = silence(connection, anchor)
    return dict.fromkeys(silent, why)


def compose(
    connection: apsw.Connection, intent: str, target: str, graph: dict[str, Any],
    freshness: dict[str, Any], max_chars: int, history: apsw.Connection | None = None,
    fleet: FleetUsages | None = None, gaps: dict[str, list[dict[str, Any]]] | None = None, *,
    max_items: int = DEFAULT_ITEMS, cursor: Cursor | None = None, observed: Observed | None = None,
) -> dict[str, Any]:
    """The answer; ``history`` is the generation's change-coupling file when it is built; ``fleet``
    gives the fleet's usages of the anchor's label (None: no fleet), whose members' freshness goes
    under ``freshness.fleet`` (outside the id, as the checkout's own); ``gaps`` are the
    definitions the graph lacks, per file (``generation.definitions.gaps_by_path`` of the build record).
    With ``cursor``, the page of one cut section it names, once the answer it pins is checked to be
    this question's answer (``paging.py``)."""
    gaps = gaps or {}
    if cursor is not None:
        return _page(connection, intent, target, graph, freshness, max_chars, history, fleet, max_items, cursor, gaps,
                     observed)
    resolution = resolve(connection, target)
    if resolution.status != "resolved":
        return _unanswered(connection, intent, target, resolution, graph, freshness, max_chars,
                           max_items, gaps)
    read = _read(connection, intent, target, resolution, graph, freshness, history, fleet, max_items, observed)
    return _answer(connection, intent, target, read, graph, max_chars, max_items, gaps)


def _read(
    connection: apsw.Connection, intent: str, target: str, resolution: Resolution, graph: dict[str, Any],
    freshness: dict[str, Any], history: apsw.Connection | None, fleet: FleetUsages | None, limit: int,
    observed: Observed | None = None,
) -> _Read:
    rows = SECTIONS_OF[intent]
    node = resolution.anchors[0]
    anchor = describe(connection, [node])[node]
    aside = list(describe(connection, list(resolution.set_aside)).values()) if resolution.set_aside else []
    reading = Reading(connection, node, anchor, graph["commit"], history, fleet, limit)
    reading.observed = observed
    raw = {row.name: row.compose(reading, row) if row.compose is not None else None for row in rows}
    _cite_every_use(connection, node, anchor, rows, raw)
    for found in raw.values():
        if found is not None and found.freshness is not None:
            freshness = {**freshness, **found.freshness}
    entry = reexport_entry(connection, node, target) if resolution.via == "reexport" else None
    return _Read(rows, anchor, aside, len(resolution.set_aside), reading, raw,
                 [row for row in rows if (found := raw[row.name]) is not None and found.ran],
                 _borders_among(connection, reading.touched),
                 freshness, entry, unavailable_reasons(connection, anchor, rows, raw))


def _answer(
    connection: apsw.Connection, intent: str, target: str, read: _Read, graph: dict[str, Any], max_chars: int,
    max_items: int, gaps: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    rows, raw = read.rows, read.raw
    book_checker = CitationChecker(connection)

    def build(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        book = CitationBook(book_checker.confirms, graph["commit"])
        anchor_item = cite_item(dict(read.anchor), book)
        bindings = [cite_item(dict(item), book) for item in read.aside[:LIST_HEAD]]  # the prose names these
        sections: dict[str, Any] = {}
        omissions = []
        for row in rows:
            name, found = row.name, raw[row.name]
            if found is None:
                sections[name] = unavailable(row, read.unavailable.get(name))
                continue
            keep = [cite_item(dict(item), book, row.of_users) for item in found.items[: shown[name]]]
            dropped_by = "max_chars" if dropped[name] else "max_items" if shown[name] < found.total else None
            # A walk cut at its read bound keeps saying so whatever else cut the list: its total
            # is then a lower bound, and the prose must say "at least".
            cut = "read_limit" if found.read_limited else dropped_by
            sections[name] = (found.shape(keep, found.total, cut) if found.shape is not None
                              else filled(row, keep, found.total, cut))
            if found.total > len(keep):
                omissions.append({"section": name, "dropped": found.total - len(keep), "by": dropped_by or cut})
        if read.untraversable:
            _not_none_behind_borders(rows, sections, read.reading)
            omissions.append({"section": None, "dropped": None, "by": "untraversable"})
        _not_uncalled(sections)
        _no_use_found(sections, graph["commit"], read.reading)
        pages = _pageable(sections)
        for name in pages:
            _says_more(sections[name], name)
        _say_lines_left_out(sections)
        prose = _prose(anchor_item, rows, sections, bindings, read.set_aside, read.untraversable, pages,
                       target, read.reexported_by)
        lacking = gaps_note(gaps, item_paths(anchor_item, sections))
        document = reply(
            CODE_CONTEXT_SCHEMA, "answered", f"{prose} {lacking}" if lacking else prose,
            intent=intent, target=target, anchors=[anchor_item], sections=sections, citations=book.entries,
            used_primitives=used_primitives(read.ran), used_relations=used_relations(_found_none(read.ran, sections)),
            graph=graph,
            freshness=read.freshness,
            bounds={"max_items": max_items, "max_chars": max_chars, "max_read": MAX_READ,
                    "truncated": bool(omissions), "unverified_citations": book.unverified},
            capability_id=capability_id("code_context", intent, target), answer_id=ID_PLACEHOLDER,
        )
        _printable_but(document, "sections")  # the items were made printable once, before the fit
        for section in document["sections"].values():
            _printable_but(section, "items")
        encode(document)
        # A try of the fit is sized with the placeholder id, as long as any id and spelt in the
        # cursors alike, so its size is the answer's; only the answer kept is hashed (``stamp``).
        cuts[id(document)] = {name: sections[name]["shown"] for name in pages}, omissions
        _navigate(document, cuts[id(document)])
        return document

    cuts: dict[int, tuple[dict[str, int], list[dict[str, Any]]]] = {}

    def _navigate(document: dict[str, Any], cut: tuple[dict[str, int], list[dict[str, Any]]]) -> None:
        shown, omissions = cut
        cursors = {name: cursor_for(name, offset, max_chars, max_items, graph["generation"], document["answer_id"])
                   for name, offset in shown.items()}
        actions = _next_actions(intent, target, read.freshness, omissions, max_chars, max_items, cursors)
        printable_prose(actions)  # the rest was made printable before the id
        if "pages" in document:
            document["pages"] = cursors
            document["next_actions"] = actions
        else:
            navigated(document, cursors, actions)

    def stamp(document: dict[str, Any]) -> dict[str, Any]:
        document["answer_id"] = answer_id(document)  # pages and next actions are outside it
        _navigate(document, cuts[id(document)])
        return document

    for found in raw.values():
        if found is not None:
            printable_prose(found.items)  # once: a build cites copies of them, which adds no prose
    shown = {row.name: min(len(found.items), max_items) if (found := raw[row.name]) is not None else 0
             for row in rows}
    return stamp(fit(shown, max_chars, build, FIRST_SECTION[intent]))


def _printable_but(mapping: dict[str, Any], skip: str) -> None:
    """``printable_prose`` of ``mapping`` in place, but for its ``skip`` member (already printable)."""
    for key, value in mapping.items():
        if key == skip:
            continue
        if isinstance(value, str):
            if key in PROSE_FIELDS:
                mapping[key] = printable(value)
        else:
            printable_prose(value)


def _found_none(ran: list[Section], sections: dict[str, Any]) -> list[Section]:
    """The walks whose section found none (empty, or none past an untraversable border): the
    answer names their relation words, the scope of each "none" (``used_relations``); a section
    holding items shows what it found instead."""
    return [row for row in ran
            if sections[row.name]["status"] == "empty" or sections[row.name].get("reason") == UNTRAVERSABLE]


def _pageable(sections: dict[str, Any]) -> list[str]:
    """The sections holding items past the ones shown, in order, none shown included: each gets a
    page (a name too common to list has none to page)."""
    return [name for name, section in sections.items()
            if section["total"] > section.get("offset", 0) + section["shown"]
            and section.get("reason") != "common_name"]


def _say_lines_left_out(sections: dict[str, Any]) -> None:
    """Append to a section's detail which users use the anchor on more lines than ``also`` lists."""
    for section in sections.values():
        if (left_out := lines_left_out(section)) is not None:
            section["detail"] = f"{section['detail']} {left_out}" if section["detail"] else left_out


def _more(section: dict[str, Any]) -> str:
    """How many items a cut section holds past the ones shown ("at least" past a read bound)."""
    more = section["total"] - section.get("offset", 0) - section["shown"]
    return f"at least {more}" if section.get("reason") == "read_limit" else str(more)


def _says_more(section: dict[str, Any], name: str) -> None:
    """A cut section's sentence: its status, reason, shown and total say how many more it holds
    and ``pages`` names the cursor, so only a walk stopped at its read bound says more."""
    bounded = section.get("reason") == "read_limit"
    section["detail"] = (f"{_more(section).capitalize()} more: the walk stopped at its read bound; the cursor "
                         f"pages.{name} returns the rest it reached." if bounded else None)


def _page(
    connection: apsw.Connection, intent: str, target: str, graph: dict[str, Any], freshness: dict[str, Any],
    max_chars: int, history: apsw.Connection | None, fleet: FleetUsages | None, max_items: int, cursor: Cursor,
    gaps: dict[str, list[dict[str, Any]]], observed: Observed | None = None,
) -> dict[str, Any]:
    """The items of one cut section from the cursor's offset on, as their own answer: refused
    unless the answer the cursor pins is still the answer to this intent and target."""
    check_generation(cursor, graph["generation"])  # another generation: stale, before any work
    resolution = resolve(connection, target)
    pinned = None
    if resolution.status == "resolved":
        first = _read(connection, intent, target, resolution, graph, freshness, history, fleet, cursor.max_items,
                      observed)
        pinned = _answer(connection, intent, target, first, graph, cursor.max_chars, cursor.max_items, gaps)
    section = (pinned or {}).get("sections", {}).get(cursor.section)
    fits = section is not None and 0 < section.get("total", 0) and cursor.offset <= section["total"]
    check_answer(cursor, pinned["answer_id"] if pinned is not None and fits else None)
    read = _read(connection, intent, target, resolution, graph, freshness, history, fleet, cursor.offset + max_items,
                 observed)
    row, found = BY_NAME[cursor.section], read.raw[cursor.section]
    assert found is not None and pinned is not None  # the pinned answer showed items of it
    items = found.items[cursor.offset: cursor.offset + max_items]
    checker = CitationChecker(connection)

    def build(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        book = CitationBook(checker.confirms, graph["commit"])
        anchor_item = cite_item(dict(read.anchor), book)
        taken = shown[row.name]
        keep = [cite_item(dict(item), book, row.of_users) for item in items[:taken]]
        last = cursor.offset + taken >= found.total
        cut = "read_limit" if found.read_limited else None if last else "max_chars" if dropped[row.name] else \
            "max_items"
        page = found.shape(keep, found.total, cut) if found.shape is not None else filled(row, keep, found.total, cut)
        page["offset"] = cursor.offset
        sections = {row.name: page}
        more = not last
        if more:
            _says_more(page, row.name)
        _say_lines_left_out(sections)
        where = f"{tag(anchor_item['label'], anchor_item['cite'])}"
        text = (f"{row.name} of {where}, items {cursor.offset + 1} to {cursor.offset + taken} of "
                f"{count(page)}: {listed([tag(i['label'], shown_cite(i)) for i in keep], taken)}.")
        if more:
            text += f" {page['total'] - cursor.offset - taken} more: the next action returns them."
        document = reply(
            CODE_CONTEXT_SCHEMA, "answered", text, intent=intent, target=target, anchors=[anchor_item],
            page={"section": row.name, "offset": cursor.offset, "of": pinned["answer_id"]}, sections=sections,
            citations=book.entries, used_primitives=used_primitives([row]), used_relations={},
            graph=graph, freshness=read.freshness,
            bounds={"max_items": max_items, "max_chars": max_chars, "max_read": MAX_READ, "truncated": bool(more),
                    "unverified_citations": book.unverified},
            capability_id=capability_id("code_context", intent, target), answer_id=ID_PLACEHOLDER,
        )
        printable_prose(document)
        encode(document)
        document["answer_id"] = answer_id(document)
        following = Cursor(cursor.section, cursor.offset + taken, cursor.max_chars, cursor.max_items,
                           cursor.generation, cursor.answer).text()
        navigated(document, {row.name: following} if more else {},
                  [context_action(f"the next {row.name} page", intent, target, cursor=following,
                                  max_items=max_items if max_items != DEFAULT_ITEMS else None)] if more else [])
        printable_prose(document["next_actions"])
        return document

    return fit({row.name: len(items)}, max_chars, build)


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
    """An empty graph caller section beside resolved uses or textual mentions must not read as
    "no callers": the name is used in this commit, only the graph does not carry those uses. A
    name too common to list says so, since the mentions section then holds nothing to look at. An
    empty ``tests`` section beside tests reached by resolved references or using the name by name
    says so too (never a bare "no test")."""
    _not_untested(sections)
    mentions = sections.get("mentions")
    used = None
    if mentions is not None and mentions["total"] and mentions["reason"] == "common_name":
        used = (f"more than {mentions['total'] - 1} line(s) of this commit use it by name, too common a name "
                "to list them (common_name)")
    elif mentions is not None and mentions["total"]:
        used = f"{mentions['total']} line(s) of this commit use it by name (see mentions)"
    for name, beside in (("callers", "resolved_callers"), ("callers_by_hop", "resolved_by_hop")):
        section = sections.get(name)
        walk = BY_NAME[name].walk
        if section is None or section["status"] != "empty" or walk is None:
            continue
        other = [part for part in (resolved_more(sections, beside, "use(s)", more=False), used,
                                   dynamic_uses(sections, more=False)) if part]
        if other:
            section["detail"] = (f"The graph holds none of its callers within depth {walk.depth}, "
                                 f"but {' and '.join(other)}.")


# The sections that hold a use of the anchor: all empty (and the dynamic uses too) is the one
# answer that may say no use was found, naming what was searched.
USE_SECTIONS = ("callers", "references", "resolved_callers", "callers_by_hop", "resolved_by_hop", "raises", "catches",
                "mentions", "tests", "resolved_tests", "cross_repo")


def _no_use_found(sections: dict[str, Any], commit: str, reading: Reading) -> None:
    """Before an answer reads as "no use": an empty ``mentions`` beside dynamic uses says where
    the name is used; and only when every use section and the dynamic uses are empty, and nothing
    else says the definition runs unnamed (``_runs_unnamed``), does the ``dynamic_uses`` section
    say "no use found", with what was searched (``searched``) and what was not (an unavailable
    section, names built at run time, other repositories)."""
    dynamic, mentions = sections.get("dynamic_uses"), sections.get("mentions")
    if dynamic is None:
        return
    if dynamic_uses(sections, more=False) and mentions is not None and mentions["reason"] == "no_mention":
        mentions["detail"] += " It is named without a call on other lines: see dynamic_uses."
    if dynamic["status"] != "empty" or dynamic["reason"] != "no_dynamic_use":
        return
    present = [name for name in USE_SECTIONS if name in sections]
    searched = [name for name in present if sections[name]["status"] != "unavailable"]
    if any(sections[name]["status"] != "empty" for name in searched):
        return
    name = reading.mentions()["name"] or ""
    unnamed = _runs_unnamed(reading, name, mentions)
    if unnamed is not None:
        dynamic["reason"], dynamic["detail"] = unnamed
        return
    unsearched = [f"{name} ({sections[name]['reason']})" for name in present if name not in searched]
    dynamic["reason"] = "no_use_found"
    dynamic["searched"] = [*searched, *DYNAMIC_SEARCHED]
    dynamic["detail"] = (
        f"No use found, and here is what was searched: {', '.join(searched)} (each empty) and, in commit "
        f"{commit[:12]}, {', '.join(DYNAMIC_SEARCHED)} (kinds string_mention, export, registry: none). Not searched: "
        + ", ".join([*unsearched, "a name built at run time without a literal prefix (`getattr(obj, name)`)",
                     "uses outside this repository"]) + ".")


def _runs_unnamed(reading: Reading, name: str, mentions: dict[str, Any] | None) -> tuple[str, str] | None:
    """(reason, sentence) when a definition with no use by name may still run: a special method
    the language calls (``__iter__``), an override a call of its base reaches, or a name whose
    lines the resolver binds to another definition (one of them may dispatch here); else None."""
    if len(name) > 4 and name.startswith("__") and name.endswith("__"):
        return ("special_method", f"No use of `{name}` is found by name, but it is a special method the language "
                "calls implicitly (iteration, `len()`, operators, pickling, attribute access), so this is no "
                "evidence it is unused.")
    base = fetch_rows(reading.connection.execute(query_sql("overridden_base"), {"node": reading.node}),
                      tuple[str, str])
    if base:
        qualname, module = base[0]
        return ("overrides_base", f"No use of it is found by name, but it overrides `{local_name(qualname, module)}`: "
                "a call of the base method on an instance of its class runs it, which no use by name shows (see "
                "the base's usage).")
    elsewhere = mentions["bound_elsewhere"] if mentions is not None else 0
    if elsewhere:
        return ("bound_elsewhere", f"No use of this definition is found, but {elsewhere} line(s) use `{name}` and "
                "the resolver binds them to another definition of it; a call that dispatches here at run time "
                "(a same-named method of another class) is not ruled out.")
    return None


def _not_untested(sections: dict[str, Any]) -> None:
    tests, beside = sections.get("tests"), textual_tests(sections)
    walk = BY_NAME["tests"].walk
    if tests is None or tests["status"] != "empty" or walk is None:
        return
    other = [part for part in (resolved_more(sections, "resolved_tests", "test(s) reaching it", more=False),
                               f"{beside[0]} test(s) use it by name (textual, see {beside[1]})" if beside else None)
             if part]
    if other:
        caveat = unseen(sections, "tests reaching it")
        tests["detail"] = (f"No test reaches it through the graph within depth {walk.depth}, "
                           f"but {' and '.join(other)}; {caveat[0].lower()}{caveat[1:]}")


def _cite_every_use(connection: apsw.Connection, node: int, anchor: dict[str, Any], rows: tuple[Section, ...],
                    raw: dict[str, Found | None]) -> None:
    """Each first-hop user of the anchor with every line it uses it on (``use_lines.py``), and the
    anchor with the lines it uses itself on (no walk lists it as its own user); the
    tests' sections answer which tests run it, not which lines to edit, so they are left as they are."""
    if not any(row.of_users for row in rows):
        return  # how: nothing uses the anchor in its answer
    users = [found for row in rows if row.of_users and row.walk is not None and row.walk.relations != REACHES_TESTS
             and (found := raw[row.name]) is not None and found.items]
    lines = use_lines(connection, node)
    for found in users:
        add_also(found.items, lines)
    add_self_uses(anchor, lines)


def cite_item(item: dict[str, Any], book: CitationBook, at_site: bool = False) -> dict[str, Any]:
    """Cite ``item`` at its definition and its site; ``at_site`` (a section of the anchor's users):
    at the site alone when the commit confirms it and the definition is in the site's file (its
    line is kept, uncited), so a caller costs one citation, not two."""
    site = item.get("site")
    if site is not None:
        item["site"] = {"path": site["path"], "line": site["line"], "cite": book.cite(site["path"], site["line"])}
    cited_site = item["site"]["path"] if site is not None and item["site"]["cite"] else None
    if "also" in item:  # the other lines it uses the anchor on; a line the commit lacks is counted, not cited
        item["also"] = _also(item["also"], book, cited_site)
    if at_site and cited_site is not None and item["path"] == cited_site and book.confirms(item["path"], item["line"]):
        item["cite"] = None  # its definition's line stays, in the site's file
        item[AT_SITE] = True
        return item
    item["cite"] = book.cite(item["path"], item["line"])
    return item


def _also(lines: list[dict[str, Any]], book: CitationBook, cited_site: str | None) -> list[dict[str, Any]]:
    """The other lines a user uses the anchor on, each confirmed at the bound commit. In the file
    of a cited site (a user's), a line goes as its number, the site's citation naming the file: a
    call line costs a few characters, not a citation of its own (sympy's tests call a function on
    six lines each); else (the anchor's own lines, which the prose cites) each is cited."""
    kept = []
    for more in lines:
        if more["path"] == cited_site:
            if book.check(more["path"], more["line"]):
                kept.append(dict(more))
        elif cid := book.cite(more["path"], more["line"]):
            kept.append({**more, "cite": cid})
    return kept


NOT_THIS_KIND = ("not_a_class", "not_a_method")  # raises/catches of a non-class, overrides of a non-method


def _prose(
    anchor: dict[str, Any], rows: tuple[Section, ...], sections: dict[str, Any], bindings: list[dict[str, Any]],
    set_aside: int, untraversable: bool, pages: list[str], target: str, reexported_by: str | None,
) -> str:
    where = (f"{anchor['path']}#L{anchor['line']}" if anchor["line"] else anchor["path"]) or "no source location"
    sentences = [f"{tag(anchor['label'], anchor['cite'])} ({anchor['kind']}) is defined at {where}."]
    if anchor.get("also"):
        own = [tag(f"L{more['line']}", more["cite"]) for more in anchor["also"]]
        sentences.append(f"It uses itself at {listed(own, len(own))}.")  # a recursive call or a reference to itself
    if reexported_by is not None:
        sentences.append(f"`{target}` names it through the re-export in {reexported_by}.")
    if set_aside:
        named = [tag(item["label"], item["cite"]) for item in bindings]
        sentences.append(f"It was chosen over {set_aside} {_aside_kinds(bindings)} of the same name, which "
                         f"define nothing themselves: {listed(named, set_aside)}.")
    missing = []
    for row in rows:
        name, section = row.name, sections[row.name]
        if section["status"] == "unavailable":
            if section.get("observed"):  # no current recorded run: its sentence names the command that records one
                sentences.append(section["observed"]["detail"])
            elif section["reason"] not in NOT_THIS_KIND:  # a section for another kind of target says nothing
                missing.append(f"{name} ({section['reason']})")
        elif section["status"] == "empty" or section.get("reason") == UNTRAVERSABLE:
            sentences.append(section["detail"])
        elif section.get("reason") == "read_limit" and not section["items"]:
            sentences.append(f"The {name.replace('_', ' ')} walk stopped at its read bound on a large hub before "
                             "finding any, so this is not evidence of none.")
        else:
            if row.headline is not None:  # a headline counts the answer's other evidence kinds too
                sentences.append(row.headline(section, sections))
                continue
            assert row.sentence is not None, name  # a section holding items was filled: its row says it
            sentences.append(row.sentence(section))
    if untraversable:
        sentences.append(UNTRAVERSABLE_PROSE)
    if pages:
        cut = [f"{name} ({_more(sections[name])} more)" for name in pages]
        sentences.append(f"Cut to fit: {', '.join(cut)}; `pages` holds each one's cursor (`--cursor`, or the "
                         "tool's cursor argument).")
    if missing:
        sentences.append("Not available: " + ", ".join(missing) + ".")
    return " ".join(sentences)


def _aside_kinds(bindings: list[dict[str, Any]]) -> str:
    """What the set-aside nodes named are: manifest keys (a ``.json`` file's: ``package.json``'s
    dependencies and scripts), declaration-only members (a ``.d.ts`` file's), variable bindings."""
    kinds = []
    for item in bindings:
        path = item["path"] or ""
        kind = ("manifest key(s)" if path.endswith(".json") else "declaration-only member(s)"
                if path.endswith(".d.ts") else "variable binding(s)")
        if kind not in kinds:
            kinds.append(kind)
    return " or ".join(kinds) or "variable binding(s)"


def context_action(
    why: str, intent: str, target: str, max_chars: int | None = None, *, max_items: int | None = None,
    cursor: str | None = None,
) -> dict[str, Any]:
    """A next action that asks ``code_context`` again: its command and its tool call."""
    arguments: dict[str, Any] = {"target": target, "intent": intent}
    command = f"cm-graph context {intent} {shlex.quote(target)}"
    for flag, key, value in (("--max-chars", "max_chars", max_chars), ("--max-items", "max_items", max_items),
                             ("--cursor", "cursor", cursor)):
        if value is not None:
            arguments[key] = value
            command += f" {flag} {value}"
    return next_action(why, command, "code_context", arguments)


def _next_actions(
    intent: str, target: str, freshness: dict[str, Any], omissions: list[dict[str, Any]], max_chars: int,
    max_items: int, cursors: dict[str, str],
) -> list[dict[str, Any]]:
    actions = []
    if freshness.get("state") != "current":
        actions += remedy_actions("stale")
    items = max_items if max_items != DEFAULT_ITEMS else None
    if cursors:  # the first cut section's page; every other's cursor is in ``pages``
        section, cursor = next(iter(cursors.items()))
        actions.append(context_action(f"the rest of {section}", intent, target, cursor=cursor, max_items=items))
    elif any(o["by"] == "max_chars" for o in omissions):
        actions.append(context_action("items were dropped to fit the budget", intent, target, max_chars * 2,
                                      max_items=items))
    follow = NEXT_INTENT[intent]
    actions.append(context_action(f"then the {follow} intent", follow, target))
    return actions


def _unanswered(
    connection: apsw.Connection, intent: str, target: str, resolution: Resolution,
    graph: dict[str, Any], freshness: dict[str, Any], max_chars: int, max_items: int,
    gaps: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """Ambiguous (candidates, never a silent pick) or unresolved (ranked suggestions; a name the
    provider dropped is answered from the text, its defining line the one anchor, labelled
    ``evidence: textual``)."""
    nodes = describe(connection, list(resolution.anchors))
    book = CitationBook(CitationChecker(connection).confirms, graph["commit"])
    candidates = [cite_item(dict(nodes[n]), book) for n in resolution.anchors]
    dropped = textual_definition(connection, gaps, target) if resolution.status == "unresolved" else None
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
        if dropped is not None:
            candidates = [cite_item(dropped, book)]
            text = textual_answer(connection, dropped, target, graph["commit"], book) + hint
            actions.insert(0, next_action("what the graph holds of that file",
                                          f"cm-graph symbols {shlex.quote(dropped['path'])}"))
        elif freshness.get("state") != "current":  # the graph is older than the checkout: the name may be new
            text += (f" The graph is bound to commit {graph['commit'][:12]}, not the checkout's HEAD: the name may be "
                     "newer than the bound commit; `cm-graph refresh` rebuilds the graph from HEAD.")
            actions = remedy_actions("stale") + actions
    document = reply(
        CODE_CONTEXT_SCHEMA, resolution.status, text, intent=intent, target=target, anchors=candidates,
        candidates={"shown": len(candidates), "total": resolution.total}, suggestions=list(resolution.suggestions),
        sections={}, citations=book.entries, used_primitives=[], used_relations={}, graph=graph,
        freshness=freshness,
        bounds={"max_items": max_items, "max_chars": max_chars, "max_read": MAX_READ, "truncated": False,
                "unverified_citations": book.unverified},
        capability_id=capability_id("code_context", intent, target), answer_id=ID_PLACEHOLDER, next_actions=actions,
    )
    printable_prose(document)
    encode(document)
    document["answer_id"] = answer_id(document)
    return document
