"""The resolved layer's test kit: a real repository published with a graph naming its files, and
the index's resolved rows read back by name (tests/index/test_resolved_*.py).

The graph is the smallest the importer accepts that names every Python file (one file node each,
as the pinned provider writes them), plus the symbol nodes a test asks for; the resolver reads
the Python files the graph's nodes name, from the bound commit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cm_graph.generation.layout import Workspace
from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import open_index

from .g0 import node
from .helpers import make_repo, publish

# (path, line, role, bound definition's qualname or None, name at the site, enclosing qualname)
Row = tuple[str, int, str, str | None, str, str]


def file_nodes(files: dict[str, str | bytes], symbols: list[dict[str, Any]] = (),  # type: ignore[assignment]
               labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A graph of one file node per Python file of ``files`` (and ``symbols``), labelled with its
    base name or, for a path in ``labels``, that label (the provider qualifies file nodes whose
    base names collide by their shortest unique path suffix: ``pkg/__init__.py``)."""
    labels = labels or {}
    nodes = [node(path.replace("/", "_").replace(".", "_"), labels.get(path, path.rpartition("/")[2]), path, "L1")
             for path in sorted(files) if path.endswith(".py")]
    return {"nodes": [*nodes, *symbols], "edges": [], "hyperedges": [], "input_tokens": 0, "output_tokens": 0,
            "extracted_sources": []}


def resolved_repo(root: Path, files: dict[str, str | bytes], symbols: list[dict[str, Any]] = (),  # type: ignore[assignment]
                  labels: dict[str, str] | None = None) -> Path:
    """Commit ``files`` at ``root``/repo, publish a graph naming them (file nodes labelled as
    ``file_nodes`` says) and derive the index; the index file's path."""
    repo = make_repo(root / "repo", files)
    workspace = publish(repo, root / "state", file_nodes(files, list(symbols), labels))
    return ensure_index(workspace).path


def index_of(workspace: Workspace) -> Path:
    return ensure_index(workspace).path


def references(index: Path, *, roles: tuple[str, ...] = ()) -> list[Row]:
    """Every resolved reference (or those of ``roles``), by name, in the table's order."""
    connection = open_index(index)
    try:
        rows = connection.execute(
            "SELECT f.path, r.line, r.role, d.qualname, r.name, e.qualname FROM resolved_references AS r"
            " JOIN resolved_files AS f USING (file) LEFT JOIN definitions AS d ON d.definition = r.definition"
            " JOIN definitions AS e ON e.definition = r.enclosing ORDER BY r.reference").fetchall()
    finally:
        connection.close()
    return [tuple(row) for row in rows if not roles or row[2] in roles]  # type: ignore[misc]


def definitions(index: Path) -> list[tuple[Any, ...]]:
    """(path, kind, qualname, start_line, line, end_line, overload, parent qualname, node's provider
    id) of every definition, in the table's order."""
    connection = open_index(index)
    try:
        return [tuple(row) for row in connection.execute(
            "SELECT f.path, d.kind, d.qualname, d.start_line, d.line, d.end_line, d.overload, p.qualname,"
            " n.provider_id FROM definitions AS d JOIN resolved_files AS f USING (file)"
            " LEFT JOIN definitions AS p ON p.definition = d.parent LEFT JOIN nodes AS n ON n.node = d.node"
            " ORDER BY d.definition")]
    finally:
        connection.close()


def counts(index: Path) -> dict[str, int]:
    connection = open_index(index)
    try:
        return dict(connection.execute("SELECT name, value FROM counts WHERE name LIKE 'resolved%'").fetchall())
    finally:
        connection.close()
