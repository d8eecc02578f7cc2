"""Textual mentions: the lines of the bound commit that use the anchor's name, beside the graph.

The provider's graph misses calls through a package (``pkg.func(``), methods called on
instances and callbacks it cannot resolve, so "no caller in the graph" is often untrue of the
code. The text index (``index/mentions.py``, built with the index) lists the lines that use each
defined name; here they become their own sections, never merged with graph relationships: every
item's confidence is ``textual``, the lines the graph already carries are left out, so are those
the resolver binds (to this definition: the resolved sections show them; to another definition
of the name: counted as ``bound_elsewhere``, never listed as this one's use), and a name several
definitions share is said to be ambiguous. A line the graph links to another definition
of the name is not "carried" for this one: the provider may have chosen wrongly (a local
``const parse = require(...)`` binding, a subclass's own ``__init__``), so it stays a mention and
says which definition the graph chose (``linked_to``). Only ``code_context`` reads them; the seed's
four questions and their packets stay graph-only.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from typing import Any

import apsw

from ..base.records import record
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.dynamic_uses import DYNAMIC_FORMS
from ..index.graphmodel import is_test_path
from ..index.mentions import CODE_FORMS, MAX_KEPT, defined_name, read_postings
from .resolved import anchor_definitions, lines_named

TEXTUAL = "textual"
CALL_FORMS = ("call", "qualified_call", "raise")  # the forms of a line that calls the name (a raise instantiates)
COMMON_TOTAL = MAX_KEPT + 1  # a common name's total: more lines use it than the index lists
# The kind of use each dynamic form is (``index/dynamic_uses.py``): spelled in a string or a text
# file, exported, or put where code is looked up at run time (a registry, a decorator, getattr).
USE_OF = {"decorator": "registry", "registry": "registry", "getattr": "registry", "dispatch": "registry",
          "export": "export", "string": "string_mention", "template": "string_mention", "config": "string_mention"}
USE_KINDS = ("string_mention", "export", "registry")
# Code forms whose line is a registry, decorator or export use: listed there, not among the mentions.
LABELLED_IN_CODE = ("decorator", "registry", "export")


def mention_facts(connection: apsw.Connection, label: str, anchor: int) -> dict[str, Any]:
    """What the text index says about the anchor's name: every mention outside the graph's
    relationships into ``anchor`` (at most ``MAX_KEPT``; ``linked`` maps a line the graph links
    to another same-named definition to that definition's node), whether the name is too common
    to list, and how many definitions carry it."""
    name = defined_name(label)
    if name is None:
        return {"name": name, "rows": [], "dynamic": [], "linked": {}, "common": False, "definitions": 0,
                "bound_elsewhere": 0}
    total, kept, postings, definitions = fetch_rows(
        connection.execute(query_sql("mention_count"), {"name": name}), tuple[Any, Any, Any, int])[0]
    if total is not None and not kept:
        return {"name": name, "rows": [], "dynamic": [], "linked": {}, "common": True, "definitions": definitions,
                "bound_elsewhere": 0}
    found: list[tuple[Any, ...]] = [posting for posting in read_postings(postings or b"") if posting[2] != "dispatch"]
    dispatched = _dispatched(connection, name)
    found.extend(dispatched)
    paths = dict(fetch_rows(connection.execute(query_sql("text_file_paths"),
                                               {"files": json.dumps(sorted({row[0] for row in found}))}),
                            tuple[int, str]))
    carried: set[tuple[str, int]] = set()
    linked: dict[tuple[str, int], int] = {}
    for path, line, node, site in fetch_rows(connection.execute(query_sql("mention_exclusions"), {"name": name}),
                                             tuple[str, int, int, int]):
        if not site or node == anchor:
            carried.add((path, line))
        elif (path, line) not in linked:  # rows come in node order: the lowest node wins
            linked[(path, line)] = node
    ours = set(anchor_definitions(connection, anchor))
    elsewhere: set[tuple[str, int]] = set()
    for path, line, definition, _ in lines_named(connection, name):
        if definition is None:
            continue
        (carried if definition in ours else elsewhere).add((path, line))
    rows: list[tuple[str, int, str, str | None]] = []
    dynamic: list[tuple[str, int, str, str | None]] = []
    left_out = 0
    prefixes = {(file, line): prefix for file, line, _, prefix in dispatched}
    for file, line, form, *_ in found:
        key = (paths[file], line)
        if form == "dispatch":  # a getattr dispatch on a prefix of the name: no exclusion is about it
            dynamic.append((*key, form, prefixes[(file, line)]))
            continue
        if key in carried:
            continue
        if key in elsewhere:  # the resolver binds this use to another definition of the name
            left_out += form in CODE_FORMS
            continue
        (dynamic if form in DYNAMIC_FORMS else rows).append((*key, form, None))
    labelled = {(path, line) for path, line, form, _ in dynamic if form in LABELLED_IN_CODE}
    code = [(path, line, form) for path, line, form, _ in rows if (path, line) not in labelled]
    dynamic.sort(key=lambda row: (row[0], row[1]))
    kept_linked = {key: node for key, node in linked.items() if key not in carried}
    return {"name": name, "rows": code[:MAX_KEPT], "dynamic": dynamic[:MAX_KEPT], "linked": kept_linked,
            "common": False, "definitions": definitions, "bound_elsewhere": left_out}


def _dispatched(connection: apsw.Connection, name: str) -> list[tuple[int, int, str, str]]:
    """(file, line, "dispatch", prefix) of every ``getattr`` dispatch on a prefix of ``name``
    (``visit_`` of ``visit_Name``: ``getattr(self, f"visit_{kind}")``), as the text index posts
    them under the prefix."""
    found: list[tuple[int, int, str, str]] = []
    at = name.find("_", 2)
    while 0 < at < len(name) - 1:
        prefix = name[:at + 1]
        total, kept, postings, _ = fetch_rows(
            connection.execute(query_sql("mention_count"), {"name": prefix}), tuple[Any, Any, Any, int])[0]
        if total is not None and kept:
            found.extend((file, line, form, prefix) for file, line, form in read_postings(postings)
                         if form == "dispatch")
        at = name.find("_", at + 1)
    return found


def mention_items(
    connection: apsw.Connection, facts: dict[str, Any], limit: int, *, tests_only: bool
) -> tuple[list[dict[str, Any]], int]:
    """(items, total): the first ``limit`` of one item per mention line (``tests_only``: per test that mentions it, the
    nearest test definition at or above the line, else its test file, with its first line and how
    many lines), in file then line order."""
    rows = [row for row in facts["rows"] if not tests_only or is_test_path(row[0])]
    owners = Owners(connection, facts["linked"])
    if not tests_only:
        return [owners.item(path, line, form) for path, line, form in rows[:limit]], len(rows)
    groups: dict[tuple[str, str, int | None], dict[str, Any]] = {}
    for path, line, form in rows:
        item, owner_line = owners.test_item(path, line, form)
        key = (path, item["label"], owner_line)
        if key in groups:
            groups[key]["lines"] += 1
        else:
            item["lines"] = 1
            groups[key] = item
    grouped = list(groups.values())
    return grouped[:limit], len(grouped)


def dynamic_items(connection: apsw.Connection, facts: dict[str, Any], limit: int) -> tuple[list[dict[str, Any]], int]:
    """(items, total): the first ``limit`` of one item per dynamic use of the name (a string, an
    export, a registry: ``facts["dynamic"]``), in file then line order, each named by the
    definition it is in and labelled with its kind of use (``use``) and form."""
    owners = Owners(connection, {})
    items = []
    for path, line, form, prefix in facts["dynamic"][:limit]:
        item = owners.item(path, line, form)
        item.pop("linked_to", None)
        item["use"] = USE_OF[form]
        if prefix is not None:
            item["prefix"] = prefix
        items.append(item)
    return items, len(facts["dynamic"])


def use_counts(facts: dict[str, Any]) -> dict[str, int]:
    """How many dynamic uses of each kind (``USE_KINDS``) the name has."""
    counts = dict.fromkeys(USE_KINDS, 0)
    for _, _, form, _ in facts["dynamic"]:
        counts[USE_OF[form]] += 1
    return counts


@record
class Range:
    """One resolver definition of a file, as ``owner_ranges.sql`` reads it."""

    start_line: int
    end_line: int
    line: int
    kind: str
    name: str
    qualname: str
    module: str
    label: str | None  # the provider's node for it, when there is one
    node_kind: str | None


class FileRanges:
    """The resolver's definition ranges of each file asked about, read once per file."""

    def __init__(self, connection: apsw.Connection) -> None:
        self._connection = connection
        self._files: dict[str, list[Range]] = {}

    def holding(self, path: str, line: int) -> list[Range] | None:
        """The definitions whose range holds ``line``, outermost first; None for a file the
        resolver does not read."""
        ranges = self._files.get(path)
        if ranges is None:
            rows = fetch_rows(self._connection.execute(query_sql("owner_ranges"), {"path": path}),
                              tuple[int, int, int, str, str, str, str, str | None, str | None])
            ranges = [Range(*row) for row in rows]
            self._files[path] = ranges
        if not ranges:
            return None
        return [r for r in ranges if r.start_line <= line <= r.end_line]


class Owners:
    """Names a mention by the definition it is in: in a file the resolver reads, the innermost
    definition whose range holds the line (``owner_ranges.sql``: a call below a nested callback
    is the enclosing function's, not the callback's); elsewhere, the nearest symbol or test at or
    above its line (the provider records no end lines); else its file. For the tests intent, the
    innermost *test* holding it (or the nearest above), else its file. Each file's definitions
    are read once. A line the graph links to another definition of the name says which one
    (``linked_to``: label, path, line), so an agent sees where the graph and the text disagree."""

    def __init__(self, connection: apsw.Connection, linked: dict[tuple[str, int], int]) -> None:
        self._connection = connection
        self._files: dict[str, tuple[list[int], list[tuple[str, str]]]] = {}
        self._tests: dict[str, tuple[list[int], list[tuple[str, str]]]] = {}  # the files' test definitions
        self.ranges = FileRanges(connection)
        self._linked = linked
        wanted = sorted(set(linked.values()))
        self._chosen: dict[int, dict[str, Any]] = {}
        if wanted:
            for row in connection.execute(query_sql("describe_nodes"), {"nodes": json.dumps(wanted)}):
                self._chosen[row[0]] = {"label": row[1], "path": row[2], "line": row[3]}

    def item(self, path: str, line: int, form: str) -> dict[str, Any]:
        held = self._held(path, line, form, tests=False)
        return held[0] if held is not None else self._owned(path, line, form, self._definitions(path))[0]

    def test_item(self, path: str, line: int, form: str) -> tuple[dict[str, Any], int | None]:
        """The item named by the nearest *test* at or above the line (``is_test_name``), else the
        file, and that owner's line: a ``@click.command`` callback nested in a test function is
        not a test, the test function around it is."""
        held = self._held(path, line, form, tests=True)
        if held is not None:
            return held
        found = self._tests.get(path)
        if found is None:
            lines, owners = self._definitions(path)
            tests = [(at, owner) for at, owner in zip(lines, owners, strict=True) if is_test_name(owner[0])]
            found = ([at for at, _ in tests], [owner for _, owner in tests])
            self._tests[path] = found
        return self._owned(path, line, form, found)

    def _held(self, path: str, line: int, form: str, *, tests: bool) -> tuple[dict[str, Any], int | None] | None:
        """The item named by the innermost definition (``tests``: test) whose range holds the
        line, else by the file; None in a file the resolver does not read."""
        holding = self.ranges.holding(path, line)
        if holding is None:
            return None
        if tests:
            holding = [r for r in holding if is_test_name(r.label or r.name)]
        if not holding:
            return self._item(path, line, form, path.rsplit("/", 1)[-1], "file"), None
        innermost = holding[-1]  # rank order: the innermost is last
        at, kind, name, label, node_kind = (innermost.line, innermost.kind, innermost.name, innermost.label,
                                            innermost.node_kind)
        if label is None:  # the provider's gap: named as the provider names such a definition
            label = {"function": f"{name}()", "method": f".{name}()"}.get(kind, name)
            node_kind = "test" if is_test_path(path) and is_test_name(name) else "symbol"
        return self._item(path, line, form, label, node_kind or "symbol"), at

    def _owned(
        self, path: str, line: int, form: str, definitions: tuple[list[int], list[tuple[str, str]]]
    ) -> tuple[dict[str, Any], int | None]:
        lines, owners = definitions
        at = bisect.bisect_right(lines, line)
        if at:
            first = bisect.bisect_left(lines, lines[at - 1])  # the lowest node number on that line
            (label, kind), owner_line = owners[first], lines[first]
        else:
            (label, kind), owner_line = (path.rsplit("/", 1)[-1], "file"), None
        return self._item(path, line, form, label, kind), owner_line

    def _item(self, path: str, line: int, form: str, label: str, kind: str) -> dict[str, Any]:
        item = {"label": label, "kind": kind, "path": path, "line": line, "form": form,
                "confidence": TEXTUAL, "test": is_test_path(path)}
        other = self._linked.get((path, line))
        if other is not None:
            item["linked_to"] = dict(self._chosen[other])
        return item

    def _definitions(self, path: str) -> tuple[list[int], list[tuple[str, str]]]:
        found = self._files.get(path)
        if found is None:
            rows = fetch_rows(self._connection.execute(query_sql("definitions_in_file"), {"path": path}),
                              tuple[int, int, str, str])
            found = ([row[0] for row in rows], [(row[2], row[3]) for row in rows])
            self._files[path] = found
        return found


def is_test_name(label: str) -> bool:
    """Whether a definition's label names a test the way test runners collect them: a
    ``test_*`` or ``*_test`` function, or a ``Test*`` class (or Go ``TestXxx`` function), by the
    label's last dotted part without its argument list (``.test_load()`` is ``test_load``)."""
    name = label.split("(", 1)[0].rsplit(".", 1)[-1]
    if name.startswith("test_") or name.endswith("_test"):
        return True
    return name.startswith("Test") and (len(name) == 4 or not name[4].islower())


SITE_FORMS = ("raise", "catch")  # the forms of a raise or catch site (``sites.py``)


def without_sites(facts: dict[str, Any]) -> dict[str, Any]:
    """The mention facts less the raise and catch lines, counted (``sites``): for a class they
    are listed in the ``raises`` and ``catches`` sections, not again among its mentions."""
    rows = [row for row in facts["rows"] if row[2] not in SITE_FORMS]
    return {**facts, "rows": rows, "sites": len(facts["rows"]) - len(rows)}


def call_lines(facts: dict[str, Any]) -> int:
    """How many mention lines call the name (``name(`` or ``x.name(``) rather than import it,
    name it or read it as an attribute."""
    return sum(1 for _, _, form in facts["rows"] if form in CALL_FORMS)


def common_name_detail(name: str) -> str:
    return (f"`{name}` is used by name on more than {MAX_KEPT} lines of this commit: too common a name "
            "to list them as evidence about this definition.")


def homonym_note(definitions: int) -> str | None:
    """The caveat of a name several definitions share (None for one)."""
    if definitions <= 1:
        return None
    return f"{definitions} definitions in the graph carry this name; a mention by name cannot tell them apart."


def anchors_mentioned(
    connection: apsw.Connection, anchors: list[dict[str, Any]], common_names: list[str], limit: int, *,
    tests_only: bool,
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each anchor with a label and the lines that mention it (``mention_items``, at most ``limit``
    read); a name too common to list is put in ``common_names`` instead (the changes tool's blast
    radius and its tests to run read the mentions the same way)."""
    for anchor in anchors:
        label = anchor.get("label")
        if not label:
            continue
        found = mention_facts(connection, label, anchor.get("node") or 0)
        if found["common"]:
            common_names.append(found["name"])
            continue
        shown, _ = mention_items(connection, found, limit, tests_only=tests_only)
        yield anchor, shown
