"""``cm-graph changes``: which definitions a diff touched, and who calls them, from the bound generation.

The diff is read through the one git wrapper (``diffread.py``: no program a repository
configures runs), each file's changed lines are mapped onto both sides' definition ranges
(``defranges.py``, ``hunkmap.py``), and the callers of every modified, deleted or renamed
definition are walked on the bound commit (``blast.py``), and so are the tests to run for every
changed definition the bound commit holds (``testrun.py``: ranked, each with why; the tests a
recorded run of the generation's suite saw executing them first, labelled ``observed``,
``observed.py``). No refresh is needed: the side of the
diff that is the bound commit is read from the generation's index; any other side is parsed from
its own bytes. When neither side is the bound commit, the answer says ``stale`` and walks no
caller (the index describes another commit; its callers would be a guess).
"""

from __future__ import annotations

from typing import Any

import apsw

from ..base.envelope import reply
from ..base.errors import INDEX_DAMAGED, Refusal
from ..base.git import resolve_revision
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..evidence.documents import CitationChecker
from ..generation.layout import Workspace
from ..generation.status import GraphStatus
from ..generation.store import Generation
from ..index.ensure import open_current_index
from ..index.pymodules import is_python_path
from ..query.answerids import stamp_ids
from .blast import DEPTH, callers
from .budget import DEFAULT_SHARE, check_max_items
from .defranges import NOTHING, SideDefs, index_side, other_side
from .diffread import DiffSpec, FileChange, SideReader, read_diff, resolve_sides
from .from_workspace import answerable
from .hunkmap import Changed, classify_file, match_renames
from .observed import load_observed
from .sentences import far_sentence
from .shape import CitationBook
from .test_selection import known_tests, within_share
from .testrun import TEST_DEPTH, tests_to_run, to_run

CHANGES_SCHEMA = "cm_graph.changes.v1"
WALKED = ("modified", "deleted", "renamed")


def changes(
    workspace: Workspace, spec: DiffSpec, *, max_items: Any = None, max_chars: int | None = None,
    derive: bool = True, max_share: float = DEFAULT_SHARE,
) -> dict[str, Any]:
    """The changed definitions of ``spec``'s diff and their callers, in the reply envelope;
    ``max_chars`` (an agent surface's): whole definitions, callers, tests and files are left out, in that
    order from the end, until the wire JSON fits (``fit``); ``derive=False`` refuses
    (``index_missing``) rather than derive an index. ``max_share``: the share of the suite the tests
    to hand to pytest stay within (``test_selection``; the tests section's ``selection``)."""
    items = check_max_items(max_items)
    checkout = workspace.checkout
    sides = resolve_sides(checkout, spec)
    judged: list[GraphStatus] = []
    generation, connection = open_current_index(workspace, answerable(workspace, judged), derive=derive)
    try:
        document = _answer(workspace, generation, connection, spec, sides, items, max_share)
        return document if max_chars is None else fit(document, max_chars)
    except apsw.Error:
        raise Refusal(INDEX_DAMAGED, reason="unreadable") from None
    finally:
        connection.close()


def _answer(
    workspace: Workspace, generation: Generation, connection: apsw.Connection, spec: DiffSpec, sides: Any,
    max_items: int, max_share: float,
) -> dict[str, Any]:
    bound = generation.manifest.commit
    index_is = "old" if sides.old == bound else "new" if sides.new == bound else None
    files_out: list[dict[str, Any]] = []
    found: list[Changed] = []
    reader = SideReader(workspace.checkout)
    try:
        for change in read_diff(workspace.checkout, sides):
            entry, defs = _file(connection, reader, change, sides.new_kind, index_is)
            files_out.append(entry)
            found.extend(defs)
    finally:
        reader.close()
    found = match_renames(found)
    book = CitationBook(CitationChecker(connection).confirms, bound)
    definitions = [_definition(item, index_is, book) for item in found]
    anchors = []
    test_anchors = []
    for item in found:
        side = item.old if index_is == "old" else item.new if index_is == "new" else None
        if side is None:
            continue
        anchor = {"key": side.key, "label": side.name, "definition": side.definition, "node": side.node}
        test_anchors.append(anchor)  # an added definition on the bound side has tests too
        if item.change in WALKED:
            anchors.append(anchor)
    unseen = _unseen(index_is, files_out, found)
    observed = load_observed(workspace.indexes_dir, generation.id)
    if index_is is None:
        caller_items: list[dict[str, Any]] = []
        caller_facts: dict[str, Any] = {"read_limited": [], "common_names": [], "unwalked": []}
        callers_status = "unavailable"
        test_items: list[dict[str, Any]] = []
        test_facts: dict[str, Any] = {"read_limited": []}
    else:
        caller_items, caller_facts = callers(connection, anchors)
        callers_status = "answered"
        test_items, test_facts = tests_to_run(connection, test_anchors, observed=observed)
    for test in test_items:
        test["cite"] = book.cite(test["path"], test["line"]) if test["line"] else None
    shown_tests = test_items[:max_items]
    selection = within_share(known_tests(connection), [item["id"] for item in to_run(test_items)[0]], max_share)
    total = len(caller_items)
    for caller in caller_items:
        site = caller.get("site")
        if site:
            site["cite"] = book.cite(site["path"], site["line"])
        caller["cite"] = book.cite(caller["path"], caller["line"])
    shown_callers = caller_items[:max_items]
    for name in caller_facts["common_names"]:
        unseen.append(f"`{name}` is used on more lines than the text index lists; its textual mentions are not "
                      "shown.")
    if caller_facts["read_limited"]:
        unseen.append("A walk stopped at its read bound (" + ", ".join(sorted(set(caller_facts["read_limited"])))
                      + "): there may be more callers than listed.")
    summary = {change: sum(1 for d in definitions if d["change"] == change)
               for change in ("added", "modified", "deleted", "renamed")}
    summary["files"] = len(files_out)
    summary["module_level_files"] = sum(1 for f in files_out if f["module_level"]["old"] or f["module_level"]["new"])
    summary["unknown_files"] = sum(1 for f in files_out if not f["in_generation"])
    freshness = {"state": "current" if index_is else "stale", "head": _head(workspace), "commit": bound,
                 "generation": generation.id, "index_side": index_is}
    truncated = total > len(shown_callers) or len(test_items) > len(shown_tests)
    unseen.extend(far_sentence(far) for far in test_facts.get("far", ()))
    if test_facts["read_limited"]:
        unseen.append("A walk to tests stopped at its read bound (from " + ", ".join(test_facts["read_limited"])
                      + "): there may be more tests to run than listed.")
    document = reply(
        CHANGES_SCHEMA, "answered", _prose(summary, total, len(test_items), index_is, bound, sides)
        + _selection_prose(selection.header()),
        graph={"generation": generation.id, "commit": bound, "tree": generation.manifest.tree,
               "provider": generation.manifest.provider.requirement},
        diff={"mode": spec.mode, "argument": spec.argument, "old": sides.old,
              "new": sides.new if sides.new is not None else sides.new_kind, "new_kind": sides.new_kind},
        summary=summary, files=files_out, definitions=definitions,
        callers={"status": callers_status, "depth": DEPTH, "total": total, "items": shown_callers,
                 "evidence_kinds": ["graph", "resolved", "textual"]},
        tests={"status": callers_status, "depth": TEST_DEPTH, "total": len(test_items), "items": shown_tests,
               "evidence_kinds": ["observed", "graph", "resolved", "textual"], "observed": observed.header(),
               "selection": selection.header()},
        unseen=unseen, citations=book.entries,
        freshness=freshness,
        bounds={"truncated": truncated, "max_items": max_items, "callers_total": total,
                "tests_total": len(test_items), "read_limited": sorted(set(caller_facts["read_limited"]))},
        next_actions=_next_actions(index_is, truncated),
    )
    return stamp_ids(document, "changes", spec.mode, spec.argument or "")


_FITTED = (("definitions",), ("callers", "items"), ("tests", "items"), ("files",))


def _slot(document: dict[str, Any], path: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    holder = document
    for key in path[:-1]:
        holder = holder[key]
    return holder, path[-1]


def fit(document: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """``document`` with as many whole definitions, then callers, then tests, then files as fit ``max_chars``
    characters of wire JSON (never a byte cut); what was left out is counted in ``bounds.shown``
    and the citations no shown item uses are dropped. ``budget_too_small`` when the rest alone
    does not fit."""
    from ..base.errors import InvalidInput
    from ..base.jsonio import dumps_wire

    full = {path: list(_slot(document, path)[0][_slot(document, path)[1]]) for path in _FITTED}
    if len(dumps_wire(document)) <= max_chars:
        document["bounds"]["shown"] = {path[0]: [len(items), len(items)] for path, items in full.items()}
        document["bounds"]["max_chars"] = max_chars
        return stamp_ids(document, "changes", document["diff"]["mode"], document["diff"]["argument"] or "")
    citations = list(document["citations"])
    kept: dict[tuple[str, ...], list[Any]] = {path: [] for path in _FITTED}

    def build() -> dict[str, Any]:
        for path in _FITTED:
            holder, key = _slot(document, path)
            holder[key] = kept[path]
        used = {c for c in _cites(kept)}
        document["citations"] = [c for c in citations if c["id"] in used]
        document["bounds"]["shown"] = {path[0]: [len(kept[path]), len(full[path])] for path in _FITTED}
        document["bounds"]["max_chars"] = max_chars
        document["bounds"]["truncated"] = True
        return stamp_ids(document, "changes", document["diff"]["mode"], document["diff"]["argument"] or "")

    if len(dumps_wire(build())) > max_chars:
        raise InvalidInput("The answer's fixed part alone exceeds the character budget; raise max_chars.",
                           reason="budget_too_small")
    for path in _FITTED:
        room = max_chars - len(dumps_wire(build()))
        for item in full[path]:
            size = len(dumps_wire(item)) + 1
            if size > room:
                break
            kept[path].append(item)
            room -= size
        while len(dumps_wire(build())) > max_chars and kept[path]:
            kept[path].pop()
        if len(kept[path]) < len(full[path]):
            break
    return build()


def _cites(kept: dict[tuple[str, ...], list[Any]]) -> set[str]:
    found: set[str] = set()
    for items in kept.values():
        for item in items:
            for value in (item.get("cite"), (item.get("site") or {}).get("cite"),
                          (item.get("old") or {}).get("cite"), (item.get("new") or {}).get("cite")):
                if isinstance(value, str):
                    found.add(value)
    return found


def _head(workspace: Workspace) -> str | None:
    try:
        return resolve_revision(workspace.checkout, "HEAD").commit
    except Refusal:
        return None


def _side_bytes(reader: SideReader, change: FileChange, side: str, new_kind: str) -> bytes | None:
    if change.binary or change.submodule or change.symlink:
        return None
    if side == "old":
        return reader.blob(change.old_blob) if change.old_blob else None
    if change.new_path is None:
        return None
    if change.new_blob:
        return reader.blob(change.new_blob)
    return reader.worktree(change.new_path) if new_kind == "worktree" else None


def _file(
    connection: apsw.Connection, reader: SideReader, change: FileChange, new_kind: str, index_is: str | None
) -> tuple[dict[str, Any], list[Changed]]:
    path = change.new_path or change.old_path or ""
    known_path = change.old_path or change.new_path or ""
    [(tracked, in_graph)] = fetch_rows(connection.execute(query_sql("changed_file_known"), {"path": known_path}),
                                       tuple[int, int])
    readable = not (change.binary or change.submodule or change.symlink)
    old: SideDefs = NOTHING
    new: SideDefs = NOTHING
    if readable and change.old_path is not None:
        data = _side_bytes(reader, change, "old", new_kind)
        old = index_side(connection, change.old_path, data) if index_is == "old" else other_side(change.old_path, data)
    if readable and change.new_path is not None:
        data = _side_bytes(reader, change, "new", new_kind)
        new = index_side(connection, change.new_path, data) if index_is == "new" else other_side(change.new_path, data)
    defs, facts = classify_file(change, old, new) if readable else ([], {
        "module_level": {"old": [], "new": []}, "unmapped": {"old": [], "new": []}, "aligned_unchanged": []})
    entry = {"path": path, "old_path": change.old_path, "status": change.status,
             "in_generation": bool(tracked), "in_graph": bool(in_graph),
             "binary": change.binary, "submodule": change.submodule, "symlink": change.symlink,
             "python": is_python_path(path), "ranges": {"old": old.source, "new": new.source},
             "similarity": change.similarity, "definitions": len(defs), **facts}
    return entry, defs


def _qualified(item: Changed) -> str:
    side = item.new or item.old
    assert side is not None
    return side.key


def _definition(item: Changed, index_is: str | None, book: CitationBook) -> dict[str, Any]:
    def where(path: str | None, side: Any, on_index: bool) -> dict[str, Any] | None:
        if side is None or path is None:
            return None
        spot: dict[str, Any] = {"path": path, "name": side.key, "start_line": side.start, "line": side.line,
                                "end_line": side.end}
        spot["cite"] = book.cite(path, side.line) if on_index else None
        return spot

    shown: dict[str, Any] = {
        "change": item.change, "kind": item.kind, "name": _qualified(item),
        "path": item.new_path or item.old_path,
        "ranges": {"old": item.sources[0], "new": item.sources[1]},
        "old": where(item.old_path, item.old, index_is == "old"),
        "new": where(item.new_path, item.new, index_is == "new"),
    }
    if item.change == "renamed":
        shown["body_changed"] = item.body_changed
    if item.source == "line_only":
        shown["line_only"] = True
    return shown


def _unseen(index_is: str | None, files: list[dict[str, Any]], found: list[Changed]) -> list[str]:
    said = []
    if index_is is None:
        said.append("Neither side of this diff is the bound commit, so no caller is walked: the index describes "
                    "another commit (run `cm-graph refresh` to bind HEAD).")
    if any(f["ranges"]["old"] == "line_only" or f["ranges"]["new"] == "line_only" for f in files):
        said.append("Files in a language no resolver reads (neither Python nor JavaScript/TypeScript) have "
                    "definition lines but no ranges (the graph's nodes): a change is credited to a definition "
                    "only on its own line.")
    unknown = [f for f in files if not f["python"] and "none" in (f["ranges"]["old"], f["ranges"]["new"])
               and not (f["binary"] or f["submodule"] or f["symlink"])]
    if unknown:
        said.append(f"{len(unknown)} changed file(s) have no known definitions on a side (another language off "
                    "the bound commit, or unparsable): their lines are listed as unmapped.")
    if any(f["binary"] or f["submodule"] or f["symlink"] for f in files):
        said.append("Binary files, submodules and symbolic links are named but not read.")
    said.append("Dynamic calls (callbacks, getattr, values of unknown type) are in no evidence kind, so a "
                "caller list is not proof of no other use.")
    return said


def _prose(
    summary: dict[str, int], callers_total: int, tests_total: int, index_is: str | None, bound: str, sides: Any) -> str:
    counts = ", ".join(f"{summary[c]} {c}" for c in ("added", "modified", "deleted", "renamed"))
    text = (f"{summary['added'] + summary['modified'] + summary['deleted'] + summary['renamed']} definitions "
            f"changed in {summary['files']} file{'' if summary['files'] == 1 else 's'} ({counts}).")
    if index_is is None:
        return text + (f" The graph is bound to {bound[:12]}, neither side of the diff: the changes are mapped "
                       "from the diff's own blobs and no caller is walked.")
    return text + (f" {callers_total} callers of the modified, deleted and renamed ones within {DEPTH} hops;"
                   f" {tests_total} tests to run (within {TEST_DEPTH} hops, or naming one).")


def _selection_prose(selection: dict[str, Any]) -> str:
    """The tests ``pytest-args`` hands to pytest, when a share of the suite bounds them."""
    if not selection["more_items"]:
        return ""
    return (f" The nearest {selection['items']} of them ({selection['tests']} tests) fit the first "
            f"{selection['bound_tests']} of the {selection['known_tests']} tests the index knows; "
            "`--format pytest-args` prints those (`tests.selection`).")


def _next_actions(index_is: str | None, truncated: bool) -> list[dict[str, Any]]:
    from ..base.envelope import next_action

    actions = []
    if index_is is None:
        actions.append(next_action("the graph is not bound to either side of the diff", "cm-graph refresh"))
    if truncated:
        actions.append(next_action("more callers or tests than shown", "cm-graph changes --max-items 200"))
    return actions
