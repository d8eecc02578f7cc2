"""Shared set-up for code_context tests: publish a graph, ask an intent, mask the generation id.

A generation id is minted fresh by every publish (by design), so comparisons across publishes
replace it with a fixed token and recompute nothing else: every other byte must be equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cm_graph.base.jsonio import dumps_wire
from cm_graph.context.from_workspace import code_context
from cm_graph.context.wire import cited, header, location, section_items
from cm_graph.generation.layout import Workspace

from .helpers import publish
from .wholeschemas import checked


def ask_context(workspace: Workspace, intent: str, target: str, *, wire: bool = False, **options: Any
                ) -> dict[str, Any]:
    """The answer read back (``readable``); ``wire``: the bytes' document as it is sent (valid under
    its whole schema, ``cmgraph://schemas/cm_graph.codeContext.v3``, either way)."""
    document = checked(code_context(workspace, intent, target, **options))
    return document if wire else readable(document)


def many_callers(count: int) -> dict[str, str]:
    """A package where each of ``count`` modules calls ``pkg/core.py``'s ``target`` once, from
    ``caller_NN`` (for the real provider: a target with more callers than a page holds)."""
    files = {"pkg/__init__.py": "", "pkg/core.py": "def target(x):\n    return x + 1\n"}
    for i in range(count):
        files[f"pkg/user_{i:02d}.py"] = (f"from pkg.core import target\n\n\ndef caller_{i:02d}(v):\n"
                                         "    return target(v)\n")
    return files


def published(repo: Path, state: Path, graph: dict[str, Any]) -> Workspace:
    return publish(repo, state, graph)


def mention_lines(document: dict[str, Any]) -> list[tuple[str, int]]:
    """(path, line) of each item of an answer's ``mentions`` section, in order."""
    return [(i["path"], i["line"]) for i in document["sections"]["mentions"]["items"]]


def masked(document: dict[str, Any]) -> str:
    """The answer's bytes with this publish's generation id (and the digest over it) masked."""
    text = dumps_wire(document).replace(document["graph"]["generation"], "<generation>")
    return text.replace(document["answer_id"], "<answer_id>")


def readable(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (a code_context answer) with each section's ``items`` read back from its rows
    and the citations as ``{id, path, line, cite}`` entries, for tests that look at items."""
    citations = cited(document)
    out = dict(document)
    out["sections"] = {name: {**header(section), "items": section_items(section, citations)}
                       for name, section in document.get("sections", {}).items()}
    out["citations"] = [{"id": cid, "cite": cite, "path": location(cite)[0], "line": location(cite)[1]}
                        for cid, cite in citations.items()]
    return out
