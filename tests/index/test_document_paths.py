"""Reading ``graph.json`` end to end, paths: out of scope (case 33), uncitable or untraversable,
and sourceless stubs (case 32).

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..support.documentkit import (
    G0_EDGES,
    OUT_OF_SCOPE_PATHS,
    UNCITABLE_PATHS,
    load,
    refuse_graph,
    untraversable_borders,
    with_edges,
)
from ..support.g0 import G0_FILES, edge, g0_graph, node

# --- case 33: out-of-scope paths ---------------------------------------------------------------


@pytest.mark.parametrize("path", OUT_OF_SCOPE_PATHS)
def test_out_of_scope_node_path_refuses(repo: Path, state_dir: Path, path: str) -> None:
    graph = g0_graph()
    graph["nodes"][1]["source_file"] = path
    refusal = refuse_graph(repo, state_dir, graph)
    assert path not in refusal.message


@pytest.mark.parametrize("path", OUT_OF_SCOPE_PATHS)
def test_out_of_scope_call_site_between_code_nodes_refuses(
    repo: Path, state_dir: Path, path: str
) -> None:
    graph = g0_graph()
    graph["edges"][2].update(source_file=path, source_location="L3")
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize("path", OUT_OF_SCOPE_PATHS)
def test_out_of_scope_call_site_without_line_refuses(
    repo: Path, state_dir: Path, path: str
) -> None:
    graph = g0_graph()
    graph["edges"][2]["source_file"] = path
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize("path", OUT_OF_SCOPE_PATHS)
def test_out_of_scope_call_site_on_a_dangling_edge_does_not_refuse(
    repo: Path, state_dir: Path, path: str
) -> None:
    graph = with_edges(
        edge("n-config", "n-ghost", path=path, location="L3"),
        edge("n-ghost", "n-load", path=path),
        edge("n-report", "n-doc", path=path, location="L3"),
        nodes=[node("n-doc", "README", "README.md", None, file_type="document")],
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES
    assert loaded.incomplete == {"n-config", "n-load"}


@pytest.mark.parametrize("bad", [3, [], {}, "x" * 1025])
def test_call_site_path_that_is_not_text(repo: Path, state_dir: Path, bad: Any) -> None:
    graph = g0_graph()
    graph["edges"][0]["source_file"] = bad
    refuse_graph(repo, state_dir, graph)
    dangling = with_edges(edge("n-config", "n-ghost", path=bad))
    load(repo, state_dir.with_name("state-2"), dangling)


@pytest.mark.parametrize("bad", [3, [], {}, True, "x" * 1025])
def test_node_path_that_is_not_text_refuses(repo: Path, state_dir: Path, bad: Any) -> None:
    graph = g0_graph()
    graph["nodes"][0]["source_file"] = bad
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize("path", UNCITABLE_PATHS)
def test_uncitable_node_path_is_untraversable_not_a_refusal(repo: Path, state_dir: Path, path: str) -> None:
    """The seed: a record whose path fails the scope check is not traversable at all; the rest
    of the graph stays usable. The node and its edges are left out, its neighbours are marked."""
    graph = with_edges(
        edge("n-odd", "n-config", path=path, location="L2"),
        edge("n-report", "n-odd", path="example_pkg/report.py", location="L6"),
        nodes=[node("n-odd", "odd\tlabel", path, "L1")],
    )
    loaded = load(repo, state_dir, graph)
    assert "n-odd" not in loaded.nodes
    assert loaded.edges == G0_EDGES
    assert untraversable_borders(loaded) == {"n-config", "n-report"}
    assert loaded.incomplete == set() and loaded.undeclared == []
    counts = loaded.report.counts
    assert (counts["untraversable_nodes"], counts["untraversable_call_sites"]) == (1, 0)
    assert counts["code_nodes"] == len(g0_graph()["nodes"])


UNSTATABLE_LABELS = ["{\n  program,\n  createCommand,\n} from './index.js'", "tab\there", "esc\x1b", "   "]


@pytest.mark.parametrize("label", UNSTATABLE_LABELS)
def test_a_label_no_sentence_can_state_is_untraversable_not_a_refusal(
    repo: Path, state_dir: Path, label: str
) -> None:
    """The provider labels a multi-line destructured JavaScript import with its source text
    (commander 12.1.0's esm.mjs): that record is not traversable, the rest of the graph is."""
    graph = with_edges(
        edge("n-import", "n-config", path="example_pkg/report.py", location="L6"),
        nodes=[node("n-import", label, "example_pkg/report.py", "L4")],
    )
    loaded = load(repo, state_dir, graph)
    assert "n-import" not in loaded.nodes
    assert loaded.edges == G0_EDGES
    assert untraversable_borders(loaded) == {"n-config"}
    assert loaded.report.counts["untraversable_nodes"] == 1


@pytest.mark.parametrize("path", UNCITABLE_PATHS)
def test_uncitable_call_site_between_code_nodes_is_untraversable(
    repo: Path, state_dir: Path, path: str
) -> None:
    graph = g0_graph()
    graph["edges"][1].update(source_file=path, source_location="L3")  # n-report calls n-load
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == [e for e in G0_EDGES if e[:2] != ("n-report", "n-load")]
    assert untraversable_borders(loaded) == {"n-report", "n-load"}
    assert loaded.report.counts["untraversable_call_sites"] == 1
    assert loaded.report.counts["untraversable_nodes"] == 0


def test_uncitable_call_site_on_a_dangling_edge_changes_nothing_else(repo: Path, state_dir: Path) -> None:
    graph = with_edges(edge("n-config", "n-ghost", path="a#b.py", location="L3"))
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES and untraversable_borders(loaded) == set()
    assert loaded.incomplete == {"n-config"}


def test_an_ordinary_graph_borders_nothing(repo: Path, state_dir: Path) -> None:
    loaded = load(repo, state_dir, g0_graph())
    assert untraversable_borders(loaded) == set()
    assert (loaded.report.counts["untraversable_nodes"], loaded.report.counts["untraversable_call_sites"]) == (0, 0)


@pytest.mark.parametrize("twin", [
    node("n-config", "parse_config", "a#b.py", "L1"),  # the same id as a traversable code node
    node("n-odd", "other", "odd/tab\tname.py", "L1"),  # the same id as another untraversable one
])
def test_an_untraversable_node_shares_no_id(repo: Path, state_dir: Path, twin: dict[str, Any]) -> None:
    graph = with_edges(nodes=[node("n-odd", "odd", "a#b.py", "L1"), twin])
    refusal = refuse_graph(repo, state_dir, graph)
    assert "same id" in refusal.message


@pytest.mark.parametrize("location", ["L²", "12"])
def test_an_untraversable_node_still_needs_a_well_formed_location(
    repo: Path, state_dir: Path, location: str
) -> None:
    graph = with_edges(nodes=[node("n-odd", "odd", "a#b.py", location)])
    refuse_graph(repo, state_dir, graph)


def test_paths_need_not_be_tracked_to_be_indexed(repo: Path, state_dir: Path) -> None:
    """Scope is a grammar check; the census decides later whether a citation resolves."""
    graph = with_edges(
        edge("n-scratch", "n-config", path="example_pkg/scratch.py", location="L2"),
        nodes=[node("n-scratch", "scratch", "example_pkg/scratch.py", "L1")],
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.nodes["n-scratch"]["path"] == "example_pkg/scratch.py"
    assert loaded.report.counts["cited_files"] == len(G0_FILES)


# --- case 32: sourceless stubs -----------------------------------------------------------------


@pytest.mark.parametrize("source_file", ["", None])
@pytest.mark.parametrize("location", ["", None, "L5"])
def test_sourceless_stub_is_kept(
    repo: Path, state_dir: Path, source_file: str | None, location: str | None
) -> None:
    graph = with_edges(
        edge("n-config", "n-stub", "references"),
        nodes=[node("n-stub", "Thing", source_file, location)],  # type: ignore[arg-type]
    )
    loaded = load(repo, state_dir, graph)
    stub = loaded.nodes["n-stub"]
    assert (stub["path"], stub["line"], stub["kind"], stub["incomplete"]) == ("", None, "symbol", 0)
    assert len(loaded.edges) == 5
    assert (
        "n-config",
        "n-stub",
        "references",
        "references",
        "extracted",
        "",
        None,
        1,
    ) in loaded.edges
    assert loaded.report.counts["sourceless_nodes"] == 1


def test_sourceless_stub_still_needs_a_valid_location(repo: Path, state_dir: Path) -> None:
    refuse_graph(repo, state_dir, with_edges(nodes=[node("n-stub", "Thing", "", "L0")]))
