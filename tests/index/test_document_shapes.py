"""Reading ``graph.json`` end to end, the document's shape: node-link documents (case 44),
``built_at_commit`` (case 45), structure and the artifact around it (case 46). The documents
whose top level is not a graph are folders of ``fixtures/cases/damaged/``, run by
``test_damaged_cases.py``.

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cm_graph.index.ensure import ensure_index

from ..support.documentkit import (
    G0_EDGES,
    g0_bytes,
    load,
    node_link,
    publish_artifact,
    read_index,
    refuse,
    refuse_graph,
)
from ..support.g0 import G0_FILES, edge, g0_graph

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
        [_regular("out/graph.json")], {"out/graph.json": g0_bytes()}
    ),
    "empty tar": lambda: _tar([], {}),
    "gzip-compressed tar": lambda: gzip.compress(
        _tar([_regular("graph.json")], {"graph.json": g0_bytes()}), mtime=0
    ),
    "symlinked graph.json": lambda: _tar(
        [_symlink("graph.json"), _regular("other.json")], {"other.json": g0_bytes()}
    ),
    "graph.json is a directory": lambda: _tar([_directory("graph.json")], {}),
    "not a tar": lambda: b"\x00not a tar archive at all" * 40,
    "bare graph.json": g0_bytes,
}


@pytest.mark.parametrize("kind", sorted(ARTIFACTS))
def test_artifact_without_a_readable_graph_member_is_unreadable(
    repo: Path, state_dir: Path, kind: str
) -> None:
    refuse(publish_artifact(repo, state_dir, ARTIFACTS[kind]()))


def test_hand_built_artifact_with_graph_member_loads(repo: Path, state_dir: Path) -> None:
    """The control for the artifact cases: the same path with a proper member indexes fine."""
    payload = _tar([_regular("graph.json")], {"graph.json": g0_bytes()})
    workspace = publish_artifact(repo, state_dir, payload)
    assert read_index(ensure_index(workspace)).edges == G0_EDGES
