"""The reference pages stay true to the code: every command has its section in docs/cli.md, and
docs/architecture.md draws every stage package and the layer rules the architecture test holds."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from cm_graph.cli.app import app

from ..support.cli import command_paths
from .test_architecture import PACKAGE, RANKS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_command_has_a_section_in_cli_md() -> None:
    """A command counts as documented when a heading of docs/cli.md names it in backticks
    (`cm-graph status`, or `audit` in a heading that groups several)."""
    headings = [line for line in (DOCS / "cli.md").read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    named = {match.removeprefix("cm-graph ") for line in headings for match in re.findall(r"`([^`]+)`", line)}
    commands = command_paths(typer.main.get_command(app))
    assert len(commands) > 15
    assert [command for command in commands if command not in named] == []


def test_architecture_md_draws_every_stage_and_the_layer_rules() -> None:
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    for stage in RANKS:
        assert f"`{stage}/`" in page, stage
        for module in sorted((PACKAGE / stage).glob("*.py")):
            if module.name != "__init__.py":
                assert module.stem in page, f"docs/architecture.md does not name {stage}/{module.name}"
    rule = ("base < generation < index < (provider | query) < evidence < (connections | audit) < fleet < context"
            " < feedback < (surfaces | agents) < cli")
    assert rule in page


def _table_rows(page: str, header: str) -> dict[str, list[str]]:
    """The rows of the markdown table under ``header``: first cell's name -> the other cells."""
    lines = page.split(header + "\n", 1)[1].splitlines()[1:]
    rows = {}
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_code_context_md_lists_each_intents_sections_and_each_walk_as_the_table_declares() -> None:
    """The intents table names each intent's sections in the order the section table gives them,
    and the relation map each walk's direction and words, as the rows declare them."""
    from cm_graph.context.section_table import SECTIONS, SECTIONS_OF

    page = (DOCS / "code-context.md").read_text(encoding="utf-8")
    names = {row.name for row in SECTIONS}
    intents = _table_rows(page, "| intent | sections, in order |")
    assert set(intents) == set(SECTIONS_OF)
    for intent, rows in SECTIONS_OF.items():
        listed = [name for name in re.findall(r"`([a-z_]+)`", intents[intent][0]) if name in names]
        assert listed == [row.name for row in rows], intent
    walks = _table_rows(page, "| section | direction | relation words |")
    assert set(walks) == {row.name for row in SECTIONS if row.walk is not None}
    for row in SECTIONS:
        if row.walk is not None:
            direction, words = walks[row.name]
            assert direction == ("along" if row.walk.direction == 0 else "against"), row.name
            assert sorted(re.findall(r"`([a-z_]+)`", words)) == sorted(row.walk.relations), row.name
