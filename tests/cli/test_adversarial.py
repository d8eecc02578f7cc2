"""The adversarial sweep of issue 12 at CI size: per category, nothing broke.

The sweep itself (damaged graphs, random SIGKILLs, concurrent builds, a full tmpfs) lives in
``tests/support/adversarial.py`` and runs once per module here; rerun it by hand with larger counts:
``python -m tests.support.adversarial --count 2000``. Its table (tried / held / broke per category) is
printed by ``test_the_sweep_reports_every_category``.

Every category must hold: none is expected to break.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..support.adversarial import CATEGORIES as SWEPT
from ..support.adversarial import Sizes, Tally, report, run_sweep

pytestmark = pytest.mark.adversarial
SEED = 12
CATEGORIES = list(SWEPT)


@pytest.fixture(scope="module")
def tallies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Tally]:
    return run_sweep(Path(tmp_path_factory.mktemp("adversarial")), Sizes(), SEED)


def test_the_sweep_reports_every_category(tallies: dict[str, Tally], capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print("\nadversarial sweep (issue 12), seed", SEED)
        print(report(tallies))
    assert CATEGORIES == list(tallies)
    for name, tally in tallies.items():
        assert tally.skipped or tally.tried > 0, f"{name} tried nothing"
        assert tally.tried == tally.held + tally.broke


@pytest.mark.parametrize("category", CATEGORIES)
def test_nothing_broke(tallies: dict[str, Tally], category: str) -> None:
    tally = tallies[category]
    if tally.skipped:
        pytest.skip(tally.skipped)
    assert tally.broke == 0, f"{tally.broke} of {tally.tried} broke:\n" + "\n".join(tally.examples)
