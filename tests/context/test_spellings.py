"""Issue 30 item 2: the spellings a task's text names (``context/spellings.py``), and reading a
prime-shaped table back (``context/wire.py``): pure functions, no graph."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cm_graph.context.spellings import COMMON, task_spellings
from cm_graph.context.wire import cited, section_items


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(COMMON)), min_size=1, max_size=12),
       st.sampled_from(["", ".", "?", "!", ","]))
def test_common_english_never_becomes_a_spelling(words: list[str], end: str) -> None:
    sentence = " ".join(word.capitalize() if i == 0 else word for i, word in enumerate(words)) + end
    spellings, common = task_spellings(sentence)
    assert spellings == () and common == len(words)


def test_code_spellings_are_found_wherever_they_stand() -> None:
    spellings, _ = task_spellings("In lib/core.js, HTTPAdapter.send() calls getUri and parse_config (see `a b`).")
    assert [(s.text, s.kind) for s in spellings] == [
        ("a", "code"), ("b", "code"), ("lib/core.js", "code"), ("HTTPAdapter.send()", "code"), ("getUri", "code"),
        ("parse_config", "code")]


def test_a_cited_row_beside_an_uncited_one_reads_back_its_location() -> None:
    # A table's rows share its columns: the cited row's path is None there, not absent.
    from cm_graph.context.shape import encode

    document = {"sections": {"calls": {"status": "ok", "shown": 2, "total": 2, "items": [
        {"label": "f()", "path": "a.py", "line": 3, "cite": "c1"},
        {"label": "ValueError", "path": "", "line": None, "cite": None}]}},
        "citations": [{"id": "c1", "path": "a.py", "line": 3, "cite": "a.py#L3"}]}
    encode(document)
    first, second = section_items(document["sections"]["calls"], cited(document))
    assert (first["path"], first["line"]) == ("a.py", 3) and second["path"] == ""
