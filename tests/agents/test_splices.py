"""The two splices ``agents init`` writes with, taken back exactly: for any text around them, a
marked block placed (once or twice) then taken out, and a server entry inserted into any JSON
document's ``mcpServers`` then taken out, give back the bytes they started from."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cm_graph.agents.blocks import MARKDOWN, TOML, place_block, take_out_block
from cm_graph.agents.jsonsplice import place_entry, take_out_entry
from cm_graph.base.errors import InvalidInput, UnparsableConfig

ENTRY = {"command": "/opt/bin/cm-graph", "args": ["mcp", "--state-dir", "/s"], "env": {"CM_GRAPH_HOME": "/s"}}
texts = st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=200).filter(
    lambda text: "cm-graph agents:" not in text)
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                       max_size=3), max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(before=texts, body=texts.map(lambda text: text if text.endswith("\n") or not text else text + "\n"),
       new=st.booleans(), toml=st.booleans())
def test_a_block_placed_twice_and_taken_out_gives_back_the_text(before: str, body: str, new: bool,
                                                               toml: bool) -> None:
    syntax = TOML if toml else MARKDOWN
    original = None if new else before
    once = place_block(original, body, syntax, "F")
    assert place_block(once, body, syntax, "F") == once
    assert place_block(place_block(once, "other\n", syntax, "F"), body, syntax, "F") == once
    assert once.count("cm-graph agents: begin") == 1
    assert take_out_block(once, syntax, "F") == original


@settings(max_examples=200, deadline=None)
@given(document=st.dictionaries(st.text(max_size=6), json_values, max_size=4),
       servers=st.none() | st.dictionaries(st.text(max_size=6).filter(lambda k: k != "cm-graph"), json_values,
                                           max_size=3),
       indent=st.none() | st.integers(0, 4), trailing=st.sampled_from(["", "\n", "  \n"]))
def test_an_entry_inserted_and_taken_out_gives_back_the_json(
    document: dict[str, Any], servers: dict[str, Any] | None, indent: int | None, trailing: str
) -> None:
    document = {k: v for k, v in document.items() if k != "mcpServers"}
    if servers is not None:
        document["mcpServers"] = servers
    text = json.dumps(document, indent=indent) + trailing
    placed = place_entry(text, ENTRY, "F")
    parsed = json.loads(placed)
    assert parsed["mcpServers"]["cm-graph"] == ENTRY
    assert {k: v for k, v in parsed["mcpServers"].items() if k != "cm-graph"} == (servers or {})
    assert place_entry(placed, ENTRY, "F") == placed
    assert take_out_entry(placed, "F") == text
    assert take_out_entry(place_entry(None, ENTRY, "F"), "F") is None


def test_a_damaged_block_and_a_foreign_entry_are_refused() -> None:
    damaged = place_block("x\n", "y\n", MARKDOWN, "F").replace("<!-- cm-graph agents: end -->\n", "")
    with pytest.raises(InvalidInput):
        place_block(damaged, "y\n", MARKDOWN, "F")
    with pytest.raises(UnparsableConfig):
        place_entry('{"mcpServers": {"cm-graph": {"command": "mine"}}}', ENTRY, "F")
    with pytest.raises(UnparsableConfig):
        take_out_entry('{"mcpServers": {"a": 1}, "mcpServers": {}}', "F")
