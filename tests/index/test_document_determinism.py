"""Reading ``graph.json`` end to end, determinism: the index against a Python model, the exact
validators, and listing order never changing the file.

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cm_graph.base.errors import Refusal
from cm_graph.generation.store import read_current
from cm_graph.index import graph_document as document
from cm_graph.index import graphmodel, importer
from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import open_index
from cm_graph.index.importer import build_index

from ..support.documentkit import (
    G0_EDGES,
    Graph,
    leftovers,
    load,
    node_link,
    publish_graph,
    read_index,
    refuse_graph,
    untraversable_borders,
    with_edges,
)
from ..support.g0 import G0_FILES, edge, g0_graph, node

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
    assert untraversable_borders(loaded) == borders
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
