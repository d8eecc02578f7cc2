"""Reading ``graph.json`` end to end, malformed streams: truncated JSON, wrong types, nesting,
repeated keys and the record-count caps. The named invalid documents (invalid JSON, a key
repeated in each place the stream decodes one) are folders of ``fixtures/cases/damaged/``, run by
``test_damaged_cases.py``.

Every case publishes a provider output through the same path the CLI uses and derives the index
with ``ensure_index`` (or ``build_index``). Refusals are asserted by their ``reason`` code, and a
refusal must leave nothing behind in the workspace's ``indexes/`` directory: no index, no temp
sibling, no staging file, no journal. Case numbers refer to the reference,
``query-and-packet.md`` §3.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cm_graph.base.errors import Refusal
from cm_graph.generation.manifest import PINNED_PROVIDER
from cm_graph.index import graph_document as document
from cm_graph.index.graph_document import read_document
from cm_graph.index.jsonstream import ArrayStream, JsonStreamError, TopLevelReader

from ..support.damaged import FIRST_NODE
from ..support.documentkit import G0_EDGES, g0_bytes, load, refuse_graph
from ..support.g0 import edge, g0_graph, node

# --- malformed streams -------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 10, 0.25, 0.5, 0.9, -2, -1])
def test_truncated_json_refuses(repo: Path, state_dir: Path, cut: float) -> None:
    data = g0_bytes()
    end = int(len(data) * cut) if isinstance(cut, float) else cut
    refuse_graph(repo, state_dir, data[:end])


def test_every_strict_prefix_of_a_document_is_refused() -> None:
    data = g0_bytes()
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


def test_colons_quotes_backslashes_and_spacing_in_records_are_no_repeated_key(repo: Path, state_dir: Path) -> None:
    """What the key count must not mistake for a repeated key (nor hide one behind)."""
    data = g0_bytes().replace(FIRST_NODE, b'{"id": "n-config", "a:b": "c:d", "q": "say \\"x\\": y", '
                              b'"bs\\\\": "e\\\\", "esc": "\\u003a", "spaced" : "s : t", '
                              b'"label": "parse_config", "file_type": "code", "source_file": "example_pkg/config.py"')
    assert load(repo, state_dir, data).edges == G0_EDGES


def test_empty_top_level_key_is_an_ordinary_annotation(repo: Path, state_dir: Path) -> None:
    """``{"": ...}`` is a JSON object like any other; its value must not read as the top level."""
    data = g0_bytes()
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


_KEY_CHARS = st.sampled_from(["a", "b", ":", '"', "\\", " ", "\n", "é"])
_RECORD = st.lists(st.tuples(st.text(_KEY_CHARS, min_size=1, max_size=3),
                             st.one_of(st.text(_KEY_CHARS, max_size=4), st.integers(-2, 2), st.none())),
                   max_size=5)


@settings(max_examples=150, deadline=None)
@given(records=st.lists(_RECORD, min_size=1, max_size=40), spacing=st.sampled_from([": ", ":", " : ", "\n:\t"]),
       escape_colons=st.booleans(), ascii_only=st.booleans(), filler=st.integers(0, 3000))
def test_the_stream_refuses_exactly_the_objects_a_strict_decoder_refuses(
    records: list[list[tuple[str, Any]]], spacing: str, escape_colons: bool, ascii_only: bool, filler: int,
) -> None:
    """Whatever the keys and values hold (colons, quotes, backslashes, escapes) and however the
    pairs are spaced, a record list is refused exactly when some record repeats a key; the filler
    moves the records across the reader's batch and window boundaries."""

    def text(value: Any) -> str:
        dumped = json.dumps(value, ensure_ascii=ascii_only)
        return dumped.replace(":", "\\u003a") if escape_colons else dumped

    rendered = ", ".join("{" + ", ".join(f"{text(k)}{spacing}{text(v)}" for k, v in pairs) + "}" for pairs in records)
    data = ('{"pad": "' + "x" * filler + '", "records": [' + rendered + "]}").encode()
    repeated = any(len({k for k, _ in pairs}) < len(pairs) for pairs in records)
    reader = TopLevelReader(io.BytesIO(data))
    try:
        decoded = [list(value) if isinstance(value, ArrayStream) else value for _, value in reader.members()]
    except JsonStreamError as error:
        assert repeated and str(error) == "graph.json repeats a key inside an object."
        return
    assert not repeated and decoded[1] == [dict(pairs) for pairs in records]


def test_an_overlong_node_id_names_its_file_and_line_and_the_exclusion_that_builds(repo: Path, state_dir: Path) -> None:
    """The provider can make a node id of thousands of characters from a type it misreads
    (effect 3.10.0's ``src/internal/stream.ts`` L1350: 9,097). The graph is still refused, as the
    seed's bound says, but the sentence names the node's file and line, never the id itself, and
    the ``--exclude`` that builds the rest; a file name is escaped and quoted for the shell."""
    graph = g0_graph()
    graph["nodes"].append(node("k" * 9097, "{ [K in E]: X }", "src/config.py", "L3"))
    refusal = refuse_graph(repo, state_dir, graph)
    assert "k" * 100 not in refusal.message and "9,097 characters" in refusal.message
    assert "src/config.py L3" in refusal.message and "--exclude src/config.py" in refusal.message
    graph["nodes"][-1]["source_file"] = "src/we ird\x1b.py"
    refusal = refuse_graph(repo, state_dir, graph)
    assert "\x1b" not in refusal.message and "--exclude 'src/we ird\\x1b.py'" in refusal.message, refusal.message
