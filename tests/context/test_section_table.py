"""The section table (``context/section_table.py``): every row is whole, so a new section is one
row plus its composer and cannot be half declared."""

from __future__ import annotations

from cm_graph.context.intents import INTENT_NAMES, INTENTS
from cm_graph.context.section_table import SECTIONS, SECTIONS_OF


def test_names_are_unique_and_every_intent_shows_rows_of_the_table() -> None:
    assert len({row.name for row in SECTIONS}) == len(SECTIONS)
    assert all(set(row.intents) <= set(INTENT_NAMES) and row.intents for row in SECTIONS)
    assert all(SECTIONS_OF[intent] for intent in INTENT_NAMES)
    assert {intent.then for intent in INTENTS} <= set(INTENT_NAMES)


def test_a_row_says_how_it_is_filled_or_why_it_cannot_be() -> None:
    for row in SECTIONS:
        if row.compose is None:  # nothing in this build fills it: always unavailable, runs nothing
            assert row.unavailable and row.primitive is None and row.empty is None, row.name
        else:  # a filled section has a primitive to name and a sentence for its items
            assert row.primitive and (row.sentence or row.headline) is not None, row.name
        if row.empty is not None and "{depth}" in row.empty[1]:
            assert row.walk is not None, row.name  # only a walk has a depth to state
