"""The depth of the static walk to tests (``cm_graph/context/testrun.py``), chosen by measuring.

The truth of "which tests execute X" is the dynamic trace of each held-out package's own test
suite (``trace_python.py``, cached by ``tasks.py`` under ``<cache>/heldout/<pkg>/trace.json``:
per pytest node id, the code objects it executed). For each package, up to ``--targets``
functions and methods outside the test paths that at least one test executed are taken at an
even stride through their sorted keys (path, first line, name): deterministic, no choosing.
Each is looked up in the package's built index (``<cache>/heldout/<pkg>/state``, bound to the
same commit), and ``tests_to_run`` is asked at depths 1..4 in six variants (``VARIANTS``): the
default (graph and resolved together, a method's class as a fallback way in, textual evidence as
a fallback), textual always / never, the walk up from an override to its base methods added, and
the class never / always.

Scoring, per target: a selected pytest node id stands for the traced tests with that id (a
parametrised test's ``[...]`` cases folded into one); a test file for every traced test of that
file; a class id for every traced test in it. Recall is the share of the executing tests
selected, precision the share of the selected that execute the target, ``share`` the selected
share of the traced suite; the table gives their means over targets, and ``found`` the share of
targets with at least one executing test selected.

    python benchmarks/tests_depth.py [--cache /tmp/cm-graph-bench] [--targets 20]
        [--packages marshmallow-3.23.2,markdown-3.7,toolz-1.0.0] [--json]
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from pathlib import Path
from typing import Any

import apsw

from cm_graph.context.testrun import tests_to_run
from cm_graph.index.graphmodel import is_test_path

PACKAGES = ("marshmallow-3.23.2", "markdown-3.7", "toolz-1.0.0")
DEPTHS = (1, 2, 3, 4)
# (textual, overrides, classes): the chosen default first (testrun.py), then each evidence dropped
# or added alone.
VARIANTS = (("fallback", False, "fallback"), ("always", False, "fallback"), ("never", False, "fallback"),
            ("fallback", True, "fallback"), ("fallback", False, "never"), ("fallback", False, "always"))


def _variant(textual: str, overrides: bool, classes: str) -> str:
    return "+".join(["graph+resolved", *([f"textual ({textual})"] if textual != "never" else []),
                     *(["overrides"] if overrides else []), *([f"class ({classes})"] if classes != "never" else [])])


def _fold(node_id: str) -> str:
    return node_id.split("[", 1)[0]


def load(cache: Path, package: str) -> tuple[apsw.Connection, dict[str, set[tuple[str, int, str]]]]:
    home = cache / "heldout" / package
    trace = json.loads((home / "trace.json").read_text())
    tests: dict[str, set[tuple[str, int, str]]] = {}
    for node_id, entry in trace["tests"].items():
        tests.setdefault(_fold(node_id), set()).update((p, int(n), c) for p, n, c in entry.get("executed", ()))
    [database] = sorted(glob.glob(str(home / "state" / "graph" / "*" / "indexes" / "*.sqlite")))
    connection = apsw.Connection(f"file:{database}?immutable=1", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    return connection, tests


def targets(connection: apsw.Connection, tests: dict[str, set[tuple[str, int, str]]], wanted: int
            ) -> list[dict[str, Any]]:
    executed: dict[tuple[str, int, str], set[str]] = {}
    for node_id, code in tests.items():
        for key in code:
            executed.setdefault(key, set()).add(node_id)
    rows = connection.execute(
        "SELECT f.path, d.start_line, d.line, d.name, d.definition, d.node, d.kind FROM definitions AS d "
        "JOIN resolved_files AS f ON f.file = d.file WHERE d.kind IN ('function', 'method')").fetchall()
    found = []
    for path, start, line, name, definition, node, _kind in rows:
        if is_test_path(path):
            continue
        runs = executed.get((path, start, name), set()) | executed.get((path, line, name), set())
        if runs:
            found.append({"key": f"{path}:{line}:{name}", "path": path, "line": line, "name": name,
                          "definition": definition, "node": node, "truth": runs})
    found.sort(key=lambda t: (t["path"], t["line"], t["name"]))
    if len(found) <= wanted:
        return found
    stride = len(found) / wanted
    return [found[int(i * stride)] for i in range(wanted)]


def expand(selected: list[dict[str, Any]], suite: set[str]) -> set[str]:
    chosen: set[str] = set()
    for item in selected:
        test_id = item["id"]
        if item["runner"] == "file" or "::" not in test_id:
            chosen |= {t for t in suite if t.split("::", 1)[0] == test_id}
        else:
            chosen |= {t for t in suite if t == test_id or t.startswith(test_id + "::")}
    return chosen


def measure(cache: Path, package: str, wanted: int) -> dict[str, Any]:
    connection, tests = load(cache, package)
    suite = set(tests)
    chosen_targets = targets(connection, tests, wanted)
    rows: dict[str, Any] = {}
    for textual, overrides, classes in VARIANTS:
        for depth in DEPTHS:
            scores = []
            for target in chosen_targets:
                label = target["name"] + "()" if target["node"] is None else connection.execute(
                    "SELECT label FROM nodes WHERE node = ?", (target["node"],)).fetchone()[0]
                items, _ = tests_to_run(connection, [{"key": target["key"], "node": target["node"],
                                                      "definition": target["definition"], "label": label}],
                                        depth, textual=textual, overrides=overrides, classes=classes)
                selected = expand(items, suite)
                hit = len(selected & target["truth"])
                scores.append({"recall": hit / len(target["truth"]),
                               "precision": hit / len(selected) if selected else None,
                               "share": len(selected) / len(suite), "found": hit > 0, "ids": len(items)})
            precisions = [s["precision"] for s in scores if s["precision"] is not None]
            rows[f"{depth}-{_variant(textual, overrides, classes)}"] = {
                "depth": depth, "variant": _variant(textual, overrides, classes), "targets": len(scores),
                "recall": _mean([s["recall"] for s in scores]),
                "precision": _mean(precisions), "share": _mean([s["share"] for s in scores]),
                "found": _mean([1.0 if s["found"] else 0.0 for s in scores]),
                "empty": sum(1 for s in scores if not s["ids"]),
            }
    connection.close()
    return {"package": package, "suite": len(suite), "targets": len(chosen_targets), "rows": rows}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def markdown(results: list[dict[str, Any]]) -> str:
    out = ["| package (tests, targets) | depth | evidence | recall | precision | found | share of suite | empty |",
           "|---|---|---|---|---|---|---|---|"]
    for result in results:
        for row in result["rows"].values():
            out.append(f"| {result['package']} ({result['suite']}, {result['targets']}) | {row['depth']} | "
                       f"{row['variant']} | {row['recall']} | {row['precision']} | "
                       f"{row['found']} | {row['share']} | {row['empty']} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--targets", type=int, default=20)
    parser.add_argument("--packages", default=",".join(PACKAGES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = [measure(args.cache, package, args.targets) for package in args.packages.split(",")]
    sys.stdout.write(json.dumps(results, indent=1) + "\n" if args.json else markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
