"""Paths, labels and targets are printed exactly as written: never read as rich markup or emoji.

A repository may name a file ``:warning:[bold]x.py``; rich would show ``:warning:`` as ⚠ and eat
``[bold]`` unless the text reaches it as literal text. Checked at the rendering level (a default
rich Console, markup and emoji on, into StringIO) and through the CLI on a real repository.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from cm_graph.cli.app import app
from cm_graph.cli.render import (
    console,
    print_answer,
    print_audit,
    print_diff,
    print_doctor,
    print_evidence,
    print_mapping,
)

from ..support.askkit import ask_graph
from ..support.g0 import edge, node
from ..support.helpers import make_repo, numbered_lines, publish

ODD_PATH = "pkg/:warning:[bold]x[/bold].py"
ODD_LABEL = "[red]run:warning:[/red]"
TRAILING = "odd\\"


def _rendered(draw) -> str:  # noqa: ANN001 - a callable taking a Console
    out = Console(file=StringIO(), width=400, highlight=False)  # markup and emoji on, as by default
    draw(out)
    return out.file.getvalue()


def _odd_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {ODD_PATH: numbered_lines(5), "pkg/main.py": numbered_lines(5)})


def _odd_graph() -> dict:
    return {
        "nodes": [node("a", ODD_LABEL, ODD_PATH, "L2"), node("b", "main", "pkg/main.py", "L1")],
        "edges": [edge("b", "a", path=ODD_PATH, location="L3")],
    }


def test_every_renderer_prints_markup_and_emoji_codes_literally() -> None:
    odd = f"{ODD_PATH} {ODD_LABEL} {TRAILING}"
    assert odd in _rendered(lambda out: print_mapping(out, odd, {"path": odd}))
    doctor = {"status": "ok", "checks": [{"check": odd, "status": odd, "message": odd, "remediation": odd}]}
    assert _rendered(lambda out: print_doctor(out, doctor)).count(odd) == 4
    audit = {
        "generation": "g", "status": "ok", "checks": [{"check": odd, "status": "ok", "message": odd}],
        "tables": [{"table": "nodes", "only_in_stored": 1, "only_in_rebuilt": 0,
                    "stored_samples": [odd], "rebuilt_samples": []}],
    }
    assert _rendered(lambda out: print_audit(out, audit)).count(odd) == 3
    empty = {"counts": {}, "rows": []}
    files = {"counts": {odd: 1}, "rows": [{"change": "x", "path": odd}]}
    diff = {"nodes": empty, "relationships": empty, "files": files}
    assert _rendered(lambda out: print_diff(out, diff)).count(odd) == 2
    packet = {
        "source_revision": "r", "completeness": "complete", "truncated": False, "omissions": [],
        "documents": [{"text": odd, "confidence": "extracted", "citations": [{"source": odd, "title": odd}]}],
    }
    assert _rendered(lambda out: print_evidence(out, packet)).count(odd) == 3


def test_the_answer_view_prints_odd_paths_and_labels_literally(tmp_path: Path, state_dir: Path) -> None:
    repo = _odd_repo(tmp_path)
    outcome = ask_graph(repo, state_dir, _odd_graph(), "dependency", "main")
    assert outcome.answer is not None
    text = _rendered(lambda out: print_answer(out, outcome.answer))
    assert f"main calls {ODD_LABEL}" in text
    assert f"{ODD_PATH}#L3" in text
    assert "⚠" not in text


def test_the_module_console_reads_no_markup() -> None:
    out = console()
    out.file = StringIO()
    out.print(f"{ODD_PATH} {TRAILING}")
    assert out.file.getvalue() == f"{ODD_PATH} {TRAILING}\n"


def test_ask_prints_odd_names_literally(tmp_path: Path, state_dir: Path) -> None:
    repo = _odd_repo(tmp_path)
    publish(repo, state_dir, _odd_graph())
    where = ["--repo-path", str(repo), "--state-dir", str(state_dir)]
    runner = CliRunner()
    result = runner.invoke(app, ["ask", "impact", ODD_LABEL, *where], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.stderr
    assert f"impact {ODD_LABEL}: 1 relationship" in result.stdout
    assert f"main calls {ODD_LABEL}" in result.stdout and f"{ODD_PATH}#L3" in result.stdout
    assert "⚠" not in result.stdout


def test_a_cross_repo_section_with_usages_is_drawn_as_a_table(tmp_path: Path) -> None:
    """``context usage`` in a fleet checkout another member imports from: the cross_repo rows
    (repository, citation, anchor; no label of their own) are drawn, not a traceback."""
    from cm_graph.fleet.members import add_member, member_from

    from ..support.fleetkit import make_fleet_repos

    state = tmp_path / "state"
    repos = make_fleet_repos(tmp_path, state)
    for name in ("lib", "app"):
        add_member(state, "deps", member_from(state, connection=None, repo_path=repos[name], repository=None))
    result = CliRunner().invoke(app, ["context", "usage", "helper", "--repo-path", str(repos["lib"]),
                                      "--state-dir", str(state)], env={"COLUMNS": "200"})
    assert result.exception is None, repr(result.exception)
    assert result.exit_code == 0, result.output
    [row] = [line.split("\u2502") for line in result.stdout.splitlines() if line.startswith("\u2502 ")
             and "app/main.py#L1" in line]
    assert [cell.strip() for cell in row[2:5]] == ["app", "app/main.py#L1", "[package] import from lib_pkg.core"]
