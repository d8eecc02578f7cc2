"""``cm-graph fleet ...`` and ``cm-graph doctor --fleet``: the terminal side of ``cm_graph/fleet/``.

A thin shell: each command resolves the state root, calls the fleet package inside the one error
boundary (``refusals_exit``), and prints JSON with ``--json`` or a short table otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..base.errors import EXIT_CODES
from ..base.printable import printable
from .boundary import print_json, print_refusal
from .command_kit import Json, StateDir, exit_refusing, state_root
from .render import usage_text

fleet_app = typer.Typer(help="A named set of checkouts and cross-repository usages over them.", no_args_is_help=True)

FleetName = Annotated[str, typer.Argument(help="The fleet's name ([a-z][a-z0-9_-]{0,63}).")]


def _root(state_dir: Path | None) -> Path:
    from ..fleet.members import state_root as fleet_state_root

    return fleet_state_root(state_root(state_dir))


def _print_members(listing: dict[str, Any], json_output: bool) -> None:
    from .render import console, print_mapping

    if json_output:
        print_json(listing)
        return
    rows = {m["repository"]: m["connection"] or m["checkout"] for m in listing["members"]}
    print_mapping(console(), f"Fleet {listing['fleet']}: {len(rows)} members", rows)


@fleet_app.command("add")
def fleet_add_command(
    name: FleetName,
    connection: Annotated[str | None, typer.Option("--connection", help="A local connection to add.")] = None,
    repo_path: Annotated[Path | None, typer.Option("--repo-path", help="A checkout to add.")] = None,
    repository: Annotated[str | None, typer.Option("--repository", help="The name answers group it by.")] = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Add a member (a connection, or a checkout path) to the fleet, creating the fleet."""
    from ..fleet.members import add_member, member_from

    def body() -> None:
        root = _root(state_dir)
        member = member_from(root, connection=connection, repo_path=repo_path, repository=repository)
        _print_members(add_member(root, name, member), json_output)

    exit_refusing(body, json_output)


@fleet_app.command("remove")
def fleet_remove_command(
    name: FleetName,
    member: Annotated[str, typer.Argument(help="The member's repository name, connection or checkout path.")],
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Remove a member from the fleet (its graph state is not touched)."""
    from ..fleet.members import remove_member

    exit_refusing(lambda: _print_members(remove_member(_root(state_dir), name, member), json_output), json_output)


@fleet_app.command("list")
def fleet_list_command(
    name: Annotated[str | None, typer.Argument(help="A fleet's name; without one, every fleet.")] = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """List the fleet's members, or every fleet with no name."""
    from ..fleet.members import all_fleets, listing, read_members

    if name is None:
        exit_refusing(lambda: _print_fleets(all_fleets(_root(state_dir)), json_output), json_output)
        return
    exit_refusing(lambda: _print_members(listing(name, read_members(_root(state_dir), name)), json_output), json_output)


def _print_fleets(fleets: dict[str, Any], json_output: bool) -> None:
    from ..base.errors import remedy
    from .render import console, print_mapping

    if json_output:
        print_json(fleets)
    elif not fleets["fleets"]:
        typer.echo(f"No fleet is configured; add one: {remedy('no_members').command}")
    else:
        rows = {f["fleet"]: f["refused"] if f["members"] is None
                else f"{f['members']} member{'s' if f['members'] != 1 else ''}" for f in fleets["fleets"]}
        print_mapping(console(), f"{len(rows)} fleets", rows)


@fleet_app.command("usages")
def fleet_usages_command(
    name: FleetName,
    symbol: Annotated[str, typer.Argument(help="A name, bare or qualified (PoolManager, urllib3.PoolManager).")],
    max_items: Annotated[int, typer.Option("--max-items", help="Items shown per repository and kind.")] = 20,
    max_chars: Annotated[int, typer.Option("--max-chars", help="The answer's size budget in characters.")] = 24_000,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Where SYMBOL is defined and used across the fleet, by repository, with verified citations."""
    from ..fleet.build import open_fleet
    from ..fleet.usages import cross_repo_usages

    def body() -> None:
        fleet = open_fleet(_root(state_dir), name)
        try:
            answer = cross_repo_usages(fleet, symbol, max_items=max_items, max_chars=max_chars)
        finally:
            fleet.close()
        if json_output:
            print_json(answer)
        else:
            _print_usages(answer)
        if answer["status"] != "ok":  # no such name, several, or no member: exits as context's does
            print_refusal(answer.get("reason") or answer["status"], answer["answer"])
            raise typer.Exit(EXIT_CODES["refused" if answer["status"] == "unavailable" else "unresolved"])

    exit_refusing(body, json_output)


def _print_usages(answer: dict[str, Any]) -> None:
    lines = [f"{answer['symbol']}: {answer['status']}"]
    lines += [f"  defined in {d['repository']} at {d['citation']} ({d['qualified_name'] or d['label']})"
              for d in answer["definitions"]]
    for title, key in (("used", "usages_by_repository"), ("name matches", "name_matches_by_repository")):
        for repository, group in answer[key].items():
            lines.append(f"{title} in {repository} ({group['shown']}/{group['total']}):")
            lines += [f"  {item['citation']}  {usage_text(item)}" for item in group["items"]]
    cover, stale = answer["coverage"], answer["freshness"]["stale"]
    lines.append(f"covered {cover['members_covered']}/{cover['members_total']} members"
                 + (f"; stale: {', '.join(stale)}" if stale else "")
                 + (f"; missing: {', '.join(m['repository'] + ' (' + m['state'] + ')' for m in cover['missing'])}"
                    if cover["missing"] else ""))
    lines += [f"next: {action['command']}  ({action['why']})" for action in answer["next_actions"]]
    typer.echo("\n".join(printable(line) for line in lines))


def run_fleet_doctor(
    name: str, state_dir: Path | None, max_behind: int, max_age_days: float, json_output: bool,
) -> None:
    """``cm-graph doctor --fleet NAME``: exit 0 all ok, 3 warnings only, 1 any failure."""
    from ..fleet.doctor import fleet_doctor

    report: dict[str, Any] = {}

    def body() -> None:
        report.update(fleet_doctor(_root(state_dir), name, max_behind=max_behind, max_age_days=max_age_days))
        if json_output:
            print_json(report)
        else:
            _print_fleet_doctor(report)

    exit_refusing(body, json_output)
    raise typer.Exit(report["exit_code"])


def _print_fleet_doctor(report: dict[str, Any]) -> None:
    from rich.table import Table

    from .render import console, literal, print_command

    table = Table(title=literal(f"cm-graph doctor --fleet {report['fleet']}: {report['verdict']}"),
                  title_justify="left")
    for column in ("repository", "verdict", "state", "behind", "ahead", "dirty", "age (days)", "detail"):
        table.add_column(column)
    for m in report["members"]:
        cells = (m["repository"], m["verdict"], m["state"], *(str(m[k]) if m[k] is not None else "-"
                 for k in ("behind", "ahead", "dirty", "commit_age_days")), m["detail"] or "")
        table.add_row(*(literal(cell) for cell in cells))
    out = console()
    out.print(table)
    # A command to copy is never a table cell (a narrow terminal folds or cuts it): its own line.
    for m in report["members"]:
        if m["next_action"]:
            out.print(literal(f"{m['repository']}:"))
            print_command(out, m["next_action"])
    s = report["summary"]
    out.print(literal(f"{s['ok']} ok, {s['warn']} warn, {s['fail']} fail of {s['total']}; "
                      f"coverage {s['coverage_pct']}%"))
