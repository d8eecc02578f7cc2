"""The relation map of ``code_context``: which provider relation words each section follows.

The seed's questions follow normalised kinds only, so a callback (``indirect_call``), a
``uses``, an ``imports_from`` or a ``re_exports`` edge is invisible to ``impact``. Here every
section names the provider's own words it crosses, in the answer (``used_relations``) and in
docs/code-context.md, so a reader can see exactly what "caller" meant. A word is listed only where
it means what the section asks: a callback passed somewhere is a use of it; a subclass is
impacted by its base; containment is what something defines, never a use of it.
"""

from __future__ import annotations

from ..base.records import record

OUTGOING, INCOMING = 0, 1

CALLS = ("calls", "indirect_call")
DEFINES = ("contains", "defines", "method")
REFERENCES = ("imports", "imports_from", "inherits", "implements", "re_exports", "references", "uses")
REACHES_TESTS = ("calls", "imports", "imports_from", "indirect_call", "re_exports", "references", "tests", "uses")
IMPACTS = ("calls", "imports", "imports_from", "implements", "indirect_call", "inherits", "re_exports",
           "references", "uses")


@record
class WalkSpec:
    """One bounded walk: direction over the edges, the relation words followed, the hop limit."""

    direction: int
    relations: tuple[str, ...]
    depth: int


WALKS: dict[str, WalkSpec] = {
    "calls": WalkSpec(OUTGOING, CALLS, 2),
    "defines": WalkSpec(OUTGOING, DEFINES, 1),
    "callers": WalkSpec(INCOMING, CALLS, 1),
    "references": WalkSpec(INCOMING, REFERENCES, 1),
    "tests": WalkSpec(INCOMING, REACHES_TESTS, 2),
    "callers_by_hop": WalkSpec(INCOMING, IMPACTS, 3),
}


def used_relations(sections: tuple[str, ...]) -> dict[str, dict[str, object]]:
    """The declared map for the walks an intent runs, in section order."""
    direction = {OUTGOING: "along", INCOMING: "against"}
    return {
        name: {"direction": direction[WALKS[name].direction], "depth": WALKS[name].depth,
               "relations": list(WALKS[name].relations)}
        for name in sections if name in WALKS
    }
