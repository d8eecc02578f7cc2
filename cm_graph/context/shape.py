"""The wire shape ``cm_graph.codeContext.v1``: key order, citations, ids and the prose.

Everything here is a pure function of the sections already chosen, so the same graph and
target give the same bytes: citations are numbered in the order the answer first needs them.
The two ids (``capability_id``: the intent and the normalised target, stable across generations;
``answer_id``: the SHA-256 of the canonical JSON of the answer) are ``query/answerids.py``'s,
which every surface shares.
"""

from __future__ import annotations

from typing import Any

from ..base.rules import citation_string

CODE_CONTEXT_SCHEMA = "cm_graph.codeContext.v1"
LIST_HEAD = 6
ID_PLACEHOLDER = "sha256:" + "0" * 64



class CitationBook:
    """Numbers verified ``path#Lline`` citations (c1, c2, ...) in first-use order; a location the
    bound commit does not carry gets no id and is counted."""

    def __init__(self, confirms: Any, commit: str) -> None:
        self._confirms = confirms
        self._commit = commit
        self._ids: dict[tuple[str, int | None], str] = {}
        self.entries: list[dict[str, Any]] = []
        self.unverified = 0

    def cite(self, path: str, line: int | None) -> str | None:
        if not path:
            return None
        key = (path, line)
        if key in self._ids:
            return self._ids[key]
        if not self._confirms(path, line):
            self.unverified += 1
            return None
        cid = f"c{len(self.entries) + 1}"
        self._ids[key] = cid
        self.entries.append({"id": cid, "path": path, "line": line, "cite": citation_string(path, line),
                             "verified_at": self._commit})
        return cid


def shown_cite(item: dict[str, Any]) -> str | None:
    """The one citation id an item is shown with, in the prose and in its table row alike: its
    call or reference site when that is cited (where it uses the anchor), else its definition."""
    site = item.get("site") or {}
    return site.get("cite") or item.get("cite")


def tag(label: str, cid: str | None) -> str:
    return f"`{label}` [{cid}]" if cid else f"`{label}`"


def listed(parts: list[str], total: int, *, at_least: bool = False) -> str:
    """The first ``LIST_HEAD`` parts and how many more of ``total`` there are (``at_least``: the
    total is a lower bound, as at a walk's read bound)."""
    head = ", ".join(parts[:LIST_HEAD])
    more = total - min(len(parts), LIST_HEAD)
    bound = "at least " if at_least else ""
    if not parts and total:  # the budget showed none of them: never a list that starts with "…and"
        return f"none of {bound}{total} shown (cut to fit)"
    return head + (f", …and {bound}{more} more" if more > 0 else "")
