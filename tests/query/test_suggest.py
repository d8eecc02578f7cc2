"""The spelling distance of "did you mean" (``query/suggest.py``): optimal string alignment, so a
swap of two neighbouring characters (``Clinet`` for ``Client``) is one edit, as a typist makes it
(issue 32 item 3)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cm_graph.query.suggest import edit_distance

WORDS = st.text(alphabet="abcdexyz_", min_size=2, max_size=12)


def test_a_transposition_is_one_edit() -> None:
    assert [edit_distance(typed, "client", 1) for typed in ("clinet", "cilent", "lcient", "clietn")] == [1, 1, 1, 1]
    assert edit_distance("client", "client", 1) == 0
    assert edit_distance("cleint", "client", 3) == 1 and edit_distance("tneilc", "client", 2) == 3  # capped


@given(WORDS, st.data())
def test_any_adjacent_swap_is_one_edit_and_the_distance_is_symmetric(word: str, data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(word) - 2))
    swapped = word[:at] + word[at + 1] + word[at] + word[at + 2:]
    assert edit_distance(swapped, word, 3) == (0 if swapped == word else 1)
    other = data.draw(WORDS)
    assert edit_distance(word, other, 3) == edit_distance(other, word, 3)
    assert edit_distance(word, other, 3) <= max(len(word), len(other))
