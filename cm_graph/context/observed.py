"""The observed test map: which definitions each test of the project's own suite executed, keyed to a generation.

``cm-graph tests record`` (``observed_record.py``) runs the suite once and maps each code object
a test executed (``path``, first line, name) onto the index's definitions by path and line range:
the innermost definition of that file whose range holds the code object's first line (a lambda
or comprehension is its enclosing definition's; module-level code is no definition and is only
counted). The map is ``indexes/<generation>.tests.json``: canonical JSON (sorted keys, sorted
rows, no clock), so recording the same commit again gives the same bytes; private (0600),
written atomically, sealed as the change-coupling history is (``index/seal.py``).

A map belongs to the generation it was recorded for. When the current generation has none but
an older one has, the answer says so (``stale``: the commit it was recorded at) and does not use
it: its paths and lines describe other code. The tests to run then say observed evidence is not
current and name the command; without any map they say it is not recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import apsw

from ..base.errors import Refusal
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.privfs import read_private_bytes, write_private_atomic
from ..base.records import record
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.seal import derived_is_sealed, write_derived_seal

OBSERVED_SCHEMA = "cm_graph.observedTests.v1"
SUFFIX = ".tests.json"
MAX_MAP_BYTES = 256 * 1024 * 1024
RECORD_COMMAND = "cm-graph tests record"
OUTCOMES = ("passed", "failed", "error", "skipped")


def record_path(indexes_dir: Path, generation: str) -> Path:
    return indexes_dir / f"{generation}{SUFFIX}"


@record
class Observed:
    """What the tests to run know of observed evidence: ``status`` current (``data`` is the
    generation's map), stale (only another generation's map, recorded at ``commit``) or
    not_recorded."""

    status: str
    generation: str | None = None
    commit: str | None = None
    data: dict[str, Any] | None = None

    def header(self) -> dict[str, Any]:
        """The ``observed`` entry of a tests section's header and of ``changes``'s tests."""
        shown: dict[str, Any] = {"status": self.status, "detail": self.sentence()}
        if self.status != "not_recorded":
            shown.update(generation=self.generation, commit=self.commit)
        if self.data is not None:
            shown["summary"] = self.data["summary"]
        return shown

    def sentence(self) -> str:
        if self.status == "current":
            summary = self.data["summary"] if self.data else {}
            return (f"Observed: a recorded run of this generation's suite ({summary.get('tests', 0)} tests, "
                    f"{summary.get('failed', 0) + summary.get('error', 0)} failing) executed these; observed tests "
                    "are ranked first.")
        if self.status == "stale":
            return (f"Observed evidence was recorded at {str(self.commit)[:12]}, older than the code it would map, "
                    f"so it is not used; run `{RECORD_COMMAND}` for this generation.")
        return f"Observed evidence is not recorded for this generation; `{RECORD_COMMAND}` runs the suite once."


NOT_RECORDED = Observed("not_recorded")


def build_map(connection: apsw.Connection, raw: dict[str, Any]) -> tuple[list[list[Any]], list[list[Any]], int]:
    """(definitions, tests, unmapped) from the plugin's raw record: ``definitions`` the sorted
    ``[path, qualname, start_line, end_line]`` any test executed, ``tests`` the sorted
    ``[node id, outcome, path, line, [definition positions]]``, ``unmapped`` how many executed
    code objects (module-level code, files the resolver did not read) map to no definition."""
    executed = {(str(p), int(n)) for entry in raw["tests"].values() for p, n, _ in entry.get("executed", ())}
    paths = sorted({path for path, _ in executed})
    ranges: dict[str, list[tuple[int, int, str]]] = {}
    for path, qualname, _kind, start, end in fetch_rows(connection.execute(
            query_sql("observed_file_definitions"), {"paths": json.dumps(paths)}), tuple[str, str, str, int, int]):
        ranges.setdefault(path, []).append((start, end, qualname))
    owner: dict[tuple[str, int], tuple[str, str, int, int] | None] = {}
    for path, first in sorted(executed):
        owner[(path, first)] = _innermost(ranges.get(path, []), path, first)
    chosen = sorted({found for found in owner.values() if found is not None})
    position = {found: number for number, found in enumerate(chosen)}
    tests = []
    unmapped: set[tuple[str, int]] = set()
    for node_id in sorted(raw["tests"]):
        entry = raw["tests"][node_id]
        held = set()
        for path, first, _ in entry.get("executed", ()):
            found = owner[(str(path), int(first))]
            if found is None:
                unmapped.add((str(path), int(first)))
            else:
                held.add(position[found])
        function = entry.get("function") or [node_id.split("::", 1)[0], 0]
        outcome = entry.get("outcome") if entry.get("outcome") in OUTCOMES else "error"
        tests.append([node_id, outcome, str(function[0]), int(function[1]), sorted(held)])
    return [list(found) for found in chosen], tests, len(unmapped)


def _innermost(spans: list[tuple[int, int, str]], path: str, first: int) -> tuple[str, str, int, int] | None:
    """The innermost definition of ``spans`` holding line ``first`` (the shortest range; ranges
    nest, so it is the one nested deepest)."""
    best = None
    for start, end, qualname in spans:
        if start <= first <= end and (best is None or end - start < best[3] - best[2]):
            best = (path, qualname, start, end)
    return best


def write_map(destination: Path, document: dict[str, Any], generation: str, *, token: str) -> None:
    """Write the map privately and atomically (the sibling carries ``token``), then seal it."""
    write_private_atomic(destination, dumps_canonical(document) + b"\n", token=token)
    write_derived_seal(destination, generation, token=token)


def load_observed(indexes_dir: Path, generation: str) -> Observed:
    """The generation's map when it is there and sealed; else another generation's (the first by
    id), as stale (never used); else not recorded. An unsealed or unreadable map counts as absent."""
    own = _read(record_path(indexes_dir, generation), generation)
    if own is not None:
        return Observed("current", generation, own["commit"], own)
    try:
        names = sorted(p.name for p in indexes_dir.glob(f"*{SUFFIX}"))
    except OSError:
        names = []
    for name in names:  # by generation id: which of several older maps is named never depends on a clock
        other = name.removesuffix(SUFFIX)
        if other == generation or len(other) != 32:
            continue
        found = _read(indexes_dir / name, other)
        if found is not None:
            return Observed("stale", other, found["commit"])
    return NOT_RECORDED


def _read(path: Path, generation: str) -> dict[str, Any] | None:
    if not path.is_file() or not derived_is_sealed(path, generation):
        return None
    try:
        data = loads_strict(read_private_bytes(path, MAX_MAP_BYTES), "The observed test map")
    except (OSError, Refusal):
        return None
    if not isinstance(data, dict) or data.get("schema") != OBSERVED_SCHEMA or data.get("generation") != generation:
        return None
    return data


def observed_tests(
    connection: apsw.Connection, observed: Observed, anchors: list[dict[str, Any]], definitions_of: Any,
) -> list[dict[str, Any]]:
    """The tests the current map saw executing each anchor (its own range, or code nested in it),
    as tests-to-run items labelled ``observed``; ``definitions_of(anchor)`` gives an anchor's
    resolved definitions. Nothing unless the map is current."""
    if observed.status != "current" or observed.data is None:
        return []
    data = observed.data
    table = data["definitions"]
    by_path: dict[str, list[int]] = {}
    for number, (path, _qualname, _start, _end) in enumerate(table):
        by_path.setdefault(path, []).append(number)
    runners: dict[int, list[int]] = {}
    for index, test in enumerate(data["tests"]):
        for number in test[4]:
            runners.setdefault(number, []).append(index)
    found: dict[str, dict[str, Any]] = {}
    for anchor in anchors:
        wanted = definitions_of(anchor)
        if not wanted:
            continue
        for _definition, path, start, end, _qualname in fetch_rows(connection.execute(
                query_sql("definition_ranges"), {"definitions": json.dumps(sorted(wanted))}),
                tuple[int, str, int, int, str]):
            inside = [n for n in by_path.get(path, ()) if start <= table[n][2] and table[n][3] <= end]
            for test_index in sorted({t for n in inside for t in runners.get(n, ())}):
                node_id, outcome, test_path, test_line, _ = data["tests"][test_index]
                item = found.get(node_id)
                if item is None:
                    item = found[node_id] = {
                        "id": node_id, "runner": "pytest", "label": node_id.rsplit("::", 1)[-1],
                        "path": test_path, "line": test_line or None, "hop": 1, "evidence": "observed",
                        "outcome": outcome, "reaches": [], "why": []}
                if anchor["key"] not in item["reaches"]:
                    item["reaches"] = sorted({*item["reaches"], anchor["key"]})
                    item["why"].append({"from": node_id, "relation": "executed", "evidence": "observed",
                                        "to": anchor["label"], "site": None})
    return sorted(found.values(), key=lambda item: (item["path"], item["line"] or 0, item["id"]))
