"""Overrides of a method: the same-named methods of its class's subclasses, transitively.

Two kinds of evidence, each labelled: the provider's (``graph``: the class that holds the method
by a ``method`` edge, its subclasses against ``inherits`` edges to the walk's depth, and each
subclass's ``method`` of the same name) and the resolver's (``resolved``: every ``override``
reference, which binds an overriding method to the nearest base's method of its name by the
class's MRO, docs/resolver.md, followed to the same depth). A method both find is one item with
both labels. Overrides outside this repository, in classes made at run time, or under a base
neither the graph nor the resolver connects stay unseen, and the section says so.
"""

from __future__ import annotations

from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.graphmodel import is_test_path
from ..index.mentions import defined_name
from .relations import INCOMING, OUTGOING, WalkSpec
from .sites import local_name
from .walks import MAX_READ, walk

GRAPH, RESOLVED = "graph", "resolved"
HOLDS_METHOD = ("method",)


def is_method(definition: tuple[int, str, str, str, int | None] | None, label: str) -> bool:
    """Whether the anchor is a method: the resolver's kind where it read the file, else the
    provider's label of a method (``.name()``)."""
    if definition is not None:
        return definition[1] == "method"
    return label.startswith(".") and defined_name(label) is not None


def overriding(
    connection: apsw.Connection, node: int, label: str, subclasses: WalkSpec, describe: Any,
) -> tuple[list[dict[str, Any]], set[int], bool]:
    """(items in depth, path, line order; the graph nodes the walks reached; whether a walk
    stopped at its read bound)."""
    name = defined_name(label)
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for path, line, qualname, module, depth in fetch_rows(connection.execute(
            query_sql("override_closure"), {"node": node, "depth": subclasses.depth, "limit": MAX_READ}),
            tuple[str, int, str, str, int]):
        found[(path, line)] = {"label": local_name(qualname, module), "path": path, "line": line, "depth": depth,
                               "evidence": [RESOLVED], "test": is_test_path(path)}
    owners = walk(connection, (node,), WalkSpec(INCOMING, HOLDS_METHOD, 1))
    classes = tuple(sorted({step.reached for step in owners.steps}))
    touched = set(classes)
    limited = owners.read_limited
    if classes:
        tree = walk(connection, classes, subclasses)
        limited = limited or tree.read_limited
        hop_of = {step.reached: step.hop for step in tree.steps if step.reached not in classes}
        touched.update(hop_of)
        methods = walk(connection, tuple(sorted(hop_of)), WalkSpec(OUTGOING, HOLDS_METHOD, 1)) if hop_of else None
        if methods is not None:
            limited = limited or methods.read_limited
            same = [step for step in methods.steps if step.reached != node]
            nodes = describe(connection, [step.reached for step in same] + [step.origin for step in same])
            for step in same:
                method = nodes[step.reached]
                if defined_name(method["label"]) != name or method["path"] is None or not method["line"]:
                    continue
                touched.add(step.reached)
                key = (method["path"], method["line"])
                if key in found:
                    if GRAPH not in found[key]["evidence"]:
                        found[key]["evidence"].insert(0, GRAPH)
                    found[key]["depth"] = min(found[key]["depth"], hop_of[step.origin])
                    continue
                found[key] = {"label": f"{nodes[step.origin]['label']}.{name}", "path": method["path"],
                              "line": method["line"], "depth": hop_of[step.origin], "evidence": [GRAPH],
                              "test": is_test_path(method["path"])}
    items = sorted(found.values(), key=lambda item: (item["depth"], item["path"], item["line"]))
    return items, touched, limited
