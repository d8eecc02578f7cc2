"""Golden answers over G0, one folder per case, compared byte for byte:

- ``fixtures/cases/golden/g0/<question>-<target>/packet.json``: the packet the question mints for
  the target (the reference's worked example, §3 A; ``tests/evidence/test_golden_g0.py``);
- ``fixtures/cases/code_context/g0/<intent>-<target>/answer.json``: the ``code_context`` answer
  for the intent and target (``tests/context/test_code_context_golden.py``).

The folder's name is the case's input (a question or intent has no ``-``, so the first one splits
it), its README says in one line what it shows. The values that differ by run are masked: the
generation id (a fresh uuid per publish), the answer id over it, and the checkout's absolute path.
Everything else, the bound commit included, is fixed by the G0 fixture, the fixed commit date and
the clock ``T``. After adding a folder, or a deliberate change to packets or answers, regenerate
every folder's expected output and review the diff::

    python -m tests.support.golden
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from cm_graph.base.jsonio import dumps_pretty

from .askkit import ask_graph
from .contextkit import ask_context, masked, published
from .fixturecases import CODE_CONTEXT_ANSWERS, GOLDEN_PACKETS
from .g0 import g0_graph, make_g0_repo


def case_input(folder: Path) -> tuple[str, str]:
    """(question or intent, target) named by a golden case's folder."""
    asked, _, target = folder.name.partition("-")
    assert asked and target, f"{folder}: a golden case's folder is <question>-<target>"
    return asked, target


def golden_text(packet: dict[str, Any]) -> str:
    """The packet as its golden file holds it: run-dependent values masked, keys sorted."""
    masked_packet = copy.deepcopy(packet)
    masked_packet["binding"]["generation"] = "<generation>"
    masked_packet["binding"]["identity"]["repository_root"] = "<checkout>"
    return dumps_pretty(masked_packet) + "\n"


def minted_text(repo: Path, state: Path, question: str, target: str) -> str:
    """What ``question`` about ``target`` mints over G0 at ``repo`` today, as golden text."""
    outcome = ask_graph(repo, state, g0_graph(), question, target)
    assert outcome.packet is not None, outcome.summary
    return golden_text(outcome.packet)


def answer_text(document: dict[str, Any]) -> str:
    """A code_context answer as its golden file holds it: masked, indented, in the shape's key order."""
    return json.dumps(json.loads(masked(document)), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    """Rewrite every golden case's expected output from what the code answers now."""
    with tempfile.TemporaryDirectory(prefix="cm-graph-golden-") as base:
        repo = make_g0_repo(Path(base) / "repo")
        for number, folder in enumerate(GOLDEN_PACKETS.folders()):
            text = minted_text(repo, Path(base) / f"state-{number}", *case_input(folder))
            (folder / "packet.json").write_text(text, encoding="utf-8")
            print(f"wrote {folder / 'packet.json'}")
        workspace = published(repo, Path(base) / "state-context", g0_graph())
        for folder in CODE_CONTEXT_ANSWERS.folders():
            document = ask_context(workspace, *case_input(folder), wire=True)
            (folder / "answer.json").write_text(answer_text(document), encoding="utf-8")
            print(f"wrote {folder / 'answer.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
