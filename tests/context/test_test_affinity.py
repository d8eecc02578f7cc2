"""The words a far test is chosen by (``context/test_affinity.py``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cm_graph.context.test_affinity import SAY_NOTHING, affine, definition_words, top_package, words


def test_camel_snake_and_path_spellings_split_into_words_without_plurals() -> None:
    assert words("HashHeaderProcessor.run") == {"hash", "header", "processor"}
    assert words("tests/test_syntax/blocks/test_headers.py::TestHeaders::test_hash_h1") == {
        "syntax", "block", "header", "hash", "h1"} - {"h1"}
    assert words("HTMLExtractor.handle_starttag") == {"html", "extractor", "handle", "starttag"}
    assert words("md_in_html") == {"html"}  # `md` and `in` are shorter than three letters


def test_a_two_letter_acronym_of_a_name_meets_the_tests_that_spell_it() -> None:
    assert words("markdown.blockprocessors.HRProcessor.run") == {"markdown", "blockprocessor", "hr", "processor"}
    assert words("tests/test_syntax/blocks/test_hr.py::TestHorizontalRules::test_hr_after_paragraph",
                 pairs=True) == {"syntax", "block", "hr", "horizontal", "rule", "after", "paragraph"}
    assert words("md_in_html", pairs=True) == {"md", "in", "html"}
    assert words("md_in_html") == {"html"}  # a lower-case pair is a word of a test's id only
    ids = ["tests/test_syntax/blocks/test_hr.py::test_hr", "tests/test_lists.py::test_item"]
    assert affine(definition_words("markdown/blockprocessors.py", "markdown.blockprocessors.HRProcessor.run"),
                  ids) == (ids[:1], True)


def test_the_top_package_says_nothing_about_which_test_it_is() -> None:
    assert top_package("src/marshmallow/fields.py") == "marshmallow"
    assert top_package("markdown/blockprocessors.py") == "markdown"
    assert definition_words("markdown/blockprocessors.py", "markdown.blockprocessors.HTMLProcessor.run") == {
        "blockprocessor", "html", "processor"}


def test_the_ids_sharing_a_word_are_kept_in_order_else_all() -> None:
    ids = ["tests/test_lists.py::test_item", "tests/test_headers.py::test_one", "tests/test_headers.py::test_two"]
    assert affine({"header"}, ids) == (ids[1:], True)
    assert affine({"table"}, ids) == (ids, False)


@given(st.text(max_size=60), st.booleans())
def test_a_word_is_lower_case_three_letters_long_or_a_pair_and_says_something(spelling: str, pairs: bool) -> None:
    for word in words(spelling, pairs=pairs):
        assert word == word.lower() and word not in SAY_NOTHING
        assert len(word) >= 3 or (len(word) == 2 and word.isalpha() and (pairs or word.upper() in spelling))
        assert word.isascii() and word.isalnum()
