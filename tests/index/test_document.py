"""Reading ``graph.json`` end to end: publish into a real git repo, index it, inspect the file.

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import os
import random
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cm_graph.base.errors import ReaderIncompatible, Refusal
from cm_graph.generation.layout import Workspace
from cm_graph.generation.manifest import PINNED_PROVIDER, REQUIRED_OPTIONS, ProviderPin
from cm_graph.generation.store import publish as publish_generation
from cm_graph.generation.store import read_current
from cm_graph.index import graph_document as document
from cm_graph.index import graphmodel, importer
from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import IndexReport, open_index
from cm_graph.index.graph_document import read_document
from cm_graph.index.importer import build_index

from ..support.g0 import G0_FILES, edge, g0_graph, make_g0_repo, node
from ..support.helpers import code_paths, git, inventory_for, publish_unchecked, write_output

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


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One G0 repository per module: publishing only reads it, so cases can share it."""
    return make_g0_repo(tmp_path_factory.mktemp("g0") / "repo")


@pytest.fixture(scope="module")
def commit(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


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


# --- case 44: node-link documents --------------------------------------------------------------


@pytest.mark.parametrize("edge_key", ["links", "edges"])
def test_directed_node_link_loads(repo: Path, state_dir: Path, edge_key: str) -> None:
    loaded = load(repo, state_dir, node_link(g0_graph(), edge_key))
    assert loaded.edges == G0_EDGES
    assert loaded.generation["document_format"] == "node_link"
    assert loaded.report.counts["raw_edges"] == 4


def test_node_link_reads_links_over_edges(repo: Path, state_dir: Path) -> None:
    doc = node_link(g0_graph())
    doc["edges"] = [edge("n-config", "n-report", "calls"), {"not": "an edge"}]
    loaded = load(repo, state_dir, doc)
    assert loaded.edges == G0_EDGES


def test_node_link_annotations_are_ignored(repo: Path, state_dir: Path) -> None:
    doc = node_link(g0_graph(), graph={"name": "g", "built": {"by": "nx"}})
    for record in doc["nodes"]:
        record.update(community=0, community_name="c0", norm_label=record["label"].lower())
    for record in doc["links"]:
        record.update(confidence_score=0.9, _src=record["source"], _tgt=record["target"], key=0)
    loaded = load(repo, state_dir, doc)
    assert loaded.edges == G0_EDGES


@pytest.mark.parametrize(
    "directed", [False, "true", 1, None, 0, "True", [True], {"v": True}, "absent"]
)
def test_node_link_must_be_directed(repo: Path, state_dir: Path, directed: Any) -> None:
    doc = node_link(g0_graph())
    if directed == "absent":
        del doc["directed"]
    else:
        doc["directed"] = directed
    refusal = refuse_graph(repo, state_dir, doc)
    assert "directed" in refusal.message


@pytest.mark.parametrize(
    "marker",
    [{"graph": {}}, {"multigraph": False}, {"multigraph": True}, {"directed": False}, "links"],
)
def test_raw_document_with_one_marker_is_held_to_node_link_rules(
    repo: Path, state_dir: Path, marker: Any
) -> None:
    graph = g0_graph()
    if marker == "links":
        graph["links"] = graph.pop("edges")
    else:
        graph.update(marker)
    refusal = refuse_graph(repo, state_dir, graph)
    assert "directed" in refusal.message


def test_raw_document_with_directed_true_is_node_link(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["directed"] = True
    loaded = load(repo, state_dir, graph)
    assert loaded.generation["document_format"] == "node_link"
    assert loaded.edges == G0_EDGES


# --- case 45: built_at_commit ------------------------------------------------------------------


@pytest.mark.parametrize("as_node_link", [False, True])
def test_built_at_commit_equal_to_the_bound_commit_loads(
    repo: Path, state_dir: Path, commit: str, as_node_link: bool
) -> None:
    graph = g0_graph()
    graph["built_at_commit"] = commit
    loaded = load(repo, state_dir, node_link(graph) if as_node_link else graph)
    assert loaded.edges == G0_EDGES


@pytest.mark.parametrize("as_node_link", [False, True])
def test_built_at_commit_null_is_absent(repo: Path, state_dir: Path, as_node_link: bool) -> None:
    graph = g0_graph()
    graph["built_at_commit"] = None
    loaded = load(repo, state_dir, node_link(graph) if as_node_link else graph)
    assert loaded.edges == G0_EDGES


WRONG_STAMPS: dict[str, Callable[[str], Any]] = {
    "another commit": lambda c: "0" * 40,
    "uppercase": str.upper,
    "abbreviated": lambda c: c[:12],
    "padded": lambda c: f" {c}",
    "sha-256 length": lambda c: c + "0" * 24,
    "empty": lambda c: "",
    "number": lambda c: 1,
    "true": lambda c: True,
    "list": lambda c: [c],
    "object": lambda c: {"commit": c},
}


@pytest.mark.parametrize("as_node_link", [False, True])
@pytest.mark.parametrize("stamp", sorted(WRONG_STAMPS))
def test_built_at_commit_different_from_the_bound_commit_refuses(
    repo: Path, state_dir: Path, commit: str, as_node_link: bool, stamp: str
) -> None:
    graph = g0_graph()
    graph["built_at_commit"] = WRONG_STAMPS[stamp](commit)
    refusal = refuse_graph(repo, state_dir, node_link(graph) if as_node_link else graph)
    assert commit not in refusal.message


# --- case 46: structure ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        {"nodes": []},
        {"edges": []},
        {"links": []},
        {"schema": "x"},
        {},
        [],
        [{"nodes": [], "edges": []}],
        "graph",
        3,
        None,
        True,
        {"nodes": None, "edges": []},
        {"nodes": [], "edges": None},
        {"nodes": {}, "edges": []},
        {"nodes": [], "edges": {}},
        {"nodes": "[]", "edges": []},
        {"nodes": [], "edges": 0},
        {"nodes": [], "links": None, "directed": True},
    ],
)
def test_structure_refusals(repo: Path, state_dir: Path, doc: Any) -> None:
    refuse_graph(repo, state_dir, json.dumps(doc).encode())


def test_empty_graph_loads(repo: Path, state_dir: Path) -> None:
    loaded = load(repo, state_dir, {"nodes": [], "edges": []})
    assert loaded.nodes == {} and loaded.edges == []
    assert loaded.report.counts["code_nodes"] == 0
    assert loaded.report.counts["census_files"] == len(G0_FILES)


def _tar(members: list[tarfile.TarInfo], contents: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info in members:
            data = contents.get(info.name)
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _regular(name: str) -> tarfile.TarInfo:
    return tarfile.TarInfo(name)


def _g0_bytes() -> bytes:
    return json.dumps(g0_graph()).encode()


def _symlink(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = "other.json"
    return info


def _directory(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


ARTIFACTS: dict[str, Callable[[], bytes]] = {
    "no graph.json member": lambda: _tar([_regular("manifest.json")], {"manifest.json": b"{}"}),
    "graph.json in a subdirectory": lambda: _tar(
        [_regular("out/graph.json")], {"out/graph.json": _g0_bytes()}
    ),
    "empty tar": lambda: _tar([], {}),
    "gzip-compressed tar": lambda: gzip.compress(
        _tar([_regular("graph.json")], {"graph.json": _g0_bytes()}), mtime=0
    ),
    "symlinked graph.json": lambda: _tar(
        [_symlink("graph.json"), _regular("other.json")], {"other.json": _g0_bytes()}
    ),
    "graph.json is a directory": lambda: _tar([_directory("graph.json")], {}),
    "not a tar": lambda: b"\x00not a tar archive at all" * 40,
    "bare graph.json": _g0_bytes,
}


@pytest.mark.parametrize("kind", sorted(ARTIFACTS))
def test_artifact_without_a_readable_graph_member_is_unreadable(
    repo: Path, state_dir: Path, kind: str
) -> None:
    refuse(publish_artifact(repo, state_dir, ARTIFACTS[kind]()))


def test_hand_built_artifact_with_graph_member_loads(repo: Path, state_dir: Path) -> None:
    """The control for the artifact cases: the same path with a proper member indexes fine."""
    payload = _tar([_regular("graph.json")], {"graph.json": _g0_bytes()})
    workspace = publish_artifact(repo, state_dir, payload)
    assert read_index(ensure_index(workspace)).edges == G0_EDGES


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


def _borders(loaded: Loaded) -> set[str]:
    connection = open_index(loaded.report.path)
    try:
        rows = connection.execute(
            "SELECT n.provider_id FROM untraversable_borders AS b JOIN nodes AS n ON n.node = b.node"
        ).fetchall()
    finally:
        connection.close()
    return {row[0] for row in rows}


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
    assert _borders(loaded) == {"n-config", "n-report"}
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
    assert _borders(loaded) == {"n-config"}
    assert loaded.report.counts["untraversable_nodes"] == 1


@pytest.mark.parametrize("path", UNCITABLE_PATHS)
def test_uncitable_call_site_between_code_nodes_is_untraversable(
    repo: Path, state_dir: Path, path: str
) -> None:
    graph = g0_graph()
    graph["edges"][1].update(source_file=path, source_location="L3")  # n-report calls n-load
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == [e for e in G0_EDGES if e[:2] != ("n-report", "n-load")]
    assert _borders(loaded) == {"n-report", "n-load"}
    assert loaded.report.counts["untraversable_call_sites"] == 1
    assert loaded.report.counts["untraversable_nodes"] == 0


def test_uncitable_call_site_on_a_dangling_edge_changes_nothing_else(repo: Path, state_dir: Path) -> None:
    graph = with_edges(edge("n-config", "n-ghost", path="a#b.py", location="L3"))
    loaded = load(repo, state_dir, graph)
    assert loaded.edges == G0_EDGES and _borders(loaded) == set()
    assert loaded.incomplete == {"n-config"}


def test_an_ordinary_graph_borders_nothing(repo: Path, state_dir: Path) -> None:
    loaded = load(repo, state_dir, g0_graph())
    assert _borders(loaded) == set()
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


# --- malformed streams -------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 10, 0.25, 0.5, 0.9, -2, -1])
def test_truncated_json_refuses(repo: Path, state_dir: Path, cut: float) -> None:
    data = _g0_bytes()
    end = int(len(data) * cut) if isinstance(cut, float) else cut
    refuse_graph(repo, state_dir, data[:end])


def test_every_strict_prefix_of_a_document_is_refused() -> None:
    data = _g0_bytes()
    for end in range(len(data)):
        with pytest.raises(Refusal) as info:
            read_document(
                io.BytesIO(data[:end]), commit="0" * 40, provider=PINNED_PROVIDER, sink=_ListSink()
            )
        assert info.value.reason == "unreadable", end


class _ListSink:
    """A real, in-memory GraphSink (the protocol's simplest implementation)."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.exclusions: list[tuple[str, str]] = []
        self.edges: list[tuple[str, Any]] = []

    def add_code_node(self, node: Any) -> None:
        self.nodes.append(node)

    def add_exclusion(self, provider_id: str, file_type: str) -> None:
        self.exclusions.append((provider_id, file_type))

    def add_rationale(self, provider_id: str, path: str, line: int, text: str) -> None:
        pass

    def add_edge(self, list_name: str, edge: Any) -> None:
        self.edges.append((list_name, edge))

    def add_member_call(self, provider_id: str, callee: str, receiver_type: str, language: str, line: int) -> None:
        pass


def _g0_with(key: str, raw_value: bytes) -> bytes:
    """G0's bytes with ``"key": <raw_value>`` spliced into the first node."""
    data = _g0_bytes()
    marker = b'{"id": "n-config"'
    assert marker in data
    return data.replace(
        marker, b'{"' + key.encode() + b'": ' + raw_value + b', "id": "n-config"', 1
    )


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_g0_with("weight", b"NaN"), id="NaN"),
        pytest.param(_g0_with("weight", b"Infinity"), id="Infinity"),
        pytest.param(_g0_with("weight", b"-Infinity"), id="-Infinity"),
        pytest.param(_g0_with("weight", b"01"), id="leading-zero"),
        pytest.param(_g0_with("weight", b"'x'"), id="single-quotes"),
        pytest.param(_g0_with("weight", b"undefined"), id="undefined"),
        pytest.param(_g0_bytes().replace(b"parse_config", b"parse\xff_config"), id="invalid-utf8"),
        pytest.param(_g0_bytes()[:-1] + b",}", id="trailing-comma"),
        pytest.param(_g0_bytes() + b" x", id="trailing-garbage"),
        pytest.param(_g0_bytes() + _g0_bytes(), id="two-documents"),
        pytest.param(b"", id="empty"),
        pytest.param(b"   \n", id="whitespace"),
        pytest.param(b"\x00" * 16, id="nul-bytes"),
    ],
)
def test_invalid_json_refuses(repo: Path, state_dir: Path, data: bytes) -> None:
    refuse_graph(repo, state_dir, data)


@pytest.mark.parametrize(
    ("where", "field", "value"),
    [
        ("nodes", "label", 3),
        ("nodes", "label", None),
        ("nodes", "label", ""),
        ("nodes", "label", ["parse_config"]),
        ("nodes", "label", "x" * 2000),
        ("nodes", "label", "x" * 513),
        ("nodes", "id", 7),
        ("nodes", "id", "x" * 513),
        ("nodes", "id", None),
        ("edges", "confidence", "extracted"),
        ("edges", "relation", 5),
        ("edges", "relation", "r" * 129),
        ("edges", "relation", ""),
        ("edges", "source", 1),
        ("edges", "target", None),
        ("edges", "source", "s" * 513),
    ],
)
def test_wrong_types_and_huge_strings_refuse(
    repo: Path, state_dir: Path, where: str, field: str, value: Any
) -> None:
    graph = g0_graph()
    graph[where][0][field] = value
    refusal = refuse_graph(repo, state_dir, graph)
    if isinstance(value, str) and len(value) > 100:
        assert value not in refusal.message


def test_text_at_its_bounds_loads(repo: Path, state_dir: Path) -> None:
    long_id = "i" * 512
    graph = g0_graph()
    graph["nodes"][0]["label"] = "é" * 512
    graph["nodes"].append(node(long_id, "x", "p/" * 511 + "yz", None))
    graph["edges"].append(edge(long_id, "n-config", "r" * 128))
    loaded = load(repo, state_dir, graph)
    assert loaded.nodes["n-config"]["label"] == "é" * 512
    assert loaded.nodes[long_id]["path"] == "p/" * 511 + "yz"
    assert (long_id, "n-config", "r" * 128) in [e[:3] for e in loaded.edges]


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for level in range(levels):
        value = {"k": value} if level % 2 else [value]
    return value


def test_deeply_nested_annotation_refuses(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][0]["metadata"] = _nested(100)
    refuse_graph(repo, state_dir, graph)


def test_deeply_nested_edge_annotation_refuses(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"][3]["context"] = _nested(70)
    refuse_graph(repo, state_dir, graph)


def test_deep_nesting_refuses_even_in_a_record_already_skipped(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][0]["label"] = 3  # the nodes list has an error; later records are skipped
    graph["nodes"].append(dict(node("n-deep", "d", "", None), metadata=_nested(80)))
    refuse_graph(repo, state_dir, graph)


@pytest.mark.parametrize(("levels", "refused"), [(63, False), (64, True)])
def test_nesting_bound_counts_the_whole_document(
    repo: Path, state_dir: Path, levels: int, refused: bool
) -> None:
    """The top-level object is level 1, so a top-level annotation may nest 63 more levels."""
    graph = g0_graph()
    graph["annotation"] = _nested(levels)
    if refused:
        refuse_graph(repo, state_dir, graph)
    else:
        assert load(repo, state_dir, graph).edges == G0_EDGES


def test_moderately_nested_node_annotation_loads(repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][0]["metadata"] = _nested(40)
    assert load(repo, state_dir, graph).edges == G0_EDGES


@pytest.mark.parametrize("key", ["edges", "nodes", "hyperedges", "built_at_commit"])
def test_repeated_top_level_key_refuses(repo: Path, state_dir: Path, key: str) -> None:
    data = _g0_bytes()
    assert data.endswith(b"}")
    data = data[:-1] + b', "' + key.encode() + b'": []}'
    refuse_graph(repo, state_dir, data)


def test_repeated_key_inside_a_record_takes_the_last(repo: Path, state_dir: Path) -> None:
    data = _g0_with("file_type", b'"diagram"')  # first spelling is overridden by the real one
    loaded = load(repo, state_dir, data)
    assert loaded.edges == G0_EDGES


def test_empty_top_level_key_is_an_ordinary_annotation(repo: Path, state_dir: Path) -> None:
    """``{"": ...}`` is a JSON object like any other; its value must not read as the top level."""
    data = _g0_bytes()
    data = b'{"": {"nodes": 3, "edges": {"a": 1}}, "x": {"": [1]}, ' + data[1:]
    assert load(repo, state_dir, data).edges == G0_EDGES


def test_dotted_top_level_key_is_not_a_record_list(repo: Path, state_dir: Path) -> None:
    """Record lists are found by structure, so an annotation named ``nodes.item`` stays inert."""
    graph = g0_graph()
    graph["nodes.item"] = {"label": 3, "x": [1]}
    graph["edges.item"] = {"confidence": "guessed"}
    graph["links.item"] = ["x"]
    assert load(repo, state_dir, graph).edges == G0_EDGES


@pytest.mark.parametrize(("cap", "where"), [("MAX_NODES", "nodes"), ("MAX_EDGES", "edges")])
def test_record_count_caps(
    repo: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch, cap: str, where: str
) -> None:
    count = len(g0_graph()[where])
    monkeypatch.setattr(document, cap, count)
    assert load(repo, state_dir, g0_graph()).edges == G0_EDGES
    monkeypatch.setattr(document, cap, count - 1)
    refusal = refuse_graph(repo, state_dir.with_name("state-2"), g0_graph())
    assert where in refusal.message


# --- determinism -------------------------------------------------------------------------------


def _dump(path: Path) -> dict[str, Any]:
    """Everything in an index except the generation row: schema, rows in storage order, pages."""
    connection = open_index(path)
    try:
        schema = connection.execute(
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema ORDER BY rowid"
        ).fetchall()
        dump: dict[str, Any] = {"schema": schema}
        for _type, name, *_rest in schema:
            if _type == "table" and name != "generation":
                dump[name] = connection.execute(f'SELECT * FROM "{name}"').fetchall()
        dump["pages"] = connection.execute(
            "SELECT name, path, pageno, pagetype, ncell, payload, unused, mx_payload FROM dbstat"
            " WHERE name <> 'generation' ORDER BY pageno"
        ).fetchall()
        dump["pragmas"] = [
            connection.execute(f"PRAGMA {pragma}").fetchall()
            for pragma in ("application_id", "user_version", "page_size", "page_count", "encoding")
        ]
        generation_root = connection.execute(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'generation'"
        ).fetchall()[0][0]
    finally:
        connection.close()
    dump["_generation_root"] = generation_root
    return dump


def _differing_pages(a: bytes, b: bytes, page_size: int = 4096) -> set[int]:
    assert len(a) == len(b)
    return {
        offset // page_size + 1
        for offset in range(0, len(a), page_size)
        if a[offset : offset + page_size] != b[offset : offset + page_size]
    }


G0_PATHS = sorted(G0_FILES)
NODE_IDS = ["n-a", "n-B", "n-é", "N-z", "n-10", "n-9", "n-ü", "n-日本", "n-a2", "n~"]
LABELS = ["parse_config", "config.py", "loader.py", "load()", "render(int)", "test_x", "Thing"]
RELATIONS = ["calls", "imports", "contains", "uses"]
CONFIDENCE_WORDS = ["EXTRACTED", "INFERRED", "AMBIGUOUS"]
CALL_SITE_PATH = "example_pkg/loader.py"
# Legal file names no citation can carry: such nodes and call sites are untraversable.
ODD_NODE_PATH = "odd/a#b.py"
ODD_SITE_PATH = "odd/tab\tname.py"


@st.composite
def random_graphs(draw: st.DrawFn) -> Graph:
    """G0-like code nodes over the G0 files, random edges, duplicates, stubs and holes."""
    ids = draw(st.lists(st.sampled_from(NODE_IDS), min_size=1, max_size=8, unique=True))
    nodes = [
        node(
            node_id,
            draw(st.sampled_from(LABELS)),
            draw(st.sampled_from([*G0_PATHS, "", ODD_NODE_PATH])),
            draw(st.one_of(st.none(), st.builds("L{}".format, st.integers(1, 20)))),
        )
        for node_id in ids
    ]
    endpoints = list(ids)
    if draw(st.booleans()):
        nodes.append(node("doc-1", "README", "README.md", None, file_type="document"))
        endpoints.append("doc-1")
    if draw(st.booleans()):
        endpoints.append("ghost-1")
    call_sites = st.one_of(
        st.just(("", None)),
        st.tuples(
            st.sampled_from([CALL_SITE_PATH, CALL_SITE_PATH, ODD_SITE_PATH]),
            st.one_of(st.none(), st.builds("L{}".format, st.integers(1, 20))),
        ),
    )
    edges = []
    for _ in range(draw(st.integers(0, 20))):
        path, location = draw(call_sites)
        edges.append(
            edge(
                draw(st.sampled_from(endpoints)),
                draw(st.sampled_from(endpoints)),
                draw(st.sampled_from(RELATIONS)),
                draw(st.sampled_from(CONFIDENCE_WORDS)),
                path,
                location,
            )
        )
    if edges:
        edges.extend(draw(st.lists(st.sampled_from(edges), max_size=4)))  # exact duplicates
    return {"nodes": nodes, "edges": edges, "hyperedges": [], "input_tokens": 0, "output_tokens": 0}


def _model(
    graph: Graph,
) -> tuple[list[tuple[Any, ...]], set[str], list[tuple[str, str]], set[str]]:
    """A small pure-Python reading of the rules: kept edges, incomplete, holes, and the code
    nodes that border an untraversable record (a node or call site with an uncitable path)."""
    odd = {ODD_NODE_PATH, ODD_SITE_PATH}
    code_records = [n for n in graph["nodes"] if n["file_type"] == "code"]
    untraversable = {n["id"] for n in code_records if n["source_file"] in odd}
    code = {n["id"] for n in code_records} - untraversable
    excluded = {n["id"] for n in graph["nodes"] if n["file_type"] != "code"} | untraversable
    records: dict[tuple[Any, ...], int] = {}
    holes: set[tuple[str, str]] = set()
    borders: set[str] = set()
    for e in graph["edges"]:
        ends = (e["source"], e["target"])
        path = e["source_file"] or ""
        if all(end in code for end in ends) and path in odd:
            borders.update(ends)
        elif all(end in code for end in ends):
            location = e.get("source_location") or ""
            line = int(location[1:]) if path and location else None
            key = (
                e["source"],
                e["target"],
                e["relation"],
                graphmodel.relation_kind(e["relation"]),
                e["confidence"].lower(),
                path,
                line,
            )
            records[key] = records.get(key, 0) + 1
        elif any(end in code for end in ends) and any(end in untraversable for end in ends):
            borders.update(end for end in ends if end in code)
        elif any(end not in code and end not in excluded for end in ends):
            for end, other in (ends, ends[::-1]):
                if end in code:
                    holes.add((end, other))
    ordered = sorted(records, key=lambda k: (*k[:6], -1 if k[6] is None else k[6]))
    edges = [(*key, records[key]) for key in ordered]
    return edges, {end for end, _ in holes}, sorted(holes), borders


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(graph=random_graphs(), as_node_link=st.booleans())
def test_index_matches_a_python_model(
    repo: Path, tmp_path: Path, graph: Graph, as_node_link: bool
) -> None:
    state = Path(tempfile.mkdtemp(dir=tmp_path)) / "state"
    loaded = load(repo, state, node_link(graph) if as_node_link else graph)
    edges, incomplete, holes, borders = _model(graph)
    assert loaded.edges == edges
    assert loaded.incomplete == incomplete
    assert loaded.undeclared == holes
    assert _borders(loaded) == borders
    assert set(loaded.nodes) == {
        n["id"] for n in graph["nodes"] if n["file_type"] == "code" and n["source_file"] != ODD_NODE_PATH
    }
    assert loaded.report.counts["edge_records"] == sum(e[-1] for e in edges)
    assert loaded.generation["document_format"] == (
        "node_link" if as_node_link else "raw_extraction"
    )


# Values that reach every inline check of the batch path (ids, labels, file types, paths,
# locations, relations, confidences), valid ones and refused ones.
ODD_VALUES = [
    None, 7, True, [], "", " ", "x" * 600, "L0", "L3", "L99999999", "12", "../out.py", "/abs.py",
    "example_pkg/config.py", "tests/test_config.py", "calls", "imports", "EXTRACTED", "extracted",
    "code", "document", "nope", "n-a", "n-ghost",
]
# A literal backslash before ``n`` in a string that every reader ignores (an extra annotation):
# the batch's raw text then holds an escape the clean-text check cannot clear, so every record
# goes through the exact, one-record-at-a-time validators instead of the inline ones.
EXACT_PATH_NOTE = "a\\nb"


@st.composite
def damaged_graphs(draw: st.DrawFn) -> Graph:
    graph = draw(random_graphs())
    for records in (graph["nodes"], graph["edges"]):
        for _ in range(draw(st.integers(0, 2)) if records else 0):
            record = draw(st.sampled_from(records))
            key = draw(st.sampled_from(sorted(record)))
            if draw(st.booleans()):
                record[key] = draw(st.sampled_from(ODD_VALUES))
            else:
                del record[key]
    return graph


def _outcome(repo: Path, state: Path, graph: Graph) -> tuple[Any, ...]:
    workspace = publish_graph(repo, state, graph)
    try:
        report = ensure_index(workspace)
    except Refusal as refusal:
        return ("refused", refusal.reason, refusal.message)
    dump = _dump(report.path)
    return ("indexed", {key: value for key, value in dump.items() if key != "pages"}, report.counts)


def test_the_note_sends_every_record_to_the_exact_validators(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The premise of the property below: plain G0 takes the batch path, noted G0 never does."""
    batches: list[str] = []
    original = document._RecordReader.accept_batch

    def counting(self: Any, list_name: str, records: list[Any]) -> None:
        batches.append(list_name)
        original(self, list_name, records)

    monkeypatch.setattr(document._RecordReader, "accept_batch", counting)
    graph = g0_graph()
    _outcome(repo, tmp_path / "plain" / "state", graph)
    assert batches
    batches.clear()
    for record in (*graph["nodes"], *graph["edges"]):
        record["note"] = EXACT_PATH_NOTE
    _outcome(repo, tmp_path / "noted" / "state", graph)
    assert batches == []


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(graph=damaged_graphs())
def test_batch_validation_agrees_with_the_exact_validators(repo: Path, tmp_path: Path, graph: Graph) -> None:
    """The inline checks of clean batches refuse what the exact validators refuse, with the same
    reason and sentence, and keep what they keep."""
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    noted = {
        **graph,
        "nodes": [{**node, "note": EXACT_PATH_NOTE} for node in graph["nodes"]],
        "edges": [{**edge, "note": EXACT_PATH_NOTE} for edge in graph["edges"]],
    }
    batch = _outcome(repo, base / "batch" / "state", graph)
    event(f"{batch[0]} {batch[1] if batch[0] == 'refused' else ''}")
    assert batch == _outcome(repo, base / "exact" / "state", noted)


def _shuffled(graph: Graph, seed: int, reverse_keys: bool) -> Graph:
    rng = random.Random(seed)
    nodes = [dict(reversed(n.items())) if reverse_keys else dict(n) for n in graph["nodes"]]
    edges = [dict(reversed(e.items())) if reverse_keys else dict(e) for e in graph["edges"]]
    rng.shuffle(nodes)
    rng.shuffle(edges)
    return {**graph, "nodes": nodes, "edges": edges}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    graph=random_graphs(),
    seed=st.integers(0, 2**32 - 1),
    reverse_keys=st.booleans(),
    as_node_link=st.booleans(),
)
def test_listing_order_never_changes_the_index(
    repo: Path, tmp_path: Path, graph: Graph, seed: int, reverse_keys: bool, as_node_link: bool
) -> None:
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    shuffled = _shuffled(graph, seed, reverse_keys)
    if as_node_link:
        graph, shuffled = node_link(graph), node_link(shuffled)
    first = publish_graph(repo, base / "a" / "state", graph)
    second = publish_graph(repo, base / "b" / "state", shuffled)
    report_a = ensure_index(first)
    report_b = ensure_index(second)
    dump_a, dump_b = _dump(report_a.path), _dump(report_b.path)
    assert dump_a == dump_b
    assert report_a.counts == report_b.counts
    # byte for byte, the two files may differ only in the page holding the generation row
    assert _differing_pages(report_a.path.read_bytes(), report_b.path.read_bytes()) <= {
        dump_a["_generation_root"]
    }
    # and one generation indexed twice more, to other destinations, is the same file every time
    generation = read_current(first)
    again = build_index(generation, first.indexes_dir / "again-1.sqlite")
    other = build_index(generation, first.indexes_dir / "again-2.sqlite")
    assert again.path.read_bytes() == other.path.read_bytes() == report_a.path.read_bytes()


def test_g0_indexed_twice_is_byte_identical(repo: Path, state_dir: Path) -> None:
    graph = with_edges(
        edge("n-config", "n-ghost"),
        edge("n-load", "n-config", path="example_pkg/loader.py", location="L41"),
        nodes=[node("n-doc", "README", "README.md", None, file_type="document")],
    )
    workspace = publish_graph(repo, state_dir, graph)
    generation = read_current(workspace)
    first = build_index(generation, workspace.indexes_dir / "one.sqlite")
    second = build_index(generation, workspace.indexes_dir / "two.sqlite")
    current = ensure_index(workspace)
    assert not current.reused
    assert first.path.read_bytes() == second.path.read_bytes() == current.path.read_bytes()
    assert first.counts == second.counts == current.counts
    assert leftovers(workspace) == sorted(
        ["one.sqlite", "two.sqlite", f"{generation.id}.sqlite"]
    )


def _resolve_beside_the_parse(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Make G0 "large": commit and resolve every other edge on the resolver's thread (the path a
    graph past importer._OVERLAP_FROM edges takes). Returns the resolvers started."""
    started: list[Any] = []

    class Recorded(importer.EndpointResolver):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            started.append(self)

    monkeypatch.setattr(importer, "_COMMIT_EDGES", 2)
    monkeypatch.setattr(importer, "_COMMIT_LATER_FROM", 4)
    monkeypatch.setattr(importer, "_COMMIT_EDGES_LATER", 4)
    monkeypatch.setattr(importer, "_OVERLAP_FROM", 2)
    monkeypatch.setattr(importer, "EndpointResolver", Recorded)
    return started


@pytest.mark.parametrize("order", ["nodes_first", "edges_first", "node_link"])
def test_edges_resolved_beside_the_parse_give_the_same_file(
    repo: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    graph = with_edges(
        edge("n-config", "n-ghost"),
        edge("n-load", "n-config", path="example_pkg/loader.py", location="L41"),
        edge("n-doc", "n-config"),
        nodes=[node("n-doc", "README", "README.md", None, file_type="document")],
    )
    if order == "edges_first":
        graph = {"edges": graph["edges"], "nodes": graph["nodes"]}
    elif order == "node_link":
        graph = node_link(graph)
    workspace = publish_graph(repo, state_dir, graph)
    generation = read_current(workspace)
    single = build_index(generation, workspace.indexes_dir / "single.sqlite")
    started = _resolve_beside_the_parse(monkeypatch)
    beside = build_index(generation, workspace.indexes_dir / "beside.sqlite")
    # nodes listed after the edges: nothing to resolve until the end, so no thread
    assert len(started) == (0 if order == "edges_first" else 1)
    assert beside.path.read_bytes() == single.path.read_bytes()
    assert beside.counts == single.counts
    assert leftovers(workspace) == ["beside.sqlite", "single.sqlite"]


def test_refusals_keep_their_order_when_edges_are_resolved_beside_the_parse(
    repo: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a duplicate code node in the last batch of nodes is met at the final flush, after the
    # document's own checks: an edge list refusal still comes first
    graph = with_edges(edge("n-config", "n-load", confidence="SURE"))
    graph["nodes"].append(dict(graph["nodes"][0]))
    expected = refuse_graph(repo, state_dir / "a", graph)
    started = _resolve_beside_the_parse(monkeypatch)
    refused = refuse_graph(repo, state_dir / "b", graph)
    assert started and (refused.reason, refused.message) == (expected.reason, expected.message)
    duplicate = g0_graph()
    duplicate["nodes"].append(dict(duplicate["nodes"][0]))
    assert refuse_graph(repo, state_dir / "c", duplicate).message == (
        "graph.json declares two code nodes with the same id."
    )


def test_g0_reversed_is_the_same_index(repo: Path, tmp_path: Path) -> None:
    graph = g0_graph()
    reordered = g0_graph()
    reordered["nodes"].reverse()
    reordered["edges"].reverse()
    a = ensure_index(publish_graph(repo, tmp_path / "a" / "state", graph))
    b = ensure_index(publish_graph(repo, tmp_path / "b" / "state", reordered))
    assert _dump(a.path) == _dump(b.path)
    assert read_index(a).edges == read_index(b).edges == G0_EDGES
