"""The relation words of ``code_context``: which provider relation words a walk follows.

The seed's questions follow normalised kinds only, so a callback (``indirect_call``), a
``uses``, an ``imports_from`` or a ``re_exports`` edge is invisible to ``impact``. Here are the
provider's own words each walk crosses; every walking section's row (``section_table.py``)
names its group, and the answer (``used_relations``) and docs/code-context.md repeat it, so a
reader can see exactly what "caller" meant. A word is listed only where it means what the
section asks: a callback passed somewhere is a use of it; a subclass is impacted by its base;
containment is what something defines, never a use of it.
"""

from __future__ import annotations

from ..base.records import record

OUTGOING, INCOMING = 0, 1

CALLS = ("calls", "indirect_call")
DEFINES = ("contains", "defines", "method")
MEMBERS = ("method",)  # a class's own methods: what a class "calls" is what its methods call
REFERENCES = ("imports", "imports_from", "inherits", "implements", "re_exports", "references", "uses")
REACHES_TESTS = ("calls", "imports", "imports_from", "indirect_call", "re_exports", "references", "tests", "uses")
SUBCLASSES = ("inherits",)  # against: the subclasses of the class holding a method (overrides)
IMPACTS = ("calls", "imports", "imports_from", "implements", "indirect_call", "inherits", "re_exports",
           "references", "uses")


@record
class WalkSpec:
    """One bounded walk: direction over the edges, the relation words followed, the hop limit."""

    direction: int
    relations: tuple[str, ...]
    depth: int

