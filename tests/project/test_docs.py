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
            " < feedback < surfaces < cli")
    assert rule in page
