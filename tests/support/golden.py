"""Golden packets: the packet each of the reference's four questions over G0 mints (§3 A), kept as
files under ``fixtures/golden/g0/`` and compared byte for byte (``tests/evidence/test_golden_g0.py``).

The two values that differ by run are masked: the generation id (a fresh uuid per publish) and
the checkout's absolute path. Everything else, the bound commit included, is fixed by the G0
fixture, the fixed commit date and the clock ``T``. After a deliberate change to packets,
regenerate the files and review their diff::

    python -m tests.support.golden
"""

from __future__ import annotations

import copy
import sys
import tempfile
from pathlib import Path
from typing import Any

from cm_graph.base.jsonio import dumps_pretty

from .askkit import ask_graph
from .g0 import g0_graph, make_g0_repo

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "g0"
# file stem -> (question, target): one per question, as the reference's worked example asks them
QUESTIONS = {
    "impact-parse_config": ("impact", "parse_config"),
    "dependency-load": ("dependency", "load"),
    "related_tests-parse_config": ("related_tests", "parse_config"),
    "symbol-parse_config": ("symbol", "parse_config"),
}


def golden_text(packet: dict[str, Any]) -> str:
    """The packet as its golden file holds it: run-dependent values masked, keys sorted."""
    masked = copy.deepcopy(packet)
    masked["binding"]["generation"] = "<generation>"
    masked["binding"]["identity"]["repository_root"] = "<checkout>"
    return dumps_pretty(masked) + "\n"


def minted_text(repo: Path, state: Path, name: str) -> str:
    """What the question named ``name`` mints over G0 at ``repo`` today, as golden text."""
    question, target = QUESTIONS[name]
    outcome = ask_graph(repo, state, g0_graph(), question, target)
    assert outcome.packet is not None, outcome.summary
    return golden_text(outcome.packet)


def main() -> int:
    """Rewrite every golden file from what the code mints now."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cm-graph-golden-") as base:
        repo = make_g0_repo(Path(base) / "repo")
        for name in QUESTIONS:
            text = minted_text(repo, Path(base) / f"state-{name}", name)
            (GOLDEN_DIR / f"{name}.json").write_text(text, encoding="utf-8")
            print(f"wrote {GOLDEN_DIR / name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
