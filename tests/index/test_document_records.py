"""Reading ``graph.json`` end to end, its records: the baseline G0, required fields (case 34),
vocabularies (case 35) and the location table (case 36).

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cm_graph.base.errors import ReaderIncompatible, Refusal
from cm_graph.generation.manifest import PINNED_PROVIDER, ProviderPin
from cm_graph.index.ensure import ensure_index

from ..support.documentkit import (
    G0_EDGES,
    OTHER_DISTRIBUTION,
    PROVIDER_0960,
    REFUSED_LOCATIONS,
    leftovers,
    load,
    publish_graph,
    refuse_graph,
    with_edges,
)
from ..support.g0 import edge, g0_graph, node

# --- the baseline ------------------------------------------------------------------------------


def test_g0_loads_with_derived_kinds(repo: Path, state_dir: Path, commit: str) -> None:
    loaded = load(repo, state_dir, g0_graph())
    assert {pid: (n["kind"], n["path"], n["line"]) for pid, n in loaded.nodes.items()} == {
        "n-config": ("symbol", "example_pkg/config.py", 12),
        "n-load": ("symbol", "example_pkg/loader.py", 40),
        "n-report": ("symbol", "example_pkg/report.py", 5),
        "n-test": ("test", "tests/test_config.py", 8),
        "n-config-file": ("file", "example_pkg/config.py", 1),
    }
    # nodes are numbered by provider id in code-point order, not listing order
    assert list(loaded.nodes) == sorted(loaded.nodes)
    assert [n["node"] for n in loaded.nodes.values()] == [1, 2, 3, 4, 5]
    assert loaded.edges == G0_EDGES
    assert loaded.incomplete == set()
    assert loaded.undeclared == []
    assert loaded.exclusions == []
    assert loaded.generation["document_format"] == "raw_extraction"
    assert loaded.generation["provider"] == "graphifyy==0.9.58"
    assert loaded.generation["commit_id"] == commit
    counts = loaded.report.counts
    assert counts["raw_nodes"] == 5 and counts["raw_edges"] == 4
    assert counts["code_nodes"] == 5 and counts["edges"] == 4 and counts["edge_records"] == 4
    assert counts["incomplete_nodes"] == 0 and counts["excluded_nodes"] == 0


def test_labels_keep_their_callable_base(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][0]["label"] = "parse_config()"
    graph["nodes"][1]["label"] = "load(path, (a, b))"
    loaded = load(repo, state_dir, graph)
    assert loaded.nodes["n-config"]["callable_base"] == "parse_config"
    assert loaded.nodes["n-load"]["callable_base"] == "load"
    assert loaded.nodes["n-report"]["callable_base"] is None
    assert loaded.nodes["n-config-file"]["callable_base"] is None


def test_test_ness_comes_from_the_path_never_from_type(repo: Path, state_dir: Path) -> None:
    """The seed: extra annotations such as ``type`` are never read, so a ``namespace`` under
    ``tests/`` is a test, and a ``namespace`` per-file node elsewhere is a file."""
    graph = g0_graph()
    graph["nodes"][3]["type"] = "namespace"
    graph["nodes"][4]["type"] = "namespace"
    graph["nodes"].append(node("n-test-file", "test_config.py", "tests/test_config.py", "L1"))
    graph["nodes"][-1]["type"] = "namespace"
    loaded = load(repo, state_dir, graph)
    assert loaded.nodes["n-test"]["kind"] == "test"
    assert loaded.nodes["n-test-file"]["kind"] == "test"
    assert loaded.nodes["n-config-file"]["kind"] == "file"


def test_extra_annotations_are_ignored(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][0].update(
        type="function",
        metadata={"namespace": "example_pkg", "deep": [{"x": [1, 2.5, None]}]},
        community=3,
        community_name="core",
        norm_label="parse_config",
    )
    graph["edges"][0].update(weight=1.0, context="x" * 5000, confidence_score=0.25)
    graph["extracted_sources"] = ["example_pkg/config.py"]
    graph["hyperedges"] = [{"nodes": ["n-config", "n-load"], "relation": "x"}]
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES


def test_refusal_leaves_the_other_generations_index_alone(repo: Path, state_dir: Path) -> None:
    good = publish_graph(repo, state_dir, g0_graph())
    first = ensure_index(good)
    bad = g0_graph()
    del bad["nodes"][0]["label"]
    workspace = publish_graph(repo, state_dir, bad, keep_previous=True)
    with pytest.raises(Refusal) as info:
        ensure_index(workspace)
    assert info.value.reason == "unreadable"
    assert leftovers(workspace) == [first.path.name]


# --- case 34: required fields ------------------------------------------------------------------


@pytest.mark.parametrize("field", ["id", "label", "file_type", "source_file"])
def test_node_missing_required_field_refuses(repo: Path, state_dir: Path, field: str) -> None:
    graph = g0_graph()
    del graph["nodes"][0][field]
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize("field", ["source", "target", "relation", "confidence", "source_file"])
def test_edge_missing_required_field_refuses(repo: Path, state_dir: Path, field: str) -> None:
    graph = g0_graph()
    del graph["edges"][0][field]
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize("field", ["label", "source_file", "file_type"])
def test_required_node_fields_apply_to_non_code_nodes_too(
    repo: Path, state_dir: Path, field: str
) -> None:
    doc = node("n-doc", "README", "README.md", None, file_type="document")
    del doc[field]
    refuse_graph(repo, state_dir, with_edges(nodes=[doc]))


def test_required_edge_fields_apply_to_dangling_edges_too(repo: Path, state_dir: Path) -> None:
    dangling = edge("n-config", "n-ghost")
    del dangling["source_file"]
    refuse_graph(repo, state_dir, with_edges(dangling))


def test_missing_source_location_is_fine(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    del graph["nodes"][0]["source_location"]
    graph["edges"].append(edge("n-report", "n-config", path="example_pkg/report.py"))
    loaded = load(repo, state_dir, graph)
    assert loaded.nodes["n-config"]["line"] is None
    assert (
        "n-report",
        "n-config",
        "calls",
        "calls",
        "extracted",
        "example_pkg/report.py",
        None,
        1,
    ) in loaded.edges


@pytest.mark.parametrize("record", [None, "n-x", 3, [], ["id", "label"]])
@pytest.mark.parametrize("where", ["nodes", "edges"])
def test_a_record_that_is_not_an_object_refuses(
    repo: Path, state_dir: Path, record: Any, where: str
) -> None:
    graph = g0_graph()
    graph[where].insert(1, record)
    refuse_graph(repo, state_dir, graph)


# --- case 35: vocabularies ---------------------------------------------------------------------


def test_unknown_file_type_from_the_reviewed_provider_is_unreadable(
    repo: Path, state_dir: Path
) -> None:
    graph = with_edges(
        nodes=[node("n-diagram", "arch", "docs/arch.svg", None, file_type="diagram")]
    )
    refusal = refuse_graph(repo, state_dir, graph)
    assert not isinstance(refusal, ReaderIncompatible)
    assert "diagram" not in refusal.message  # the unknown spelling is never echoed


@pytest.mark.parametrize("provider", [PROVIDER_0960, OTHER_DISTRIBUTION])
def test_unknown_file_type_from_an_unreviewed_provider_is_reader_incompatible(
    repo: Path, state_dir: Path, provider: ProviderPin
) -> None:
    graph = with_edges(
        nodes=[node("n-diagram", "arch", "docs/arch.svg", None, file_type="diagram")]
    )
    refusal = refuse_graph(repo, state_dir, graph, "reader_incompatible", provider=provider)
    assert isinstance(refusal, ReaderIncompatible)
    remediation = refusal.remediation
    assert remediation["generation_provider"] == provider.requirement
    assert remediation["reader_provider_versions"] == ["0.9.58"]
    assert "node_type" not in remediation
    assert "required_code_mower" not in remediation
    assert "graphifyy==0.9.58" in remediation["action"]
    assert "diagram" not in refusal.message
    json.dumps(remediation)  # metadata only: plain JSON


def test_generation_provider_is_the_0960_requirement(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][2]["file_type"] = "diagram"
    refusal = refuse_graph(repo, state_dir, graph, "reader_incompatible", provider=PROVIDER_0960)
    assert refusal.remediation["generation_provider"] == "graphifyy==0.9.60"  # type: ignore[attr-defined]


@pytest.mark.parametrize("provider", [PINNED_PROVIDER, PROVIDER_0960])
@pytest.mark.parametrize("file_type", [[], {}, 3, None, True, "", "   ", "x" * 65, "code\n"])
def test_file_type_that_is_not_text_is_unreadable_for_every_provider(
    repo: Path, state_dir: Path, provider: ProviderPin, file_type: Any
) -> None:
    graph = g0_graph()
    graph["nodes"][1]["file_type"] = file_type
    refuse_graph(repo, state_dir, graph, provider=provider)


def test_unreviewed_provider_still_needs_the_required_fields(repo: Path, state_dir: Path) -> None:
    diagram = node("n-diagram", "arch", "docs/arch.svg", None, file_type="diagram")
    del diagram["label"]
    refuse_graph(repo, state_dir, with_edges(nodes=[diagram]), provider=PROVIDER_0960)


def test_unreviewed_provider_with_known_types_loads(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-config", "n-docref", "references"),
        nodes=[node("n-docref", "README", "README.md", None, file_type="doc_ref")],
    )
    loaded = load(repo, state_dir, graph, provider=PROVIDER_0960)
    assert loaded.generation["provider"] == "graphifyy==0.9.60"
    assert loaded.edges == G0_EDGES
    assert loaded.exclusions == [("n-docref", "doc_ref")]


@pytest.mark.parametrize("file_type", ["Code", "CODE", "Document", "code "])
def test_file_type_is_case_and_space_sensitive(repo: Path, state_dir: Path, file_type: str) -> None:
    graph = g0_graph()
    graph["nodes"][0]["file_type"] = file_type
    refuse_graph(repo, state_dir, graph)
    refuse_graph(
        repo, state_dir.with_name("state-2"), graph, "reader_incompatible", provider=PROVIDER_0960
    )


@pytest.mark.parametrize("provider", [PINNED_PROVIDER, PROVIDER_0960])
@pytest.mark.parametrize(
    "confidence", ["GUESSED", "extracted", "Extracted", "inferred", "ambiguous", [], None, "", 1]
)
def test_confidence_outside_the_uppercase_vocabulary_is_unreadable(
    repo: Path, state_dir: Path, provider: ProviderPin, confidence: Any
) -> None:
    graph = g0_graph()
    graph["edges"][1]["confidence"] = confidence
    refuse_graph(repo, state_dir, graph, provider=provider)


def test_bad_confidence_on_a_dangling_edge_still_refuses(repo: Path, state_dir: Path) -> None:
    refuse_graph(repo, state_dir, with_edges(edge("n-config", "n-ghost", confidence="extracted")))


def test_every_uppercase_confidence_loads_lowercased(repo: Path, state_dir: Path) -> None:
    graph = with_edges(edge("n-config", "n-report", confidence="AMBIGUOUS"))
    loaded = load(repo, state_dir, graph)
    assert {e[4] for e in loaded.edges} == {"extracted", "inferred", "ambiguous"}


# --- case 36: the location table ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "line"),
    [("L1", 1), ("L012", 12), ("", None), (None, None), ("L9999999", 9_999_999)],
)
def test_node_location_accepted(
    repo: Path, state_dir: Path, location: str | None, line: int | None
) -> None:
    graph = g0_graph()
    graph["nodes"][0]["source_location"] = location
    loaded = load(repo, state_dir, graph)
    assert loaded.nodes["n-config"]["line"] == line


@pytest.mark.parametrize("location", REFUSED_LOCATIONS)
def test_node_location_refused(repo: Path, state_dir: Path, location: Any) -> None:
    graph = g0_graph()
    graph["nodes"][0]["source_location"] = location
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize(
    ("location", "line"),
    [("L1", 1), ("L012", 12), ("", None), (None, None), ("L9999999", 9_999_999)],
)
def test_call_site_location_accepted(
    repo: Path, state_dir: Path, location: str | None, line: int | None
) -> None:
    graph = g0_graph()
    graph["edges"][0].update(source_file="example_pkg/loader.py", source_location=location)
    loaded = load(repo, state_dir, graph)
    kept = [e for e in loaded.edges if e[:2] == ("n-load", "n-config")]
    assert kept == [
        ("n-load", "n-config", "calls", "calls", "extracted", "example_pkg/loader.py", line, 1)
    ]


@pytest.mark.parametrize("location", REFUSED_LOCATIONS)
def test_call_site_location_refused_between_code_nodes(
    repo: Path, state_dir: Path, location: Any
) -> None:
    graph = g0_graph()
    graph["edges"][0].update(source_file="example_pkg/loader.py", source_location=location)
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize("location", ["L0", "l12", "L²", 12])
def test_call_site_location_refused_even_without_a_path(
    repo: Path, state_dir: Path, location: Any
) -> None:
    graph = g0_graph()
    graph["edges"][0]["source_location"] = location
    refuse_graph(repo, state_dir, graph)


def test_call_site_line_without_a_path_is_not_kept(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"][0]["source_location"] = "L41"
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES


@pytest.mark.parametrize("location", REFUSED_LOCATIONS)
def test_call_site_location_on_a_dangling_edge_is_never_validated(
    repo: Path, state_dir: Path, location: Any
) -> None:
    graph = with_edges(
        edge("n-config", "n-ghost", path="example_pkg/config.py", location=location),
        edge("n-load", "n-doc", path="example_pkg/loader.py", location=location),
        nodes=[node("n-doc", "README", "README.md", None, file_type="document")],
    )
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES
    assert loaded.incomplete == {"n-config"}
