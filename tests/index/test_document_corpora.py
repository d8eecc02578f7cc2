"""Reading ``graph.json`` end to end, what is left out or missing: non-code corpora (cases 37-38),
undeclared endpoints (cases 39-42) and duplicate ids (case 43).

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..support.documentkit import G0_EDGES, load, refuse_graph, with_edges
from ..support.g0 import edge, g0_graph, node

# --- cases 37-38: non-code corpora -------------------------------------------------------------


@pytest.mark.parametrize(
    "file_type", ["document", "paper", "image", "rationale", "concept", "doc_ref"]
)
def test_non_code_corpus_is_excluded_silently(repo: Path, state_dir: Path, file_type: str) -> None:
    graph = with_edges(
        edge("n-config", "n-doc", "references"),
        edge("n-doc", "n-load", "mentions"),
        nodes=[node("n-doc", "README", "README.md", "L1", file_type=file_type)],
    )
    loaded = load(repo, state_dir, graph)
    assert "n-doc" not in loaded.nodes
    assert loaded.edges == G0_EDGES
    assert loaded.incomplete == set()
    assert loaded.undeclared == []
    assert loaded.exclusions == [("n-doc", file_type)]
    counts = loaded.report.counts
    assert counts["raw_nodes"] == 6 and counts["raw_edges"] == 6
    assert counts["code_nodes"] == 5 and counts["excluded_nodes"] == 1 and counts["edges"] == 4


def test_non_code_node_fields_are_not_validated(repo: Path, state_dir: Path) -> None:
    """Reference §2.5 step 4: a non-code node records its id and nothing else is checked."""
    graph = with_edges(
        nodes=[
            {
                "id": "n-doc",
                "label": 3,
                "file_type": "document",
                "source_file": "/etc/passwd",
                "source_location": "line 12",
            },
            {
                "id": "n-img",
                "label": "x" * 2000,
                "file_type": "image",
                "source_file": ["x"],
                "source_location": "L²",
            },
        ]
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.exclusions == [("n-doc", "document"), ("n-img", "image")]


def test_non_code_node_id_must_still_be_text(repo: Path, state_dir: Path) -> None:
    refuse_graph(
        repo, state_dir, with_edges(nodes=[node(3, "README", "", None, file_type="document")])
    )  # type: ignore[arg-type]


def test_edge_between_two_excluded_nodes_is_pruned(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-doc", "n-paper", "cites"),
        nodes=[
            node("n-doc", "README", "README.md", None, file_type="document"),
            node("n-paper", "paper", "paper.pdf", None, file_type="paper"),
        ],
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES
    assert loaded.incomplete == set()


# --- cases 39-42: undeclared endpoints ---------------------------------------------------------


def test_undeclared_target_marks_the_surviving_endpoint(repo: Path, state_dir: Path) -> None:
    loaded = load(repo, state_dir, with_edges(edge("n-config", "n-ghost")))
    assert loaded.edges == G0_EDGES
    assert loaded.incomplete == {"n-config"}
    assert loaded.undeclared == [("n-config", "n-ghost")]
    assert loaded.report.counts["incomplete_nodes"] == 1
    assert loaded.report.counts["undeclared_endpoints"] == 1


def test_undeclared_endpoints_on_both_sides(repo: Path, state_dir: Path) -> None:
    graph = with_edges(edge("n-ghost", "n-config"), edge("n-load", "n-ghost"))
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == {"n-config", "n-load"}
    assert loaded.undeclared == [("n-config", "n-ghost"), ("n-load", "n-ghost")]
    assert loaded.edges == G0_EDGES


def test_edge_between_two_undeclared_ids_marks_nothing(repo: Path, state_dir: Path) -> None:
    graph = with_edges(edge("n-ghost", "n-other-ghost"), edge("n-ghost", "n-ghost"))
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == set()
    assert loaded.undeclared == []
    assert loaded.edges == G0_EDGES


def test_mixed_dangling(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-config", "n-ghost"),
        edge("n-load", "n-doc"),
        nodes=[node("n-doc", "README", "README.md", None, file_type="document")],
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == {"n-config"}
    assert loaded.undeclared == [("n-config", "n-ghost")]


def test_undeclared_next_to_an_excluded_node_marks_nothing(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-doc", "n-ghost"),
        nodes=[node("n-doc", "README", "README.md", None, file_type="document")],
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == set()
    assert loaded.undeclared == []


def test_one_node_with_several_holes(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-config", "ghost-2"),
        edge("n-config", "ghost-1"),
        edge("ghost-1", "n-config"),
        edge("n-config", "ghost-1", "imports"),
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == {"n-config"}
    assert loaded.undeclared == [("n-config", "ghost-1"), ("n-config", "ghost-2")]
    assert loaded.report.counts["incomplete_nodes"] == 1
    assert loaded.report.counts["undeclared_endpoints"] == 2


def test_a_hole_elsewhere_marks_only_its_neighbour(repo: Path, state_dir: Path) -> None:
    """Case 42's graph: a->b and c->ghost; only c borders a hole."""
    graph = {
        "nodes": [
            node("a", "alpha", "example_pkg/config.py", "L12"),
            node("b", "beta", "example_pkg/loader.py", "L40"),
            node("c", "gamma", "example_pkg/report.py", "L5"),
        ],
        "edges": [edge("a", "b"), edge("c", "n-ghost")],
    }
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == {"c"}
    assert [e[:2] for e in loaded.edges] == [("a", "b")]


def test_undeclared_ids_are_resolved_against_the_whole_document(
    repo: Path, state_dir: Path
) -> None:
    """An edge listed before the node it names is not dangling: classification waits for all."""
    graph = g0_graph()
    graph["edges"].insert(0, edge("n-late", "n-config"))
    graph["nodes"].append(node("n-late", "late", "example_pkg/report.py", "L9"))
    loaded = load(repo, state_dir, graph)
    assert loaded.incomplete == set()
    assert ("n-late", "n-config") in [e[:2] for e in loaded.edges]


# --- case 43: duplicate ids --------------------------------------------------------------------


def test_duplicate_code_ids_refuse(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"].append(node("n-config", "other", "example_pkg/report.py", "L3"))
    refuse_graph(repo, state_dir, graph)


def test_identical_duplicate_code_nodes_refuse(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"].append(dict(graph["nodes"][0]))
    refuse_graph(repo, state_dir, graph)


def test_duplicate_code_ids_across_insert_batches_refuse(repo: Path, state_dir: Path) -> None:
    """A duplicate found while a full batch is flushed mid-stream is still a refusal."""
    graph = g0_graph()
    graph["nodes"].extend(node(f"stub-{i:05d}", "Thing", "", None) for i in range(5100))
    graph["nodes"].append(node("stub-00001", "Thing", "", None))
    refuse_graph(repo, state_dir, graph)


def test_code_and_document_may_share_an_id(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"].append(node("n-config", "README", "README.md", None, file_type="document"))
    graph["nodes"].append(node("n-doc", "README", "README.md", None, file_type="document"))
    graph["nodes"].append(node("n-doc", "README", "README.md", None, file_type="document"))
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES  # edges onto n-config are kept: it is a code node
    assert loaded.nodes["n-config"]["label"] == "parse_config"
    assert loaded.exclusions == [("n-config", "document"), ("n-doc", "document")]
    assert loaded.incomplete == set()
