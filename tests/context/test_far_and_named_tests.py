"""Tests to run that no walk of ``TEST_DEPTH`` hops reaches (issue 29, static detection): a test
that loads a plugin module by a string naming it, and a definition deep in a pipeline that every
test runs through one entry point. Real git repositories built by the pinned provider; each
answer is checked against what the code says, not against the graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..support.cli import invoke, where
from ..support.helpers import edit, make_repo
from ..support.wholeschemas import checked

pytestmark = [pytest.mark.provider]

# A library that imports its extensions by name, as Markdown does: no edge goes from a test to
# an extension's code.
LOADER = '''import importlib


def render(text, extensions=()):
    for name in extensions:
        module = importlib.import_module("plug.ext." + name)
        text = module.make().apply(text)
    return text
'''
FANCY = '''class FancyProcessor:
    def run(self, text):
        return text.upper()


class FancyExtension:
    def apply(self, text):
        return FancyProcessor().run(text)


def make():
    return FancyExtension()
'''
PLAIN = '''class PlainProcessor:
    def run(self, text):
        return text


def make():
    return PlainProcessor()
'''
TEST_FANCY = '''from plug.loader import render


class TestFancy:
    def test_upper(self):
        assert render("a", extensions=["fancy"]) == "A"


def test_unloaded():
    assert render("a") == "a"
'''
TEST_PLAIN = '''from plug.loader import render


def test_plain():
    assert render("a", extensions=["plain"]) == "a"
'''

# A pipeline six calls deep under the one entry point every test calls.
PIPELINE = '''def convert(text):
    return _document(text)


def _document(text):
    return _chunk(text)


def _chunk(text):
    return _blocks(text)


def _blocks(text):
    return _block(text)


def _block(text):
    return header_block(text) + list_block(text)


def header_block(text):
    return text.count("#")


def list_block(text):
    return text.count("-")
'''
TEST_HEADERS = '''from pipe.core import convert


def test_one_header():
    assert convert("# a") == 1
'''
TEST_LISTS = '''from pipe.core import convert


def test_one_item():
    assert convert("- a") == 1
'''


def changes_tests(repo: Path, state: Path) -> dict[str, Any]:
    done = invoke("changes", "--json", "--max-items", "500", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return checked(dict(json.loads(done.stdout)))


def built(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "repo", files)
    state = tmp_path / "state"
    done = invoke("build", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return repo, state


def test_a_test_that_loads_the_changed_module_by_name_is_to_run(tmp_path: Path) -> None:
    repo, state = built(tmp_path, {"plug/__init__.py": "", "plug/loader.py": LOADER, "plug/ext/__init__.py": "",
                                   "plug/ext/fancy.py": FANCY, "plug/ext/plain.py": PLAIN,
                                   "tests/test_fancy.py": TEST_FANCY, "tests/test_plain.py": TEST_PLAIN})
    edit(repo, "plug/ext/fancy.py", "return text.upper()", "return text.lower()")
    answer = changes_tests(repo, state)
    by_id = {item["id"]: item for item in answer["tests"]["items"]}
    assert "tests/test_fancy.py::TestFancy::test_upper" in by_id, sorted(by_id)
    test = by_id["tests/test_fancy.py::TestFancy::test_upper"]
    assert test["evidence"] == "textual" and test["hop"] == 1
    assert test["why"][0]["relation"] == "loads module `fancy` by name"
    assert test["why"][0]["site"] == "tests/test_fancy.py:6"
    assert not any(key.startswith("tests/test_plain.py") for key in by_id)  # it loads another module
    printed = invoke("changes", "--format", "pytest-args", *where(repo, state))
    assert printed.exit_code == 0 and "tests/test_fancy.py::TestFancy::test_upper" in printed.stdout.splitlines()


def test_a_definition_deep_in_a_pipeline_runs_the_far_tests_that_share_its_words(tmp_path: Path) -> None:
    repo, state = built(tmp_path, {"pipe/__init__.py": "", "pipe/core.py": PIPELINE,
                                   "tests/test_headers.py": TEST_HEADERS, "tests/test_lists.py": TEST_LISTS})
    edit(repo, "pipe/core.py", 'text.count("#")', 'text.count("##")')
    answer = changes_tests(repo, state)
    ids = [item["id"] for item in answer["tests"]["items"]]
    assert ids == ["tests/test_headers.py::test_one_header"]  # `header`: its name shares a word
    far = answer["tests"]["items"][0]
    assert far["hop"] > 3 and [step["to"] for step in far["why"]][-1].startswith("header_block")
    assert ("No test reaches `header_block` within 3 hops; 2 reach it within 8, through the entry points tests "
            "call: the 1 of the 2 tests whose names share a word with it are listed, the others left out."
            in answer["unseen"]), answer["unseen"]


def test_a_far_definition_sharing_no_word_with_any_test_runs_every_far_test(tmp_path: Path) -> None:
    repo, state = built(tmp_path, {"pipe/__init__.py": "", "pipe/core.py": PIPELINE.replace("list_block", "zz_x"),
                                   "tests/test_headers.py": TEST_HEADERS, "tests/test_lists.py": TEST_LISTS})
    edit(repo, "pipe/core.py", 'text.count("-")', 'text.count("--")')
    answer = changes_tests(repo, state)
    ids = {item["id"] for item in answer["tests"]["items"]}
    assert ids == {"tests/test_headers.py::test_one_header", "tests/test_lists.py::test_one_item"}
    assert any("all 2 are listed (no test's name shares a word with it)" in line for line in answer["unseen"])


def test_context_tests_says_how_many_far_tests_it_left_out(tmp_path: Path) -> None:
    repo, state = built(tmp_path, {"pipe/__init__.py": "", "pipe/core.py": PIPELINE,
                                   "tests/test_headers.py": TEST_HEADERS, "tests/test_lists.py": TEST_LISTS})
    done = invoke("context", "tests", "header_block", "--json", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    from cm_graph.context.wire import section_items

    document = json.loads(done.stdout)
    section = document["sections"]["tests_to_run"]
    items = section_items(section, document["citations"])
    assert [item["id"] for item in items] == ["tests/test_headers.py::test_one_header"]
    assert section["far"] == [{"key": "header_block()", "near": 3, "depth": 8, "reached": 2, "kept": 1,
                               "by_name": True}]
    assert ("No test reaches `header_block()` within 3 hops; 2 reach it within 8, through the entry points tests "
            "call: the 1 of the 2 tests whose names share a word with it are listed, the others left out."
            in document["answer"])
