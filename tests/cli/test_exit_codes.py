"""One exit code per outcome, the same on every command (issue 32 item 5): the table in
``base/errors.py`` is the one docs/cli.md shows, and "no such name" exits alike from ``context``
and ``fleet usages`` (it was 1 and 0), over real checkouts and real indexes."""

from __future__ import annotations

import re
from pathlib import Path

from cm_graph.base.errors import EXIT_CODES
from cm_graph.fleet.members import add_member, member_from

from ..support.cli import invoke, where
from ..support.fleetkit import make_fleet_repos

CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_documented_table_is_the_one_the_commands_use() -> None:
    text = CLI_DOC.read_text(encoding="utf-8")
    block = text[text.index("**Exit codes.**"):text.index("**Start-up.**")]
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \|", block, re.MULTILINE)
    assert {outcome: int(code) for code, outcome in rows} == EXIT_CODES
    assert len(rows) == len(EXIT_CODES)


def test_no_such_name_exits_alike_from_context_and_fleet_usages(tmp_path: Path) -> None:
    state = tmp_path / "state"
    repos = make_fleet_repos(tmp_path, state)
    for name in ("lib", "app"):
        add_member(state, "deps", member_from(state, connection=None, repo_path=repos[name], repository=None))
    context = invoke("context", "usage", "nowhere_at_all", *where(repos["app"], state))
    fleet = invoke("fleet", "usages", "deps", "nowhere_at_all", "--state-dir", str(state))
    assert context.exit_code == fleet.exit_code == EXIT_CODES["unresolved"], (context.output, fleet.output)
    assert fleet.stdout.startswith("nowhere_at_all: not_found"), fleet.stdout  # the answer is still printed
    assert fleet.stderr.startswith("cm-graph: not_found: "), fleet.stderr
    found = invoke("fleet", "usages", "deps", "lib_pkg.core.helper", "--state-dir", str(state))
    assert found.exit_code == EXIT_CODES["answered"], found.output
    assert invoke("fleet", "usages", "deps").exit_code == EXIT_CODES["usage"]
