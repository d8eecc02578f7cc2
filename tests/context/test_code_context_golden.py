"""The ``code_context`` answer of each case folder in ``fixtures/cases/code_context/g0/`` (one per
intent and target over G0), held to what the code answers today: the wire bytes, masked, equal
the folder's ``answer.json`` re-serialised the way the wire is, and the file is the text the
regenerate command writes (``tests/support/golden.py`` says what is masked and how)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cm_graph.base.jsonio import dumps_wire
from cm_graph.query.answerids import answer_id

from ..support.contextkit import ask_context, masked, published
from ..support.fixturecases import CODE_CONTEXT_ANSWERS
from ..support.g0 import g0_graph
from ..support.golden import answer_text, case_input


@pytest.mark.parametrize("folder", CODE_CONTEXT_ANSWERS.params())
def test_the_answer_is_its_golden_file(g0_repo: Path, state_dir: Path, folder: Path) -> None:
    golden = CODE_CONTEXT_ANSWERS.read(folder)["answer.json"].decode("utf-8")
    document = ask_context(published(g0_repo, state_dir, g0_graph()), *case_input(folder), wire=True)
    assert document["answer_id"] == answer_id(document)
    assert masked(document) == dumps_wire(json.loads(golden)), "python -m tests.support.golden, then review the diff"
    assert answer_text(document) == golden
