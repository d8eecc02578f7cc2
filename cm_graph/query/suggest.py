""""Did you mean": ranked suggestions for a target that resolves to nothing.

Resolution itself stays exact (the seed's three tiers); this only helps a person retype the
name, in ``ask`` and its JSON, never in ``query``'s metadata. Three kinds, in this order:

- the method spelling: ``ensure_object`` or ``Context.ensure_object`` names the provider's
  ``.ensure_object()`` label, defined in ``Context``;
- a file name: ``sessions.py`` names the paths that end with it;
- spelling: labels within a small edit distance, a swap counting as one edit (``ecko`` -> ``echo()``,
  ``Contxet`` -> ``Context``);
- containing: labels and paths that contain the target (``parse`` -> ``parse_config``).
"""

from __future__ import annotations

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .symbols import describe

MAX_SUGGESTIONS = 5
SPELLING_CANDIDATES = 50_000  # names an edit-distance ranking reads at most


def edit_distance(a: str, b: str, cap: int) -> int:
    """The optimal string alignment distance of ``a`` and ``b`` (Levenshtein's insert, delete and
    substitute, plus a swap of two neighbouring characters as one edit: ``Clinet`` is one typo
    from ``Client``, not two), or ``cap + 1`` once it must exceed ``cap``."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                best = min(best, before[j - 2] + 1)
            current.append(best)
        # A later row is reached from this one, or by a swap from the one before (+1).
        if min(current) > cap and min(previous) >= cap:
            return cap + 1
        before, previous = previous, current
    return min(previous[-1], cap + 1)


def _methods(connection: apsw.Connection, target: str) -> list[dict[str, object]]:
    container, dot, name = target.rpartition(".")
    name = name.removesuffix("()")
    if not name or not name.isidentifier():
        return []
    rows = fetch_rows(connection.execute(
        query_sql("suggest_methods"),
        {"name": name, "container": container if dot and container else None, "limit": MAX_SUGGESTIONS},
    ), tuple[int])
    described = describe(connection, [row[0] for row in rows])
    found = []
    for row in rows:
        endpoint = described[row[0]]
        held = f" defined in {endpoint.container}" if endpoint.container else ""
        where = f" at {endpoint.citation}" if endpoint.citation else ""
        found.append({
            "target": endpoint.label, "why": "method", **endpoint.to_json(),
            "text": f"{endpoint.label}{held}{where}",
        })
    return found


def _paths(connection: apsw.Connection, target: str) -> list[dict[str, object]]:
    tail = target.strip("/")
    if not tail:
        return []
    rows = connection.execute(query_sql("suggest_paths"), {"tail": tail, "limit": MAX_SUGGESTIONS})
    return [{"target": row[0], "why": "path", "text": row[0]} for row in rows]


def _spellings(connection: apsw.Connection, target: str) -> list[dict[str, object]]:
    cap = max(1, min(3, len(target) // 4))
    rows = connection.execute(
        query_sql("suggest_spellings"),
        {"length": len(target), "slack": cap + 2, "limit": SPELLING_CANDIDATES},
    )
    folded = target.lower()
    ranked = []
    for (name,) in rows:
        bare = name.removesuffix("()")
        distance = edit_distance(folded, bare.lower(), cap)
        if distance <= cap:
            ranked.append((distance, len(name), name))
    ranked.sort()
    seen: set[str] = set()
    found = []
    for distance, _, name in ranked:
        if name.removesuffix("()") in seen:  # `echo` and `echo()`: one suggestion, the label
            continue
        seen.add(name.removesuffix("()"))
        found.append({"target": name, "why": "spelling", "distance": distance, "text": name})
        if len(found) == MAX_SUGGESTIONS:
            break
    return found


def _containing(connection: apsw.Connection, target: str) -> list[dict[str, object]]:
    rows = connection.execute(query_sql("similar_targets"), {"target": target, "limit": MAX_SUGGESTIONS})
    return [{"target": row[0], "why": "contains", "text": row[0]} for row in rows]


def suggestions(connection: apsw.Connection, target: str) -> list[dict[str, object]]:
    """At most MAX_SUGGESTIONS suggestions for an unresolved ``target``, best first."""
    found: list[dict[str, object]] = []
    for kind in (_methods, _paths, _spellings, _containing):
        for item in kind(connection, target):
            # One line per definition: a name already suggested with its place is not repeated bare.
            same = [other for other in found if other["target"] == item["target"]]
            if not any(item.get("citation") in (None, other.get("citation")) for other in same):
                found.append(item)
    return found[:MAX_SUGGESTIONS]

