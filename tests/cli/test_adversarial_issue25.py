"""The issue-25 adversarial sweep at CI size: per category, nothing broke.

The sweep (``tests/support/adversarial2.py`` and its ``sweep_*`` modules, ``removerace`` for the
readers during remove + build) runs once per module here; its table (tried / held / broke per
category, with the first ways a category broke) is printed by
``test_the_sweep_reports_every_category``. Rerun it by hand with larger counts:
``python -m tests.support.adversarial2 --seed 25 --count 40 --loops 30``.

A break already reported whose fix belongs to code being restructured elsewhere is counted as
``known`` (with where it is reported), not ``held``: the table shows it, and ``broke`` stays the
count of breaks nobody has taken on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from ..support.adversarial import Tally, report  # noqa: E402
from ..support.adversarial2 import CATEGORIES, Sizes, run_sweep  # noqa: E402

pytestmark = pytest.mark.adversarial
SEED = 25
SIZES = Sizes(count=2, loops=2)


@pytest.fixture(scope="module")
def tallies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Tally]:
    return run_sweep(Path(tmp_path_factory.mktemp("adversarial2")), SIZES, SEED)


def test_the_sweep_reports_every_category(tallies: dict[str, Tally], capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print(f"\nadversarial sweep (issue 25), seed {SEED}, count {SIZES.count}, loops {SIZES.loops}")
        print(report(tallies))
    assert list(CATEGORIES) == list(tallies)
    for name, tally in tallies.items():
        assert tally.tried > 0, f"{name} tried nothing"
        assert tally.tried == tally.held + tally.broke + tally.known


@pytest.mark.parametrize("category", list(CATEGORIES))
def test_nothing_broke(tallies: dict[str, Tally], category: str) -> None:
    tally = tallies[category]
    assert tally.broke == 0, f"{tally.broke} of {tally.tried} broke:\n" + "\n".join(tally.examples)
