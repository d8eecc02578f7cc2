"""One judgement of a fleet member: can the fleet search it, and if not, why and what to do.

``fleet usages`` (through the fleet index's coverage), ``code_context``'s ``cross_repo`` section
and ``doctor --fleet`` all ask this one function, so a member is never "covered" in one answer
and a failure in another. In order: the checkout is there; git answers for it (HEAD, and whether
the clone is shallow); the member's graph is in a state a question reads (current, stale,
partial); and, for a graph bound to another commit than HEAD, the clone still has that commit (a
checkout that became another repository, or a shallow clone that lost it, has graph rows the
checkout can no longer back: its declared package and import names are read from that commit).
Reading the member's index is the one further step, taken by whoever reads it (the fleet's
derivation, the doctor's search readiness), each with the reason ``unreadable``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import GitFailure, remedy
from ..base.git import run_git
from ..generation.layout import Workspace
from ..generation.status import graph_status
from ..generation.store import Generation
from .members import Member

SEARCHABLE_STATES = ("current", "stale", "partial")  # a readable generation bound to a known commit
_DAMAGED = ("invalid", "oversized", "corrupt")  # as their remedies say (generation/status.py): remove and rebuild


@dataclass(frozen=True)
class MemberJudgement:
    member: Member
    state: str  # the lifecycle state at HEAD; "unknown" when it could not be judged
    generation: Generation | None  # the member's current generation, when there is one
    reason: str | None  # None: the fleet searches it; else why not (a state, checkout_missing, ...)
    detail: str
    next_action: str
    head: str | None = None
    shallow: bool | None = None

    @property
    def covered(self) -> bool:
        return self.reason is None and self.generation is not None

    def key(self) -> dict[str, Any]:
        """What the fleet index derived from this member depends on: which generation it read, or
        why it read none. Never the lifecycle state of a covered member: a commit after the build
        makes it stale without changing a row, so the index (and every answer id) stays."""
        gen = self.generation if self.covered else None
        return {
            "repository": self.member.repository, "connection": self.member.connection,
            "checkout": str(self.member.checkout), "reason": self.reason,
            "generation": gen.id if gen else None, "commit": gen.manifest.commit if gen else None,
        }


def judge_member(root: Path, member: Member) -> MemberJudgement:
    checkout = member.checkout
    if not os.path.isdir(checkout):
        return MemberJudgement(member, "unknown", None, reason="checkout_missing",
                               detail="The member's checkout is gone.",
                               next_action=remedy("checkout_missing").text)
    try:
        head, shallow = run_git(checkout, "rev-parse", "HEAD", "--is-shallow-repository").stdout.decode(
            "utf-8", "replace").split()
        return _judge_graph(root, member, head, shallow == "true")
    except (GitFailure, ValueError) as failure:  # ValueError: rev-parse printed something else
        message = failure.message if isinstance(failure, GitFailure) else "unexpected output"
        return MemberJudgement(member, "unknown", None, reason="unknown",
                               detail=f"Git could not answer for this member: {message}",
                               next_action=remedy("unknown").text)


def _judge_graph(root: Path, member: Member, head: str, shallow: bool) -> MemberJudgement:
    checkout = member.checkout
    refresh = f"cm-graph refresh --repo-path {checkout}"
    status = graph_status(Workspace(checkout, root), trust_seal=True)
    generation, state = status.generation, status.state
    if generation is None or state not in SEARCHABLE_STATES:
        rebuild = f"cm-graph remove --repo-path {checkout} && cm-graph build --repo-path {checkout}"
        return MemberJudgement(member, state, generation, reason=state,
                               detail=status.detail or "The member has no usable graph.",
                               next_action=rebuild if state in _DAMAGED else refresh, head=head, shallow=shallow)
    bound = generation.manifest.commit
    if state != "current" and run_git(checkout, "cat-file", "-e", f"{bound}^{{commit}}", check=False).returncode:
        why = ("the clone is shallow" if shallow
               else "it was pruned or never fetched, or the checkout is now another repository")
        fetch = f"git -C {checkout} fetch --unshallow (or fetch the commit), or {refresh}"
        return MemberJudgement(member, state, generation, reason="bound_commit_missing",
                               detail=f"The bound commit is not in the clone ({why}).", next_action=fetch,
                               head=head, shallow=shallow)
    return MemberJudgement(member, state, generation, reason=None, detail=status.detail, next_action="",
                           head=head, shallow=shallow)


def judge_members(root: Path, members: list[Member]) -> list[MemberJudgement]:
    """Every member's judgement, in repository-name order (the fleet index's member numbers)."""
    return sorted((judge_member(root, member) for member in members), key=lambda j: j.member.repository)
