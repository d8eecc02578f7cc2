"""A file's definitions, as ``cm-graph symbols PATH`` and the MCP resource ``cmgraph://symbols/{path}``
both answer them: the graph's definitions in the file, by line, and those the file's text holds
and the graph lacks (extraction gaps, labelled textual). One function, so the two cannot differ.

A path that names no definition is refused ``unresolved``, saying whether the bound commit tracks
the file at all, with the nearest tracked paths as "did you mean".
"""

from __future__ import annotations

from typing import Any

from ..base.errors import Refusal
from ..base.rules import is_bounded_text
from ..generation.definitions import recorded_gaps
from ..generation.layout import Workspace
from ..generation.status import require_current
from ..index.ensure import open_current_index
from ..query.suggest import suggestions
from ..query.symbols import file_symbols
from .documents import CitationChecker

SYMBOLS_SCHEMA = "cm_graph.symbols.v1"
MAX_PATH_CHARS = 1024


def require_path(path: str) -> None:
    """Refuse a path that is blank (slashes at either end aside), several lines or over 1,024
    characters."""
    if not is_bounded_text(path.strip("/"), MAX_PATH_CHARS):
        raise Refusal("Name a repository-relative file path (one line, not blank).", reason="invalid")


def file_definitions(
    workspace: Workspace, given: str, spellings: list[str], *, revision: str = "HEAD", allow_partial: bool = False,
    derive: bool = True, trust_seal: bool = False,
) -> dict[str, Any]:
    """``cm_graph.symbols.v1`` for the first of ``spellings`` (the repository paths the path
    ``given`` can mean, in order) the graph has definitions in; ``derive=False``: a missing index is
    refused (``index_missing``), never built (a server's call)."""
    generation, connection = open_current_index(
        workspace, lambda: require_current(workspace, revision, require_complete=not allow_partial,
                                           trust_seal=trust_seal), derive=derive)
    require_path(given)
    path = given
    try:
        listed: list[dict[str, object]] = []
        for candidate in spellings:
            listed = file_symbols(connection, candidate)
            if listed:
                path = candidate
                break
        near = [] if listed else [str(item["text"]) for item in suggestions(connection, path) if item["why"] == "path"]
        census = CitationChecker(connection)  # the bound commit's tracked files
        tracked = bool(listed) or any(census.confirms(candidate, None) for candidate in spellings)
    finally:
        connection.close()
    if not listed:
        hint = f" Did you mean: {'; '.join(near)}?" if near else ""
        if not tracked:
            raise Refusal(f"No such tracked file at the graph's commit: {path}.{hint}", reason="unresolved")
        raise Refusal(f"The graph has no definition in that file.{hint}", reason="unresolved")
    # What the text of the file defines and the graph lacks (extraction gaps): the list is not the file's whole.
    dropped = [{**item, "evidence": "textual"} for item in recorded_gaps(generation).get(path, [])]
    return {"schema": SYMBOLS_SCHEMA, "path": path, "symbols": listed, **({"dropped": dropped} if dropped else {})}
