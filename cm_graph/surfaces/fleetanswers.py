"""The fleet seen from a surface: ``cross_repo_usages`` and ``graph_status`` for a fleet.

A fleet's other members are other checkouts, so the server's own connection cannot speak for
them alone. Per call, evidence about a fleet goes to the server's recipient only when: the
server's connection authorizes the recipient (``approved_workspace``, as for every tool); the
fleet has the connection's checkout as a member (a server started for one checkout answers for
the fleets that checkout belongs to, never for an unrelated one); and every member that joined
by a connection still has that connection verified and naming the recipient
(``fleet.members.member_authorizes``, through ``authority.fleet_access``: the one rule
``code_context``'s ``cross_repo`` section applies to each member too). A member added by its
checkout path has no connection to ask; the local user who put it in a fleet with this checkout
decided. Any failure refuses the whole call (``unauthorized``): nothing is filtered silently, and
no partial answer pretends to be the fleet's.

Without a ``fleet`` argument the fleet is the one ``code_context``'s ``cross_repo`` section
uses: the first, by name, that the checkout belongs to. When there is none, or the named fleet
does not exist, the answer is an ordinary ``unavailable`` one with the command that makes one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.envelope import NOT_CUT, remedy_actions, reply
from ..base.errors import ConnectionRefusal, Refusal, Remedy
from ..fleet.build import open_fleet
from ..fleet.doctor import fleet_doctor, member_actions
from ..fleet.members import fleets_of, read_members, state_root
from ..fleet.usages import USAGES_KIND, USAGES_SCHEMA, cross_repo_usages, split_symbol
from ..generation.layout import Workspace
from ..query.answerids import stamp_ids
from .authority import Caller, approved_workspace, fleet_access
from .limits import DEFAULT_REPLY_CHARS

FLEET_STATUS_SCHEMA = "cm_graph.surfaceFleetStatus.v1"
NO_FLEET = Remedy("this checkout belongs to no fleet of that name",
                  "Add this checkout and the others it should see to a fleet: cm-graph fleet add FLEET --connection "
                  "CONNECTION.", "cm-graph fleet add FLEET --connection CONNECTION")
NO_FLEET_FRESHNESS = {"state": "not_configured", "stale": []}  # no fleet: nothing was read
_DOCTOR_STATUS = {"ok": "ready", "warn": "degraded", "fail": "unavailable"}


def authorized_fleet(caller: Caller, fleet: str | None) -> tuple[Workspace, Path, str | None, str]:
    """(workspace, fleet state root, fleet name or None, why there is none) under the rules above."""
    workspace, _ = approved_workspace(caller)
    root = state_root(caller.state_root)
    if fleet is None:
        fleets = fleets_of(root, workspace.checkout)
        if not fleets:
            return workspace, root, None, "This checkout belongs to no fleet."
        fleet = fleets[0][0]
    try:
        members = read_members(root, fleet)
    except Refusal as refusal:
        if refusal.reason != "not_configured":
            raise
        return workspace, root, None, f"There is no fleet named {fleet}."
    if not any(member.checkout == workspace.checkout for member in members):
        raise ConnectionRefusal("That fleet does not include this connection's checkout; the server answers only "
                                "for the fleets its checkout belongs to.")
    access = fleet_access(caller)
    for member in members:
        if not access(member):
            raise ConnectionRefusal(f"The fleet member {member.repository[:80]} joined by a connection that is gone, "
                                    "disconnected or does not name this recipient; evidence goes only where it says.")
    return workspace, root, fleet, ""


def cross_repo_usages_answer(caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
    symbol = arguments["symbol"]
    split_symbol(symbol)  # the symbol rule holds before any answer echoes it, "no fleet" included
    _, root, fleet, why = authorized_fleet(caller, arguments.get("fleet"))
    if fleet is None:
        return stamp_ids(reply(
            USAGES_SCHEMA, "unavailable", why + " Cross-repository usages need one.", reason="not_configured",
            detail=why, symbol=symbol, freshness=dict(NO_FLEET_FRESHNESS),
            bounds={"max_chars": arguments.get("max_chars", DEFAULT_REPLY_CHARS), **NOT_CUT},
            next_actions=remedy_actions(None, own=NO_FLEET, fleet=arguments.get("fleet"), connection=caller.connection),
        ), USAGES_KIND, arguments.get("fleet") or "", symbol)
    index = open_fleet(root, fleet)
    try:
        return cross_repo_usages(index, symbol, max_chars=arguments.get("max_chars", DEFAULT_REPLY_CHARS))
    finally:
        index.close()


def fleet_status_answer(caller: Caller, fleet: str, freshness: dict[str, Any]) -> dict[str, Any]:
    """``graph_status`` with ``fleet``: the fleet doctor's report (``cm-graph doctor --fleet``)."""
    _, root, name, why = authorized_fleet(caller, fleet)
    if name is None:
        return stamp_ids(reply(
            FLEET_STATUS_SCHEMA, "unavailable", why, reason="not_configured", fleet=fleet, freshness=freshness,
            bounds=dict(NOT_CUT),
            next_actions=remedy_actions(None, own=NO_FLEET, fleet=fleet, connection=caller.connection),
        ), "graph_status", "fleet", fleet)
    report = fleet_doctor(root, name)
    summary = report["summary"]
    prose = (f"Fleet {name}: {report['verdict']}; {summary['ok']} ok, {summary['warn']} warn, {summary['fail']} fail "
             f"of {summary['total']} members; search coverage {summary['coverage_pct']}%.")
    return stamp_ids(reply(
        FLEET_STATUS_SCHEMA, _DOCTOR_STATUS[report["verdict"]], prose,
        reason=None if report["verdict"] == "ok" else "needs_attention", fleet=name, doctor=report,
        freshness=freshness, bounds=dict(NOT_CUT), next_actions=member_actions(name, report),
    ), "graph_status", "fleet", name)
