"""The tests `--format pytest-args` prints stay within a share of the suite (issue 29: "≤ 25 % of the
suite"): nearest first, the rest counted on stderr with the flag that prints them. A real git
repository built by the pinned provider; the suite is counted from the test files themselves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cm_graph.context.test_selection import KnownTests, within_share

from ..support.cli import invoke, where
from ..support.helpers import edit, make_repo
from ..support.wholeschemas import checked

PRICE_TESTS = 30
OTHER_TESTS = 70
CORE = '''def price(amount):
    return amount * 2


def unrelated():
    return 1
'''
TEST_PRICE = "from shop.core import price\n" + "".join(
    f"\n\ndef test_price_{n}():\n    assert price({n}) == {2 * n}\n" for n in range(PRICE_TESTS))
TEST_OTHER = "from shop.core import unrelated\n" + "".join(
    f"\n\ndef test_other_{n}():\n    assert unrelated() == 1\n" for n in range(OTHER_TESTS))
PRICE_IDS = [f"tests/test_price.py::test_price_{n}" for n in range(PRICE_TESTS)]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("share")
    repo = make_repo(root / "repo", {"shop/__init__.py": "", "shop/core.py": CORE,
                                     "tests/test_price.py": TEST_PRICE, "tests/test_other.py": TEST_OTHER})
    state = root / "state"
    done = invoke("build", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    edit(repo, "shop/core.py", "amount * 2", "amount * 3")
    return repo, state


def printed(done: Any) -> list[str]:
    assert done.exit_code == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.provider
def test_pytest_args_prints_the_nearest_tests_within_a_quarter_of_the_suite_and_says_what_it_left_out(
    shop: tuple[Path, Path]
) -> None:
    repo, state = shop
    done = invoke("changes", "--format", "pytest-args", *where(repo, state))
    shown = printed(done)
    bound = (PRICE_TESTS + OTHER_TESTS) // 4  # 25 of the 100 tests the test files define
    assert shown == PRICE_IDS[:bound]
    assert ("cm-graph: 5 more test(s) reach the change past the first 25 (25% of the 100 tests the index "
            "knows, at least 20); --max-share 1 prints them all.") in done.stderr


@pytest.mark.provider
def test_max_share_one_prints_every_test_that_reaches_the_change(shop: tuple[Path, Path]) -> None:
    repo, state = shop
    done = invoke("changes", "--format", "pytest-args", "--max-share", "1", *where(repo, state))
    assert printed(done) == PRICE_IDS
    assert "--max-share" not in done.stderr


@pytest.mark.provider
def test_context_tests_pytest_args_keeps_the_same_bound(shop: tuple[Path, Path]) -> None:
    repo, state = shop
    done = invoke("context", "tests", "price", "--format", "pytest-args", *where(repo, state))
    assert printed(done) == PRICE_IDS[:25]
    assert "5 more test(s)" in done.stderr
    whole = invoke("context", "tests", "price", "--format", "pytest-args", "--max-share", "1", *where(repo, state))
    assert printed(whole) == PRICE_IDS


@pytest.mark.provider
def test_the_json_answer_keeps_every_test_and_says_which_ones_fit_the_share(shop: tuple[Path, Path]) -> None:
    repo, state = shop
    done = invoke("changes", "--json", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    answer = checked(json.loads(done.stdout))  # the cut selection is what the whole schema describes
    tests = answer["tests"]
    assert answer["answer"].endswith(" The nearest 25 of them (25 tests) fit the first 25 of the 100 tests the index "
                                     "knows; `--format pytest-args` prints those (`tests.selection`).")
    assert [item["id"] for item in tests["items"]] == PRICE_IDS
    assert tests["selection"] == {"max_share": 0.25, "known_tests": 100, "bound_tests": 25, "items": 25,
                                  "tests": 25, "more_items": 5, "more_tests": 5}


@pytest.mark.provider
def test_a_small_suite_is_not_cut_below_twenty_tests(shop: tuple[Path, Path]) -> None:
    repo, state = shop
    done = invoke("changes", "--format", "pytest-args", "--max-share", "0.05", *where(repo, state))
    assert printed(done) == PRICE_IDS[:20]  # 5 % of 100 is 5: the floor is 20
    assert "10 more test(s) reach the change past the first 20" in done.stderr


@pytest.mark.provider
@pytest.mark.parametrize("share", ["0", "-1", "1.5", "nan", "a quarter"])
def test_a_share_outside_zero_to_one_is_refused(shop: tuple[Path, Path], share: str) -> None:
    repo, state = shop
    done = invoke("changes", "--format", "pytest-args", "--max-share", share, *where(repo, state))
    assert done.exit_code != 0 and not done.stdout
    assert "--max-share" in done.stderr


_FILES = st.sampled_from(["tests/test_a.py", "tests/test_b.py", "tests/sub/test_c.py"])
_NAMES = st.sampled_from(["test_x", "test_y", "TestK::test_m", "TestK::test_n", "test_z"])
_IDS = st.builds(lambda f, n: f"{f}::{n}", _FILES, _NAMES)
_ITEMS = st.one_of(_IDS, _FILES, st.just("tests/sub"), st.builds(lambda f: f"{f}::TestK", _FILES))


@given(known=st.sets(_IDS, max_size=15), items=st.lists(_ITEMS, unique=True, max_size=12),
       share=st.floats(min_value=0.01, max_value=1.0), floor=st.integers(0, 4))
def test_the_selection_is_the_longest_prefix_within_the_share(
    known: set[str], items: list[str], share: float, floor: int
) -> None:
    suite = KnownTests(sorted(known))
    chosen = within_share(suite, items, share, floor)
    bound = max(int(share * len(known)), floor)
    assert chosen.bound == bound
    assert chosen.items <= len(items)
    covered = suite.covered(items[:chosen.items])
    assert chosen.tests == len(covered) and chosen.all_tests == len(suite.covered(items))
    if not known:
        assert chosen.items == len(items)  # no suite to bound by: every item
        return
    assert chosen.tests <= bound or chosen.items == 1  # the nearest is always given
    if chosen.items < len(items):
        assert len(suite.covered(items[:chosen.items + 1])) > bound
