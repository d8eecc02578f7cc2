"""Checking the installation and the graph: ``doctor``, ``audit`` (re-derive and compare),
``diff`` between generations, ``export`` a canonical dump, ``score`` a packet, ``version``.

Registered from the command table (``command_table.py``), which gives each command its name and help.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from .. import __version__
from ..base.errors import InvalidInput, Refusal
from ..base.privfs import read_regular_file
from ..generation.layout import Workspace, resolve_checkout
from ..generation.store import read_current, read_generation
from .boundary import print_json
from .command_kit import (
    Json,
    RepoPath,
    StateDir,
    refusals_exit,
)


@refusals_exit
def doctor_command(
    revision: Annotated[str, typer.Option("--revision", help="The revision to check against.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
    fleet: Annotated[str | None, typer.Option("--fleet", help="Check every member of this fleet instead.")] = None,
    max_behind: Annotated[int, typer.Option("--max-behind", help="With --fleet: commits behind to warn at.")] = 50,
    max_age_days: Annotated[float, typer.Option("--max-age-days", help="With --fleet: days behind to warn at.")] = 7.0,
) -> None:
    from ..audit.doctor import run_doctor
    from .render import console, print_doctor

    if fleet is not None:  # the fleet's freshness and coverage instead (cli/fleet_commands.py)
        from .fleet_commands import run_fleet_doctor

        run_fleet_doctor(fleet, state_dir, max_behind, max_age_days, json_output)

    workspace = Workspace.locate(repo_path, state_dir)
    report = run_doctor(workspace, revision)
    if json_output:
        print_json(report)
    else:
        print_doctor(console(), report)
    raise typer.Exit(1 if report["status"] == "fail" else 0)


@refusals_exit
def audit_command(
    generation: Annotated[str | None, typer.Option("--generation", help="A generation id (default: current).")] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    from ..audit.rederive import audit as run_audit
    from .render import console, print_audit

    workspace = Workspace.locate(repo_path, state_dir)
    target = read_generation(workspace, generation) if generation else read_current(workspace)
    report = run_audit(target)
    if json_output:
        print_json(report)
    else:
        print_audit(console(), report)
    raise typer.Exit(0 if report["status"] == "pass" else 1)


@refusals_exit
def diff_command(
    old: Annotated[str, typer.Argument(help="A generation id, an index file, or a revision.")],
    new: Annotated[str, typer.Argument(help="A generation id, an index file, or a revision.")],
    limit: Annotated[int, typer.Option("--limit", min=0, help="Rows listed per section.")] = 50,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    from ..audit.diff import open_diff, operator_exclusions, resolve_side, summarise
    from .render import console, print_diff

    workspace = Workspace.locate(repo_path, state_dir)
    diff = open_diff(resolve_side(workspace, old), resolve_side(workspace, new))
    try:
        report = summarise(diff, limit)
    finally:
        diff.close()
    exclusions = {"old": operator_exclusions(workspace, old), "new": operator_exclusions(workspace, new)}
    if exclusions["old"] != exclusions["new"]:
        report["exclude"] = exclusions
    if json_output:
        print_json(report)
    else:
        print_diff(console(), report)


@refusals_exit
def export_command(
    generation: Annotated[str | None, typer.Option("--generation", help="A generation id (default: current).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="jsonl (one sorted object per row) or sql.")] = "jsonl",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
) -> None:
    from ..audit.export import FORMATS as EXPORT_FORMATS
    from ..audit.export import export_lines

    if fmt not in EXPORT_FORMATS:
        raise InvalidInput("--format must be jsonl or sql.")
    workspace = Workspace.locate(repo_path, state_dir)
    target = read_generation(workspace, generation) if generation else read_current(workspace)
    path = workspace.index_path(target.id)
    if not os.path.isfile(path):
        raise Refusal("That generation has no index yet; run `cm-graph index`.", reason="absent")
    out = sys.stdout
    try:
        for line in export_lines(path, fmt):
            out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        # The reader stopped early (`cm-graph export | head`): not a failure of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        raise typer.Exit(0) from None


@refusals_exit
def score_command(
    packet: Annotated[Path, typer.Argument(help="A delivered code_mower.contextPacket.v1 file.")],
    revision: Annotated[str, typer.Option("--revision", help="The checkout's revision to compare with.")] = "HEAD",
    repo_path: RepoPath = None,
    json_output: Json = False,
) -> None:
    from ..audit.score import MAX_PACKET_BYTES, score_packet
    from .render import console, print_mapping

    data = read_regular_file(packet, MAX_PACKET_BYTES, "packet file")
    checkout = resolve_checkout(repo_path)
    report = score_packet(data, checkout, revision)
    if json_output:
        print_json(report)
    else:
        print_mapping(console(), f"Evidence score: {report['gate']}", report)
    raise typer.Exit(0 if report["gate"] == "pass" else 1)


def version_command() -> None:
    typer.echo(__version__)


