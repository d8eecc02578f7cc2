"""The one escaping of repository text for output (``base/printable.py``), held character by character.

The whole-command test is ``tests/cli/test_terminal_escapes.py``; here the three spellings of
one character class: ``printable`` leaves no such character and changes nothing else,
``printable_json`` keeps the decoded value exact, and ``printable_prose`` touches only prose.
"""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from cm_graph.base.jsonio import dumps_wire
from cm_graph.base.printable import UNPRINTABLE, printable, printable_json, printable_prose

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Text that leans on the characters that matter: controls, bidi, separators, lone surrogates.
TEXT = st.text(st.one_of(st.characters(max_codepoint=0xA0), st.sampled_from(BIDI + "\u2028\u2029\udc9b·é"),
                         st.characters()), max_size=40)


def _unprintable(char: str) -> bool:
    """Written from Unicode's own categories, not from the module's pattern."""
    return unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp") or char in BIDI


@given(TEXT)
def test_printable_leaves_no_control_and_changes_nothing_else(text: str) -> None:
    out = printable(text)
    assert not any(_unprintable(char) for char in out)
    assert printable(out) == out
    if not any(_unprintable(char) for char in text):
        assert out == text
    out.encode("utf-8")  # a lone surrogate is spelled, so stdout can always write it


def test_printable_spells_each_character_as_python_writes_it() -> None:
    assert printable("a\x1b[31m\tb\nc\rd\x7f\u009b\u202e\udc9b") == "a\\x1b[31m\\tb\\nc\\rd\\x7f\\x9b\\u202e\\udc9b"
    assert printable("pkg/:warning:[bold]x\\.py ·") == "pkg/:warning:[bold]x\\.py ·"


@given(st.recursive(TEXT | st.integers(), lambda inner: st.lists(inner) | st.dictionaries(TEXT, inner), max_leaves=8))
def test_printable_json_is_the_same_value_with_no_raw_control(value: object) -> None:
    for indent in (None, 2):
        text = printable_json(json.dumps(value, ensure_ascii=False, indent=indent))
        assert json.loads(text) == value
        assert all(char in "\n" or not _unprintable(char) for char in text)


@given(st.recursive(TEXT | st.integers() | st.none(), lambda inner: st.lists(inner) | st.dictionaries(TEXT, inner),
                   max_leaves=8))
def test_the_wire_form_is_the_same_value_with_no_raw_control(value: object) -> None:
    """``dumps_wire`` (what ``context --json`` prints and MCP and REST send) applies ``printable_json``."""
    text = dumps_wire(value)
    assert json.loads(text) == value
    assert not any(_unprintable(char) for char in text)


def test_the_wire_form_keeps_the_answers_own_key_order_compactly() -> None:
    answer = {"schema": "s", "status": "answered", "answer": "`a\u202eb` é", "items": [{"z": 1, "a": None}]}
    wire = '{"schema":"s","status":"answered","answer":"`a\\u202eb` é","items":[{"z":1,"a":null}]}'
    assert dumps_wire(answer) == wire


def test_printable_prose_touches_only_the_sentences() -> None:
    name = "pkg/a\x1b]52;c;eA==\x07.py"
    answer = {"answer": f"`{name}` changed", "path": name, "sections": {"x": {"detail": name, "items": [
        {"label": name, "why": name}]}}, "next_actions": [{"why": name, "command": f"cm-graph context how {name}"}]}
    printable_prose(answer)
    assert answer["path"] == name and answer["sections"]["x"]["items"][0]["label"] == name
    for sentence in (answer["answer"], answer["sections"]["x"]["detail"], answer["next_actions"][0]["command"]):
        assert UNPRINTABLE.search(sentence) is None and "\\x1b]52" in sentence
