"""``cm-graph doctor --fleet NAME``: is every member's graph there, readable and fresh enough?

Per member, in order: the fleet's one judgement of it (``judgement.py``: the checkout, git, the
lifecycle state, the bound commit still in the clone), the very one that decides what ``fleet
usages`` covers; whether its index can be read (search readiness); the bound commit against the
checkout's HEAD (``git rev-list --left-right --count``: ``behind``, and ``ahead`` > 0 means
``diverged``: another branch or rewritten history); tracked-file edits; and the age in commit
time (HEAD's committer date minus the bound commit's, reproducible, unlike the wall clock).

Verdicts: ``fail`` for no usable graph (absent, invalid, oversized, corrupt, unreadable), a
diverged or missing bound commit, a missing checkout, or any fact git could not give (unknown is a
failure with its reason, never a pass); ``warn`` when the member is behind by more than
``max_behind`` commits, or behind at all and older than ``max_age_days`` in commit time (a
repository with no new commits is never stale), or its graph is partial; else ``ok``. Each
non-ok verdict carries a next action, and so does an ``ok`` member behind HEAD within the
thresholds (its refresh command). Exit codes: 0 all ok, 3 warnings only, 1 any failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.envelope import next_action, remedy_actions
from ..base.errors import EXIT_CODES as OUTCOME_EXITS
from ..base.errors import GitFailure, Refusal, remedy
from ..base.git import run_git
from ..base.printable import printable_prose
from ..index.ensure import index_for
from .judgement import MemberJudgement, judge_member
from .members import Member, read_members

FLEET_DOCTOR_SCHEMA = "cm_graph.fleetDoctor.v1"
DEFAULT_MAX_BEHIND = 50
DEFAULT_MAX_AGE_DAYS = 7.0  # the seed's freshness SLA
EXIT_CODES = {"ok": OUTCOME_EXITS["answered"], "warn": OUTCOME_EXITS["warnings"], "fail": OUTCOME_EXITS["refused"]}


def fleet_doctor(
    root: Path, name: str, *, max_behind: int = DEFAULT_MAX_BEHIND, max_age_days: float = DEFAULT_MAX_AGE_DAYS,
) -> dict[str, Any]:
    members = sorted(read_members(root, name), key=lambda m: m.repository)
    rows = [check_member(root, m, max_behind, max_age_days) for m in members]
    summary = {verdict: sum(1 for r in rows if r["verdict"] == verdict) for verdict in ("ok", "warn", "fail")}
    usable = sum(1 for r in rows if r["search"] == "available")
    verdict = "fail" if summary["fail"] else "warn" if summary["warn"] else "ok"
    return printable_prose({  # a member's detail and next action name its repository and checkout
        "schema": FLEET_DOCTOR_SCHEMA, "fleet": name, "verdict": verdict, "exit_code": EXIT_CODES[verdict],
        "thresholds": {"max_behind": max_behind, "max_age_days": max_age_days},
        "members": rows,
        "summary": {"total": len(rows), **summary,
                    "coverage_pct": round(100.0 * usable / len(rows), 1) if rows else 0.0},
    })


def _git(checkout: Path, *args: str) -> str:
    return run_git(checkout, *args).stdout.decode("utf-8", "replace").strip()


def check_member(root: Path, member: Member, max_behind: int, max_age_days: float) -> dict[str, Any]:
    judged = judge_member(root, member)
    row: dict[str, Any] = {
        "repository": member.repository, "connection": member.connection, "checkout": str(member.checkout),
        "state": judged.state, "search": "unavailable", "generation": None, "bound": None, "head": judged.head,
        "behind": None, "ahead": None, "shallow": judged.shallow, "dirty": None, "commit_age_days": None,
        "built_at": None,
    }
    if not judged.covered:  # the fleet's own judgement: what fleet usages calls missing fails here
        return _verdict(row, "fail", judged.detail, judged.next_action, reason=judged.reason)
    try:
        return _check_git(judged, row, max_behind, max_age_days)
    except GitFailure as failure:
        return _verdict(row, "fail", f"Git could not answer for this member: {failure.message}",
                        remedy("unknown").text, reason="unknown")


def _check_git(judged: MemberJudgement, row: dict[str, Any], max_behind: int, max_age_days: float) -> dict[str, Any]:
    checkout, generation, head = judged.member.checkout, judged.generation, row["head"]
    assert generation is not None  # covered
    refresh = f"cm-graph refresh --repo-path {checkout}"
    row["generation"], row["bound"] = generation.id, generation.manifest.commit
    row["built_at"] = generation.manifest.built_at  # wall clock, for information only: never judged
    times = [int(value) for value in _git(checkout, "show", "-s", "--format=%ct", row["bound"], head, "--").split()]
    row["commit_age_days"] = round(max(0, times[-1] - times[0]) / 86400, 2)  # one line when bound is HEAD
    try:  # the reader a question would use: derived (or reused) from the bound commit
        index_for(generation)
        row["search"] = "available"
    except Refusal as refusal:
        return _verdict(row, "fail", refusal.message, f"cm-graph index --rebuild --repo-path {checkout}",
                        reason="unreadable")
    left, right = _git(checkout, "rev-list", "--left-right", "--count", f"{row['bound']}...{head}").split()
    row["ahead"], row["behind"] = int(left), int(right)
    changed = _git(checkout, "status", "--porcelain", "--untracked-files=no").splitlines()
    row["dirty"] = sum(1 for line in changed if line.strip())
    behind = f"The graph is {row['behind']} commits"
    if row["ahead"] > 0:
        return _verdict(row, "fail", f"HEAD is not a descendant of the bound commit ({row['ahead']} bound commits "
                        "are not on it): another branch or rewritten history.", refresh, reason="diverged")
    if row["behind"] > max_behind:
        return _verdict(row, "warn", f"{behind} behind HEAD.", refresh, reason="stale")
    if row["behind"] > 0 and row["commit_age_days"] > max_age_days:
        return _verdict(row, "warn", f"{behind} and {row['commit_age_days']} days (commit time) behind HEAD.",
                        refresh, reason="stale")
    if judged.state == "partial":
        return _verdict(row, "warn", judged.detail or "The provider did not cover every code input.", refresh,
                        reason="partial")
    if row["behind"] > 0:  # within the thresholds, so ok; still a refresh away from HEAD
        commits = "commit" if row["behind"] == 1 else "commits"
        return _verdict(row, "ok", f"The graph is {row['behind']} {commits} behind HEAD (within the thresholds).",
                        refresh, reason=None)
    return _verdict(row, "ok", "", "", reason=None)


def _verdict(
    row: dict[str, Any], verdict: str, detail: str, next_action: str, *, reason: str | None,
) -> dict[str, Any]:
    row.update(verdict=verdict, reason=reason, detail=detail or None, next_action=next_action or None)
    return row


def member_actions(name: str, report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's next actions, one per member that has one (in member order, each command
    once): the doctor's own command where it wrote one (``cm-graph refresh --repo-path ...``),
    else the command of the member's reason's remedy, filled with its checkout and the fleet."""
    actions: dict[str, dict[str, Any]] = {}
    for row in report["members"]:
        if not row["next_action"]:
            continue
        reason = row["reason"]
        why = f"{row['repository']}: " + (remedy(reason).why if reason else "behind HEAD within the thresholds")
        if row["next_action"].startswith("cm-graph "):
            found = [next_action(why, row["next_action"])]
        else:
            found = remedy_actions(reason, fleet=name, path=row["checkout"])
            found = [{**action, "why": why} for action in found]
        for action in found:
            actions.setdefault(action["command"], action)
    return list(actions.values())
