"""The tests to run (issue 29 item 3, static): reverse reachability from changed definitions or a
target to the tests, through graph, resolved and textual evidence, ranked, each with why, as
pytest node ids; ``--format pytest-args`` on ``changes`` and ``context tests``. Real git
repositories built by the pinned provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..support.cli import invoke, where
from ..support.helpers import edit, make_repo
from ..support.wholeschemas import checked

pytestmark = [pytest.mark.provider]

CORE = '''def helper(x):
    return x + 1


def compute(y):
    return helper(y) * 2


class Box:
    def open(self):
        return compute(3)
'''
API = '''from pkg.core import compute


def public(y):
    return compute(y)
'''
TESTS = '''from pkg.api import public
from pkg.core import Box, compute


def test_compute():
    assert compute(1) == 4


class TestBox:
    def test_open(self):
        assert Box().open() == 8


def test_public():
    assert public(2) == 6


def _make():
    return compute(5)


def test_via_helper():
    assert _make() == 12


def test_unrelated():
    assert True
'''


def built(tmp_path: Path) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/api.py": API,
                                         "tests/__init__.py": "", "tests/test_core.py": TESTS})
    state = tmp_path / "state"
    done = invoke("build", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return repo, state


def changes_json(repo: Path, state: Path) -> dict[str, Any]:
    done = invoke("changes", "--json", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return checked(dict(json.loads(done.stdout)))


def test_a_changed_helper_lists_the_tests_reaching_it_ranked_with_why(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    edit(repo, "pkg/core.py", "return x + 1", "return x + 2")
    tests = changes_json(repo, state)["tests"]
    assert tests["status"] == "answered" and tests["depth"] >= 3
    by_id = {item["id"]: item for item in tests["items"]}
    assert set(by_id) == {"tests/test_core.py::test_compute", "tests/test_core.py::TestBox::test_open",
                          "tests/test_core.py::test_public", "tests/test_core.py::test_via_helper"}
    direct = by_id["tests/test_core.py::test_compute"]
    assert direct["hop"] == 2 and direct["runner"] == "pytest" and direct["reaches"] == ["helper"]
    assert [step["to"] for step in direct["why"]][-1].startswith("helper")
    assert all(step["evidence"] in ("graph", "resolved") for step in direct["why"])
    assert tests["items"][0]["id"] == "tests/test_core.py::test_compute"  # fewest hops first
    hops = [item["hop"] for item in tests["items"]]
    assert hops == sorted(hops)


def test_pytest_args_prints_the_ids_one_a_line_and_nothing_when_nothing_changed(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    done = invoke("changes", "--format", "pytest-args", *where(repo, state))
    assert done.exit_code == 0 and done.stdout == "" and "no test to run" in done.stderr
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    done = invoke("changes", "--format", "pytest-args", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "tests/test_core.py::test_compute"
    assert set(lines) == {"tests/test_core.py::test_compute", "tests/test_core.py::TestBox::test_open",
                          "tests/test_core.py::test_public", "tests/test_core.py::test_via_helper"}
    text = invoke("changes", *where(repo, state))
    assert "Tests to run (4" in text.stdout and "tests/test_core.py::test_compute" in text.stdout


def test_context_tests_lists_the_tests_to_run_and_prints_them_for_pytest(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    done = invoke("context", "tests", "compute", "--format", "pytest-args", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines()[0] == "tests/test_core.py::test_compute"
    assert "tests/test_core.py::test_unrelated" not in done.stdout
    assert "tests/test_core.py::TestBox::test_open" in done.stdout.splitlines()
    answer = invoke("context", "tests", "compute", "--json", "--max-chars", "60000", *where(repo, state))
    from cm_graph.context.wire import section_items

    document = json.loads(answer.stdout)
    items = section_items(document["sections"]["tests_to_run"], document["citations"])
    assert items[0]["id"] == "tests/test_core.py::test_compute" and items[0]["why"]
    refused = invoke("context", "how", "compute", "--format", "pytest-args", *where(repo, state))
    assert refused.exit_code != 0 and "context tests" in refused.stderr


def test_an_odd_id_is_quoted_and_one_with_a_control_character_never_printed() -> None:
    from cm_graph.cli.pytest_args import shell_word

    assert shell_word("tests/test_a.py::test_b") == "tests/test_a.py::test_b"
    assert shell_word("tests/test a.py::test_b") == "'tests/test a.py::test_b'"
    assert shell_word("tests/test_$(x).py") == "'tests/test_$(x).py'"
    assert shell_word("tests/test_\x1b[2J.py::test_b") is None
    assert shell_word("tests/test_\u202e.py") is None


HANDLER = '''class Handler:
    def run(self, kind):
        return getattr(self, "handle_" + kind)()

    def handle_x(self):
        return 1
'''
HANDLER_TESTS = '''from pkg.handler import Handler


def test_handler():
    assert Handler().run("x") == 1
'''


def test_a_method_nothing_names_is_reached_through_its_class(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/handler.py": HANDLER,
                                         "tests/test_handler.py": HANDLER_TESTS})
    state = tmp_path / "state"
    assert invoke("build", *where(repo, state)).exit_code == 0
    edit(repo, "pkg/handler.py", "return 1", "return 2")
    [item] = changes_json(repo, state)["tests"]["items"]
    assert item["id"] == "tests/test_handler.py::test_handler" and item["evidence"] == "resolved"
    assert item["why"][-1]["relation"] == "has method" and item["why"][-1]["from"] == "Handler"
    assert item["hop"] == len(item["why"])


def test_a_test_in_an_oddly_named_file_is_quoted_for_the_shell(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": CORE,
                                         "tests/test_we ird.py": "from pkg.core import compute\n\n\n"
                                                                 "def test_odd():\n    assert compute(1) == 4\n"})
    state = tmp_path / "state"
    assert invoke("build", *where(repo, state)).exit_code == 0
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    done = invoke("changes", "--format", "pytest-args", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "'tests/test_we ird.py::test_odd'\n"


def test_pytest_args_leaves_out_unprintable_ids_and_other_runners_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cm_graph.cli.pytest_args import write_pytest_args

    write_pytest_args([{"id": "tests/test_a.py::test_b", "runner": "pytest"},
                       {"id": "tests/test_\x1b]52;c;x\x07.py::test_c", "runner": "pytest"},
                       {"id": "web/app.test.js", "runner": "file"}], 4)
    out, err = capsys.readouterr()
    assert out == "tests/test_a.py::test_b\n"
    assert "\x1b" not in err and "\x07" not in err and "test_\\x1b]52;c;x\\x07.py::test_c" in err
    assert "web/app.test.js" in err and "1 more test(s)" in err
    write_pytest_args([], 0)
    out, err = capsys.readouterr()
    assert out == "" and "no test to run" in err


def test_a_test_reaching_two_changed_definitions_is_one_item_at_its_nearest_hop(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    edit(repo, "pkg/core.py", "return x + 1", "return x + 2")
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    items = changes_json(repo, state)["tests"]["items"]
    ids = [item["id"] for item in items]
    assert len(ids) == len(set(ids)) == 4
    first = items[0]
    assert first["id"] == "tests/test_core.py::test_compute" and first["hop"] == 1
    assert first["reaches"] == ["compute", "helper"] and len(first["why"]) == 1


CART_TS = '''export class Cart {
  total(): number {
    return 1;
  }
}

export function makeCart(): Cart {
  return new Cart();
}

export function unused(): number {
  return 2;
}
'''
CART_TEST_TS = '''import { makeCart, unused } from '../src/cart';

describe('cart', () => {
  it('totals', () => {
    expect(makeCart().total()).toBe(1);
  });
});
'''


def test_a_typescript_test_file_calling_it_in_its_callbacks_is_a_test_to_run_and_an_import_alone_is_not(
    tmp_path: Path,
) -> None:
    """A JS/TS test's body is an anonymous callback (``it('...', () => ...)``), so its calls belong
    to the test file's top level; the graph reaches the file first by its import, and the file is
    a test to run (by its runner, the file) because the resolver has its call there. ``unused``,
    imported and never called, is not: the answer says the import alone runs nothing of it."""
    repo = make_repo(tmp_path / "repo", {"src/cart.ts": CART_TS, "tests/cart.test.ts": CART_TEST_TS})
    state = tmp_path / "state"
    done = invoke("build", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    answer = invoke("context", "tests", "makeCart", "--json", *where(repo, state))
    assert answer.exit_code == 0, answer.stderr
    from cm_graph.context.wire import section_items

    document = checked(dict(json.loads(answer.stdout)))
    section = document["sections"]["tests_to_run"]
    assert section["status"] == "ok", section
    items = section_items(section, document["citations"])
    assert [(item["id"], item["runner"]) for item in items] == [("tests/cart.test.ts", "file")]
    assert items[0]["why"] == ["cart.test.ts call (resolved) makeCart()"]
    assert (items[0]["site"]["path"], items[0]["site"]["line"]) == ("tests/cart.test.ts", 5)  # the call, not the import
    assert "No test reaches it" not in document["answer"]
    assert "project's own test runner" in document["answer"] and "pytest-args` prints" not in document["answer"]
    imported = checked(dict(json.loads(invoke("context", "tests", "unused", "--json", *where(repo, state)).stdout)))
    assert imported["sections"]["tests_to_run"]["status"] == "empty"
    assert "only import" in imported["sections"]["tests_to_run"]["detail"], imported["sections"]["tests_to_run"]
    assert "cart.test.ts" in imported["sections"]["tests_to_run"]["detail"]
