"""``cm-graph query`` without typer: the one body the typer command and the fast entry both run.

Agents call ``query`` over and over, so its process must start quickly. This module loads only the
library's question path; rich is loaded only when a table is printed (no ``--json``) or ``--show``
asks for the relationships.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..base.errors import Refusal
from ..base.jsonio import dumps_canonical
from ..base.privfs import read_regular_file, write_private_atomic
from ..evidence.ask import ask
from ..evidence.authorization import MAX_AUTHORIZATION_BYTES, Authorization, parse_authorization
from ..generation.layout import Workspace
from .boundary import print_json, run_refusing


def read_authorization(path: Path) -> Authorization:
    return parse_authorization(read_regular_file(path, MAX_AUTHORIZATION_BYTES, "authorization file"))


def run_query(
    *,
    question: str,
    target: str,
    authorization: Path,
    packet_out: Path | None = None,
    revision: str = "HEAD",
    depth: int | None = None,
    node_budget: int | None = None,
    repo_path: Path | None = None,
    state_dir: Path | None = None,
    show: bool = False,
    json_output: bool = False,
) -> int:
    """Answer one question; the packet goes to ``packet_out``, metadata to stdout. Returns the
    exit code: 1 for a refusal or a required answer that is unavailable, else 0."""

    def answer_and_write() -> int:
        auth = read_authorization(authorization)
        workspace = Workspace.locate(repo_path, state_dir)
        outcome = ask(
            workspace, question, target, auth,
            revision=revision, depth=depth, node_budget=node_budget,
        )
        if outcome.packet is not None and packet_out is not None:
            try:
                write_private_atomic(Path(os.path.abspath(packet_out)), dumps_canonical(outcome.packet))
            except OSError as error:
                detail = error.strerror or "I/O error"
                raise Refusal(f"The packet file could not be written ({detail}).", reason="io") from None
        if json_output:
            print_json(outcome.summary)
        else:
            from .render import console, print_summary

            print_summary(console(), outcome.summary)
        if show and outcome.answer is not None:
            from .render import console, print_answer

            print_answer(console(stderr=True), outcome.answer)
        return outcome.exit_code

    return run_refusing(answer_and_write, json_output)
