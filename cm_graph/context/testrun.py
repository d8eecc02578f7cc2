"""The tests to run for some definitions: static reverse reachability to tests, ranked, each with why.

From each anchor (a changed definition, or ``context tests``'s target) one joint walk goes
against the graph's edges (``REACHES_TESTS``) and the resolver's references (``RUN_ROLES``)
together, ``TEST_DEPTH`` hops (``resolved.walk``: every step says which evidence took it). When that
walk reaches no test and the anchor is a method, its class is the way in (``classes``,
``FALLBACK``): a method nothing names is run through the instances tests make (``self.m()`` from
a sibling, a registry calling it), so the walk goes on from the class, one hop spent on the step
``Class has method .m()``. When neither reaches a test, two more ways in, side by side: the tests
whose strings name the anchor's module (``named_modules``: a plugin loaded by name,
``extensions=['admonition']``; textual, hop 1), and a walk of ``FAR_DEPTH`` hops (``_far``: a
definition deep in a pipeline every test runs through one entry point), of whose tests those that
share a word with the anchor are kept (``test_affinity``), the count of those left out said in
``facts["far"]`` (the section's header ``far``; ``sentences.far_sentence`` says it). When none
of these reaches a test, the text index adds the test definitions that use the anchor's name
outside the walks (``textual``, hop 1). Walking up from an override to the base methods it
overrides (``overrides``) is there too, off: measured, it selects more and finds fewer (docs/benchmarks.md).

Every reached test is named as a pytest node id (``tests/test_x.py::test_f``,
``tests/test_x.py::TestC::test_m``) from its resolved definition's enclosing chain (without one,
from the graph's label: a ``test*`` function's id, else its file); a test of a language the
resolver does not read is named by its test file. A definition of a test path that pytest would
not collect (a helper, a fixture, a nested function's owner that is no test) is a waypoint, never
a test to run; a test module reached only by an import runs nothing of it.

Deduplicated by id, ranked by fewest hops, then graph before resolved before textual evidence,
then path, line and id; each item's ``why`` is the path from the test to the definition it
reaches, every step with its relation and evidence. ``TEST_DEPTH`` and the fallbacks are chosen by
measuring recall and precision against traced test suites (``benchmarks/tests_depth.py``,
docs/benchmarks.md).
"""

from __future__ import annotations

import json
from typing import Any

import apsw

from ..base.records import replaced
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.graphmodel import is_test_path
from ..index.pymodules import is_python_path
from . import resolved
from .named_modules import module_name, naming_lines
from .observed import NOT_RECORDED, Observed, observed_tests
from .relations import INCOMING, REACHES_TESTS, WalkSpec
from .sections import Found, Reading, Section, filled
from .test_affinity import affine, definition_words
from .textual import Owners, anchors_mentioned
from .walks import MAX_READ, HopReads, chain_back

TEST_DEPTH = 3
FAR_DEPTH = 8  # the pipeline's depth: Markdown's tests reach a block processor's run() in six (benchmarks)
EVIDENCE_RANK = {"graph": 0, "resolved": 1, "textual": 2}
IMPORTS = ("import", "imports", "imports_from")
NEVER, FALLBACK, ALWAYS = "never", "fallback", "always"  # when a method's class is one more way in


def tests_to_run(
    connection: apsw.Connection, anchors: list[dict[str, Any]], depth: int = TEST_DEPTH, *, textual: str = FALLBACK,
    overrides: bool = False, classes: str = FALLBACK, observed: Observed = NOT_RECORDED,
    reads: HopReads | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(items, facts) for ``anchors`` (each: ``key`` its name, ``node`` a graph node or None,
    ``definition`` a resolved definition or None, ``label``). An item: ``id``, ``runner``
    (``pytest``: a node id or a test file pytest collects; ``file``: a test file of another
    language), ``label``, ``path``, ``line``, ``hop``, ``evidence``, ``reaches`` (the anchors' keys)
    and ``why``. ``facts``: ``read_limited`` (the walks a read bound stopped), ``common_names``
    (names too common for textual evidence), ``unwalked``, ``observed`` (the observed map's
    header). With a current ``observed`` map the tests it saw executing an anchor come first,
    labelled ``observed``; a static item of the same test is not dropped silently: its evidence
    and hop stay on the observed item as ``static``. ``reads``: the answer's hop reads
    (``walks.hop_rows``), shared with its other walks."""
    found: dict[str, dict[str, Any]] = {}
    facts: dict[str, Any] = {"read_limited": [], "common_names": [], "unwalked": [], "far": [],
                             "imported_only": []}
    for anchor in anchors:
        start = anchor.get("node") or (-anchor["definition"] if anchor.get("definition") else None)
        if start is None:
            facts["unwalked"].append(anchor["key"])
            continue
        reached = 0
        for entry, lead in _entries(connection, anchor, start, depth, overrides=overrides, classes=classes == ALWAYS):
            reached += _walk_from(connection, entry, lead, depth - len(lead), anchor["key"], found, facts, reads)
        if classes == FALLBACK and not reached:
            for entry, lead in _entries(connection, anchor, start, depth, overrides=False, classes=True)[1:]:
                reached += _walk_from(connection, entry, lead, depth - len(lead), anchor["key"], found, facts, reads)
        named = far = 0
        if not reached:
            head = resolved.describe_keys(connection, [start])[start]
            named = _named_module(connection, anchor, head, found, facts)
            far = _far(connection, anchor, start, head, found, facts, reads)
        if textual == ALWAYS or (textual == FALLBACK and not (reached or named or far)):
            _textual(connection, [anchor], found, facts)
    items = sorted(found.values(), key=rank)
    facts["observed"] = observed.header()
    seen = observed_tests(connection, observed, anchors, lambda anchor: _definitions_of(connection, anchor))
    if seen:
        static = {item["id"]: item for item in items}
        for item in seen:
            held = static.pop(item["id"], None)
            if held is not None:
                item["static"] = {"evidence": held["evidence"], "hop": held["hop"]}
        items = seen + [item for item in items if item["id"] in static]
    return items, facts


def to_run(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """(the tests to run, how many static ones are left out): with a current recorded run
    (``observed`` items), the tests it saw executing each changed definition, and the static
    tests only of a definition no recorded test executed (a fault there fails no test the run saw,
    but a new caller may reach it); without one, every item. ``pytest-args`` prints these; the
    answer itself still lists every item, each labelled."""
    seen = {key for item in items if item.get("evidence") == "observed" for key in item.get("reaches") or ()}
    if not seen:
        return items, 0
    kept = [item for item in items if item.get("evidence") == "observed"
            or any(key not in seen for key in item.get("reaches") or ())]
    return kept, len(items) - len(kept)


def _definitions_of(connection: apsw.Connection, anchor: dict[str, Any]) -> list[int]:
    if anchor.get("definition"):
        return [anchor["definition"]]
    node = anchor.get("node")
    return resolved.anchor_definitions(connection, node) if node else []


def _entries(
    connection: apsw.Connection, anchor: dict[str, Any], start: int, depth: int, *, overrides: bool, classes: bool,
) -> list[tuple[int, list[dict[str, Any]]]]:
    """Where the walks to tests start: the anchor, then (``overrides``) each base method it
    overrides (a test calling the base's method dispatches to it), then (``classes``) a method's
    class; each with the steps that lead from it to the anchor."""
    entries: list[tuple[int, list[dict[str, Any]]]] = [(start, [])]
    definitions = [anchor["definition"]] if anchor.get("definition") else (
        resolved.anchor_definitions(connection, start) if start > 0 else [-start])
    extra: list[tuple[int, str]] = []
    for definition in definitions[:1]:
        if overrides:
            for base, node, _ in fetch_rows(connection.execute(
                    query_sql("overridden_methods"), {"definition": definition, "depth": depth - 1}),
                    tuple[int, int | None, int]):
                extra.append((node or -base, "dispatches to (override)"))
        if classes:
            for cls, node in fetch_rows(connection.execute(query_sql("method_class"), {"definition": definition}),
                                        tuple[int, int | None]):
                extra.append((node or -cls, "has method"))
    if extra:
        named = resolved.describe_keys(connection, [start, *(key for key, _ in extra)])
        for key, relation in extra:
            step = {"from": named[key]["label"], "relation": relation, "evidence": resolved.RESOLVED,
                    "to": named[start]["label"], "site": None}
            entries.append((key, [step]))  # one hop, however many bases up: a dispatch
    return entries


def _walk_from(
    connection: apsw.Connection, start: int, lead: list[dict[str, Any]], depth: int, via: str,
    found: dict[str, dict[str, Any]], facts: dict[str, Any], reads: HopReads | None = None,
) -> int:
    """How many tests one walk from ``start`` reaches within ``depth`` hops, each added to
    ``found`` with ``lead`` (the steps from ``start`` to the anchor) ending its why."""
    if depth < 1:
        return 0
    reached = 0
    reach = resolved.walk(connection, start, WalkSpec(INCOMING, REACHES_TESTS, depth), resolved.RUN_ROLES, reads)
    if reach.read_limited and via not in facts["read_limited"]:
        facts["read_limited"].append(via)
    by_key = {step.reached: step for step in reach.steps}
    heads = resolved.describe_keys(connection, [start, *by_key])
    candidates = [s for s in reach.steps if s.reached != start and _test_like(heads.get(s.reached))]
    uses: dict[int, dict[int, resolved.Step]] = {}  # an import-reached test file's own uses, by origin
    ids = _ids(connection, [s.reached for s in candidates], heads)
    for step in candidates:
        named = ids.get(step.reached)
        if named is None:
            continue
        whole_file = "::" not in named[0]
        if heads[step.reached]["kind"] != "test" and whole_file:
            continue
        if whole_file and step.relation in IMPORTS:
            if step.origin not in uses:
                uses[step.origin] = resolved.uses_of(connection, step.origin, resolved.RUN_ROLES, reads)
            use = uses[step.origin].get(step.reached)
            if use is None:  # a test module importing it runs nothing of it by that
                if heads[step.reached]["path"] not in facts["imported_only"]:
                    facts["imported_only"].append(heads[step.reached]["path"])
                continue
            step = replaced(step, evidence=use.evidence, relation=use.relation, confidence=use.confidence,
                           site_path=use.site_path, site_line=use.site_line)  # its top level runs it
        chain = chain_back(step, by_key, depth)
        why = [{"from": heads[link.reached]["label"], "relation": link.relation, "evidence": link.evidence,
                "to": heads[link.origin]["label"],
                "site": f"{link.site_path}:{link.site_line}" if link.site_path else None} for link in chain] + lead
        evidence = "resolved" if any(link["evidence"] == resolved.RESOLVED for link in why) else "graph"
        head = heads[step.reached]
        _add(found, {"id": named[0], "runner": named[1], "label": head["label"], "path": head["path"],
                     "line": head["line"], "hop": step.hop + len(lead), "evidence": evidence, "why": why}, via)
        reached += 1
    return reached


def _named_module(
    connection: apsw.Connection, anchor: dict[str, Any], head: dict[str, Any], found: dict[str, dict[str, Any]],
    facts: dict[str, Any],
) -> int:
    """How many tests load the anchor's module by a string naming it (``named_modules``), each
    added at hop 1 with textual evidence and the line that names it (``head``: the anchor as
    ``resolved.describe_keys`` describes it)."""
    name = module_name(head["path"]) if head["path"] else None
    if name is None:
        return 0
    lines = naming_lines(connection, name)
    if lines is None:
        facts["common_names"].append(name)
        return 0
    owners = Owners(connection, {})
    first: dict[tuple[str, int | None], tuple[int, str]] = {}
    for test_path, line in lines:
        item, owner_line = owners.test_item(test_path, line, "string")
        first.setdefault((test_path, owner_line), (line, item["label"]))
    at: dict[tuple[str, int], int] = {}
    places = [[test_path, owner_line] for test_path, owner_line in first if owner_line is not None]
    for test_path, line, definition in fetch_rows(connection.execute(
            query_sql("definitions_at_lines"), {"places": json.dumps(places)}), tuple[str, int, int]):
        at.setdefault((test_path, line), definition)  # the outermost at that line: a class's tests
    named = pytest_ids(connection, sorted(set(at.values())))
    added = 0
    for (test_path, owner_line), (line, label) in first.items():
        held = at.get((test_path, owner_line)) if owner_line is not None else None
        test_id = named.get(held) if held is not None else None
        if test_id is None:
            if not collected_file(test_path):
                continue
            test_id = (test_path, "pytest")
        step = {"from": label, "relation": f"loads module `{name}` by name", "evidence": "textual",
                "to": anchor["label"], "site": f"{test_path}:{line}"}
        _add(found, {"id": test_id[0], "runner": test_id[1], "label": label, "path": test_path, "line": line,
                     "hop": 1, "evidence": "textual", "why": [step]}, anchor["key"])
        added += 1
    return added


def _far(
    connection: apsw.Connection, anchor: dict[str, Any], start: int, head: dict[str, Any],
    found: dict[str, dict[str, Any]], facts: dict[str, Any], reads: HopReads | None = None,
) -> int:
    """How many tests a walk of ``FAR_DEPTH`` hops adds for an anchor no test reaches within
    ``TEST_DEPTH``: of the tests it reaches, those whose names share a word with the anchor
    (``test_affinity``), all when none does; ``facts["far"]`` says how many it reached and kept."""
    reached: dict[str, dict[str, Any]] = {}
    for entry, lead in _entries(connection, anchor, start, FAR_DEPTH, overrides=False, classes=True):
        _walk_from(connection, entry, lead, FAR_DEPTH - len(lead), anchor["key"], reached, facts, reads)
    if not reached:
        return 0
    kept, by_name = affine(_anchor_words(connection, anchor, head),
                           sorted(reached, key=lambda test_id: rank(reached[test_id])))
    for test_id in kept:
        _add(found, reached[test_id], anchor["key"])
    facts["far"].append({"key": anchor["key"], "near": TEST_DEPTH, "depth": FAR_DEPTH, "reached": len(reached),
                         "kept": len(kept), "by_name": by_name})
    return len(kept)


def _anchor_words(connection: apsw.Connection, anchor: dict[str, Any], head: dict[str, Any]) -> set[str]:
    """The words of the anchor's path and qualified name (the resolver's), else of its label."""
    definitions = _definitions_of(connection, anchor)
    if definitions:
        for _, path, _, _, qualname in fetch_rows(connection.execute(
                query_sql("definition_ranges"), {"definitions": json.dumps(definitions[:1])}),
                tuple[int, str, int, int, str]):
            return definition_words(path, qualname)
    return definition_words(head["path"] or "", head["label"])


def ranked_section(reading: Reading, row: Section) -> Found:
    """``context tests``'s ``tests_to_run`` section: the anchor's tests to run, ranked, each with
    ``why``, ``id`` and ``site`` (where the test's first step is written)."""
    observed = reading.observed or NOT_RECORDED
    items, facts = tests_to_run(reading.connection, [_reading_anchor(reading)],
                                row.walk.depth if row.walk else TEST_DEPTH, observed=observed,
                                reads=reading.reads)
    header, far = facts["observed"], facts["far"]

    def shape(keep: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
        section = {**filled(row, keep, total, cut), "observed": header, **({"far": far} if far else {})}
        if section["status"] == "empty" and facts["imported_only"]:
            section["detail"] += " " + imported_only_sentence(facts["imported_only"])
        return section

    return Found([_shown(item) for item in items[:reading.limit]], len(items), bool(facts["read_limited"]),
                 shape=shape)


def imported_only_sentence(paths: list[str], shown: int = 5) -> str:
    """Why a test file the graph reaches by its import is no test to run: the import runs none of
    the definition (the ``tests`` section lists such a file; this keeps the two from reading as a
    contradiction)."""
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return (f"{len(paths)} test file(s) only import it ({', '.join(paths[:shown])}{more}): an import runs none of "
            "it, and no use of it there is resolved.")


def observed_section(reading: Reading, row: Section) -> Found:
    """``context impact``'s ``observed_tests`` section: the tests the generation's recorded run saw
    executing the anchor (its range, or code nested in it), items as ``tests_to_run``'s observed
    ones. A recorded run is transitive (a test reaching the anchor through any caller executed
    it), so the anchor's own tests are the whole observed impact; its callers' add none. Without
    a current map it is unavailable, by the map's status (``not_recorded``, ``stale``), and runs
    nothing; the header's ``observed`` is the one ``tests_to_run`` and ``changes`` carry."""
    observed = reading.observed or NOT_RECORDED
    items = observed_tests(reading.connection, observed, [_reading_anchor(reading)],
                           lambda anchor: _definitions_of(reading.connection, anchor))
    header = observed.header()
    ran = observed.status == "current"
    tests = int(((observed.data or {}).get("summary") or {}).get("tests", 0))

    def shape(keep: list[dict[str, Any]], total: int, cut: str | None) -> dict[str, Any]:
        if not ran:
            section = {"status": "unavailable", "reason": observed.status, "detail": observed.sentence(),
                       "shown": 0, "total": 0, "items": []}
        elif total == 0 and cut is None:
            reason, detail = row.nothing_found(tests=tests)
            section = {"status": "empty", "reason": reason, "detail": detail, "shown": 0, "total": 0, "items": []}
        else:
            section = filled(row, keep, total, cut)
        return {**section, "observed": header}

    return Found([_shown(item) for item in items[:reading.limit]], len(items), shape=shape, ran=ran)


def _reading_anchor(reading: Reading) -> dict[str, Any]:
    return {"key": reading.anchor["label"], "node": reading.node, "definition": None,
            "label": reading.anchor["label"]}


def _shown(item: dict[str, Any]) -> dict[str, Any]:
    """A test-to-run item as a section holds it: its ``why`` as lines, its first step's ``site``."""
    first = item["why"][0]["site"] if item["why"] else None
    path, _, line = (first or "").rpartition(":")
    return {"label": item["label"], "kind": "test", "path": item["path"], "line": item["line"],
            "id": item["id"], "runner": item["runner"], "hop": item["hop"], "evidence": item["evidence"],
            **({"outcome": item["outcome"]} if "outcome" in item else {}),
            "why": [f"{w['from']} {w['relation']} ({w['evidence']}) {w['to']}" for w in item["why"]],
            "site": {"path": path, "line": int(line)} if line.isdigit() else None}


def rank(item: dict[str, Any]) -> tuple[Any, ...]:
    """Fewest hops, then graph before resolved before textual evidence, then where, then id."""
    return (item["hop"], EVIDENCE_RANK[item["evidence"]], item["path"], item["line"] or 0, item["id"])


def _add(found: dict[str, dict[str, Any]], item: dict[str, Any], via: str) -> None:
    held = found.get(item["id"])
    if held is None or rank(item) < rank(held):
        item["reaches"] = sorted({via, *(held["reaches"] if held else ())})
        found[item["id"]] = item
    elif via not in held["reaches"]:
        held["reaches"] = sorted({via, *held["reaches"]})


def _test_like(head: dict[str, Any] | None) -> bool:
    return head is not None and bool(head["path"]) and (head["kind"] == "test" or is_test_path(head["path"]))


def _textual(
    connection: apsw.Connection, anchors: list[dict[str, Any]], found: dict[str, dict[str, Any]],
    facts: dict[str, Any],
) -> None:
    for anchor, shown in anchors_mentioned(connection, anchors, facts["common_names"], MAX_READ, tests_only=True):
        places = sorted({(m["path"], m["line"]) for m in shown})
        at: dict[tuple[str, int], int] = {}
        for path, line, definition in fetch_rows(connection.execute(
                query_sql("definitions_at_lines"), {"places": json.dumps([list(p) for p in places])}),
                tuple[str, int, int]):
            at[(path, line)] = definition  # the innermost at that line wins (definition order)
        named = pytest_ids(connection, sorted(set(at.values())))
        for mention in shown:
            held = at.get((mention["path"], mention["line"]))
            test_id = named.get(held) if held is not None else None
            if test_id is None:
                if held is not None or not collected_file(mention["path"]):
                    continue
                test_id = (mention["path"], "pytest")  # a mention at a test file's top level
            step = {"from": mention["label"], "relation": mention["form"], "evidence": "textual",
                    "to": anchor["label"], "site": f"{mention['path']}:{mention['line']}"}
            _add(found, {"id": test_id[0], "runner": test_id[1], "label": mention["label"], "path": mention["path"],
                         "line": mention["line"], "hop": 1, "evidence": "textual", "why": [step]}, anchor["key"])


def _ids(
    connection: apsw.Connection, keys: list[int], heads: dict[int, dict[str, Any]]
) -> dict[int, tuple[str, str]]:
    """Each key's (id, runner): a pytest node id from its resolved definition, its test file when
    it is not Python (the resolver may read it, pytest never runs it); keys of neither (a helper
    pytest does not collect) are left out."""
    definition_of: dict[int, int] = {}
    nodes = [key for key in keys if key > 0]
    if nodes:
        for node, definition in fetch_rows(connection.execute(
                query_sql("resolved_definitions_of"), {"nodes": json.dumps(nodes)}), tuple[int, int]):
            definition_of.setdefault(node, definition)
    for key in keys:
        if key < 0:
            definition_of[key] = -key
    named = pytest_ids(connection, sorted(set(definition_of.values())))
    ids: dict[int, tuple[str, str]] = {}
    for key in keys:
        own = definition_of.get(key)
        path = heads[key]["path"]
        if own is not None and (own in named or is_python_path(path)):
            if own in named:
                ids[key] = named[own]
            continue
        if not is_python_path(path):
            if is_test_path(path):
                ids[key] = (path, "file")
        elif collected_file(path):
            named_by_label = _by_label(path, heads[key]["label"])
            if named_by_label is not None:
                ids[key] = (named_by_label, "pytest")
    return ids


def _by_label(path: str, label: str) -> str | None:
    """A pytest id from a graph node's label alone (the resolver has no definition of it): the
    file for its module or a method (``.name()``: its class is not in the label), the node id of
    a ``test*`` function, None for anything else (a helper)."""
    if label == path.rsplit("/", 1)[-1] or label.startswith("."):
        return path
    name = label.removesuffix("()")
    return f"{path}::{name}" if name.startswith("test") and name.isidentifier() else None


def pytest_ids(connection: apsw.Connection, definitions: list[int]) -> dict[int, tuple[str, str]]:
    """The pytest node id of each definition pytest would collect (or that lies inside one): its
    file's path, then from the outermost enclosing definition in, ``Test*`` classes and the first
    ``test*`` function or method (a function nested in a test runs as that test). A module of a
    collected file is the file; anything else (a helper, a fixture) is left out."""
    chains: dict[int, list[tuple[str, str]]] = {}
    paths: dict[int, str] = {}
    for start, path, _, kind, name in fetch_rows(connection.execute(
            query_sql("test_ancestry"), {"definitions": json.dumps(definitions)}), tuple[int, str, int, str, str]):
        chains.setdefault(start, []).append((kind, name))
        paths[start] = path
    ids: dict[int, tuple[str, str]] = {}
    for definition, chain in chains.items():
        path = paths[definition]
        if not collected_file(path):
            continue
        outward = [link for link in reversed(chain) if link[0] != "module"]
        if not outward:
            ids[definition] = (path, "pytest")  # pytest runs a file's tests
            continue
        parts: list[str] = []
        for kind, name in outward:
            if kind == "class" and name.startswith("Test"):
                parts.append(name)
                continue
            if kind in ("function", "method") and name.startswith("test"):
                parts.append(name)
                break
            parts = []
            break
        if parts:
            ids[definition] = ("::".join([path, *parts]), "pytest")
    return ids


def collected_file(path: str) -> bool:
    """Whether pytest's default ``python_files`` (``test_*.py``, ``*_test.py``) collects it."""
    base = path.rsplit("/", 1)[-1]
    return base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py"))
