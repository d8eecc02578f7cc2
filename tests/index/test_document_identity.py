"""Reading ``graph.json`` end to end, relationship identity: which records are one edge,
and the order edges are numbered in.

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

from pathlib import Path

from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import open_index

from ..support.documentkit import load, publish_graph, with_edges
from ..support.g0 import edge, g0_graph

# --- relationship identity ---------------------------------------------------------------------


def test_exact_duplicate_records_collapse_to_one_edge(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"].append(dict(graph["edges"][0]))
    loaded = load(repo, state_dir, graph)
    assert ("n-load", "n-config", "calls", "calls", "extracted", "", None, 2) in loaded.edges
    assert len(loaded.edges) == 4
    assert loaded.report.counts["edge_records"] == 5
    assert loaded.report.counts["raw_edges"] == 5


def test_duplicate_records_with_a_call_site_collapse(repo: Path, state_dir: Path) -> None:
    site = {"path": "example_pkg/loader.py", "location": "L41"}
    graph = with_edges(
        edge("n-load", "n-config", **site), edge("n-load", "n-config", weight=0.5, **site)
    )
    loaded = load(repo, state_dir, graph)
    assert (
        "n-load",
        "n-config",
        "calls",
        "calls",
        "extracted",
        "example_pkg/loader.py",
        41,
        2,
    ) in loaded.edges
    assert len(loaded.edges) == 5
    assert loaded.report.counts["call_sites"] == 1


def test_same_relationship_at_two_call_sites_is_two_edges(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-load", "n-report", path="example_pkg/loader.py", location="L14"),
        edge("n-load", "n-report", path="example_pkg/loader.py", location="L13"),
        edge("n-load", "n-report", path="example_pkg/config.py", location="L13"),
        edge("n-load", "n-report", path="example_pkg/loader.py"),
        edge("n-load", "n-report"),
    )
    loaded = load(repo, state_dir, graph)
    sites = [(e[5], e[6], e[7]) for e in loaded.edges if e[:2] == ("n-load", "n-report")]
    assert sites == [
        ("", None, 1),
        ("example_pkg/config.py", 13, 1),
        ("example_pkg/loader.py", None, 1),
        ("example_pkg/loader.py", 13, 1),
        ("example_pkg/loader.py", 14, 1),
    ]
    assert loaded.report.counts["call_sites"] == 4


def test_wording_and_confidence_are_part_of_identity(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-load", "n-config", "calls", "INFERRED"),
        edge("n-load", "n-config", "Calls"),
        edge("n-load", "n-config", "supersedes"),
        edge("n-load", "n-config", "implements"),
        edge("n-load", "n-config", "inherits"),
    )
    loaded = load(repo, state_dir, graph)
    between = [(e[2], e[3], e[4]) for e in loaded.edges if e[:2] == ("n-load", "n-config")]
    assert between == [
        ("Calls", "related", "extracted"),
        ("calls", "calls", "extracted"),
        ("calls", "calls", "inferred"),
        ("implements", "inherits", "extracted"),
        ("inherits", "inherits", "extracted"),
        ("supersedes", "related", "extracted"),
    ]


def test_edges_are_numbered_in_identity_order(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-report", "n-report", "calls"),
        edge("n-config", "n-load", "imports", path="example_pkg/config.py", location="L2"),
        edge("n-config", "n-load", "imports", path="example_pkg/config.py", location="L10"),
        edge("n-config", "n-load", "imports", path="example_pkg/config.py"),
        edge("n-config", "n-load", "imports", "AMBIGUOUS"),
    )
    workspace = publish_graph(repo, state_dir, graph)
    report = ensure_index(workspace)
    connection = open_index(report.path)
    try:
        rows = connection.execute(
            "SELECT e.edge, s.provider_id, t.provider_id, e.relation, e.kind, e.confidence,"
            " e.site_path, coalesce(e.site_line, -1) FROM edges AS e"
            " JOIN nodes AS s ON s.node = e.source JOIN nodes AS t ON t.node = e.target"
            " ORDER BY e.edge"
        ).fetchall()
        adjacency = connection.execute(
            "SELECT node, direction, position, kind, edge, neighbour FROM adjacency"
        ).fetchall()
        edge_rows = connection.execute("SELECT edge, source, target, kind FROM edges").fetchall()
    finally:
        connection.close()
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    identities = [r[1:] for r in rows]
    assert identities == sorted(identities)
    # adjacency: every edge once in each direction, each list in edge-rank order, self-loop in both
    expected = []
    for direction, end, other in ((0, 1, 2), (1, 2, 1)):
        by_node: dict[int, list[tuple[int, str, int]]] = {}
        for row in edge_rows:
            by_node.setdefault(row[end], []).append((row[0], row[3], row[other]))
        for number, items in by_node.items():
            for position, (rank, kind, neighbour) in enumerate(sorted(items)):
                expected.append((number, direction, position, kind, rank, neighbour))
    assert adjacency == sorted(expected)
    assert len(adjacency) == 2 * len(edge_rows)
