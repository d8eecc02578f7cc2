"""The shared set-up of the ``tests/index/test_document_*.py`` files (reading ``graph.json``
end to end): G0's expected edges, the path and location tables, publishing a graph as a
foreign tool would, expecting a refusal that leaves nothing behind, and reading the index back.
The module-scoped ``repo`` and ``commit`` fixtures are in ``tests/index/conftest.py``."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from cm_graph.base.errors import Refusal
from cm_graph.generation.layout import Workspace
from cm_graph.generation.manifest import PINNED_PROVIDER, REQUIRED_OPTIONS, ProviderPin
from cm_graph.generation.store import publish as publish_generation
from cm_graph.generation.store import read_current
from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import IndexReport, open_index

from .g0 import g0_graph
from .helpers import code_paths, inventory_for, publish_unchecked, write_output

Graph = dict[str, Any]

PROVIDER_0960 = ProviderPin("graphifyy", "0.9.60", "ab" * 32, REQUIRED_OPTIONS)
OTHER_DISTRIBUTION = ProviderPin("graphify", "0.9.58", "cd" * 32, REQUIRED_OPTIONS)

G0_EDGES = [
    ("n-config-file", "n-config", "contains", "defines", "extracted", "", None, 1),
    ("n-load", "n-config", "calls", "calls", "extracted", "", None, 1),
    ("n-report", "n-load", "calls", "calls", "inferred", "", None, 1),
    ("n-test", "n-config", "tests", "tests", "extracted", "", None, 1),
]

# The seed's scope failures that refuse the graph: absolute, parent-traversing, indexer-private.
OUT_OF_SCOPE_PATHS = [
    "/etc/passwd",
    "../sibling/config.py",
    "example_pkg/../../x.py",
    "..\\sibling\\config.py",
    ".git/config",
    ".graphify/nodes.bin",
    "vendor/.git/config",
    ".GIT/config",
]
# Legal git file names no citation can carry (path#L<n> must split one way; a control character
# cannot be one line of text): the record is untraversable and uncited, the graph stays usable.
UNCITABLE_PATHS = [
    "a\\b.py",
    "a//b.py",
    "./a.py",
    "a#b.py",
    "odd/a#L3.py",
    "odd/tab\tname.py",
    "odd/new\nline.py",
    "odd/esc\x1bname.py",
    "odd/del\x7fname.py",
    "odd/nel\x85name.py",
    "odd/not-utf8-\udcff.py",
    "   ",
]
REFUSED_LOCATIONS = [
    "12",
    "line 12",
    "L",
    "L0",
    "L-4",
    "L+4",
    "L 12",
    "l12",
    "L99999999999",
    "L²",
    "L" + "0" * 31 + "1",  # 33 characters
    "L10000000",  # parses, but a citation of it needs eight digits
    12,
    True,
    [],
]


def publish_graph(
    repo: Path,
    state: Path,
    graph: Graph | bytes,
    *,
    provider: ProviderPin = PINNED_PROVIDER,
    keep_previous: bool = False,
) -> Workspace:
    """Publish ``graph`` (a dict, or the exact bytes of graph.json) as the current generation."""
    out = state.parent / f"out-{os.urandom(4).hex()}"
    write_output(out, graph, inventory_for(repo, code_paths(repo)))
    workspace = Workspace.locate(repo, state)
    publish_unchecked(workspace, out, provider=provider, keep_previous=keep_previous)
    return workspace


def publish_artifact(repo: Path, state: Path, payload: bytes) -> Workspace:
    """Publish ``payload`` verbatim as graph.bin, with a manifest that matches its digest.

    A normal G0 generation is published first only to borrow its (valid) manifest fields.
    """
    workspace = publish_graph(repo, state, g0_graph())
    base = read_current(workspace).manifest

    def write_artifact(handle: BinaryIO) -> tuple[int, str]:
        handle.write(payload)
        return len(payload), hashlib.sha256(payload).hexdigest()

    def make_manifest(generation: str, size: int, digest: str):  # type: ignore[no-untyped-def]
        return base._replace(
            generation=generation, graph_bytes=size, graph_digest=digest
        )

    publish_generation(workspace, write_artifact, make_manifest)
    return workspace


def leftovers(workspace: Workspace) -> list[str]:
    """Index, temp and staging files; the artifact's verification seal is not one of them."""
    if not workspace.indexes_dir.exists():
        return []
    return sorted(name for name in os.listdir(workspace.indexes_dir) if not name.endswith(".seal"))


def refuse(workspace: Workspace, reason: str = "unreadable") -> Refusal:
    """Index ``workspace`` expecting a refusal with ``reason``; nothing may remain behind."""
    with pytest.raises(Refusal) as info:
        ensure_index(workspace)
    refusal = info.value
    assert refusal.reason == reason, refusal.message
    assert isinstance(refusal.message, str) and refusal.message
    assert leftovers(workspace) == []
    return refusal


def refuse_graph(
    repo: Path, state: Path, graph: Graph | bytes, reason: str = "unreadable", **kwargs: Any
) -> Refusal:
    return refuse(publish_graph(repo, state, graph, **kwargs), reason)


@dataclasses.dataclass
class Loaded:
    report: IndexReport
    nodes: dict[str, dict[str, Any]]
    edges: list[tuple[Any, ...]]
    undeclared: list[tuple[str, str]]
    exclusions: list[tuple[str, str]]
    generation: dict[str, Any]

    @property
    def incomplete(self) -> set[str]:
        return {pid for pid, row in self.nodes.items() if row["incomplete"]}


def _records(connection: Any, table: str) -> list[dict[str, Any]]:
    columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})").fetchall()]
    rows = connection.execute(f"SELECT * FROM {table}").fetchall()
    return [dict(zip(columns, row, strict=True)) for row in rows]


def read_index(report: IndexReport) -> Loaded:
    connection = open_index(report.path)
    try:
        nodes = {row["provider_id"]: row for row in _records(connection, "nodes")}
        edges = connection.execute(
            "SELECT s.provider_id, t.provider_id, e.relation, e.kind, e.confidence,"
            " e.site_path, e.site_line, e.records"
            " FROM edges AS e JOIN nodes AS s ON s.node = e.source"
            " JOIN nodes AS t ON t.node = e.target ORDER BY e.edge"
        ).fetchall()
        undeclared = connection.execute(
            "SELECT n.provider_id, u.missing_id FROM undeclared_endpoints AS u"
            " JOIN nodes AS n ON n.node = u.node ORDER BY 1, 2"
        ).fetchall()
        exclusions = connection.execute("SELECT provider_id, file_type FROM exclusions").fetchall()
        (generation,) = _records(connection, "generation")
    finally:
        connection.close()
    return Loaded(report, nodes, edges, undeclared, exclusions, generation)


def load(repo: Path, state: Path, graph: Graph | bytes, **kwargs: Any) -> Loaded:
    workspace = publish_graph(repo, state, graph, **kwargs)
    loaded = read_index(ensure_index(workspace))
    assert leftovers(workspace) == [f"{read_current(workspace).id}.sqlite"]
    return loaded


def with_edges(*extra: dict[str, Any], nodes: list[dict[str, Any]] | None = None) -> Graph:
    graph = g0_graph()
    graph["nodes"].extend(nodes or [])
    graph["edges"].extend(extra)
    return graph


def node_link(source: Graph, edge_key: str = "links", **top: Any) -> Graph:
    """The same nodes and edges (and other top-level keys) as a NetworkX node-link export."""
    doc: Graph = {"directed": True, "multigraph": False, "graph": {}}
    doc.update({k: v for k, v in source.items() if k not in ("nodes", "edges")})
    doc.update(top)
    doc["nodes"] = source["nodes"]
    doc[edge_key] = source["edges"]
    return doc


def g0_bytes() -> bytes:
    """G0's graph.json as a compact document, for the cases that damage its bytes."""
    return json.dumps(g0_graph()).encode()


def untraversable_borders(loaded: Loaded) -> set[str]:
    """The provider ids of the nodes the index marks as bordering an untraversable record."""
    connection = open_index(loaded.report.path)
    try:
        rows = connection.execute(
            "SELECT n.provider_id FROM untraversable_borders AS b JOIN nodes AS n ON n.node = b.node"
        ).fetchall()
    finally:
        connection.close()
    return {row[0] for row in rows}
