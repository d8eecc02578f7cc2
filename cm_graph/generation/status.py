"""Is the checkout's graph usable for a revision? The seven lifecycle states, in order.

``absent``, ``invalid``, ``oversized``, ``corrupt``, ``stale``, ``partial``, ``current``: only
``current`` is usable. Nothing is repaired or rebuilt here; each state names its remedy (its row of
``base/errors.py``'s table, or a judgement's own, more precise one).
"""

from __future__ import annotations

from ..base.errors import (
    Absent,
    Corrupt,
    GitFailure,
    InvalidInput,
    Oversized,
    Refusal,
    Remedy,
    Unsafe,
    UnsafeStateRoot,
    remedy,
)
from ..base.git import checkout_root, has_commit, resolve_revision
from ..base.privfs import read_private_bytes
from ..base.records import record, replaced
from .layout import Workspace
from .scratch import sweep_stale_scratch
from .store import Generation, read_attempt, read_current

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

    from .manifest import Manifest

STATUS_SCHEMA = "code_mower.contextGraphStatus.v1"
STATE_ROOT_REMEDY = Remedy(
    "the state directory is not an owner-only directory",
    "Make the state directory an owner-only directory (chmod 700) or point CM_GRAPH_HOME or --state-dir at one; "
    "then run cm-graph build.")
STATES = ("absent", "invalid", "oversized", "corrupt", "stale", "partial", "current")
# A graph found ``invalid`` is rebuilt: the reason's own remedy (base/errors.py) is for an input.
INVALID_GRAPH = Remedy("the stored graph breaks its contract", remedy("corrupt").text, remedy("corrupt").command)


def state_remedy(state: str) -> Remedy | None:
    """The remedy of a lifecycle state (None for ``current``: nothing to do)."""
    if state == "current":
        return None
    return INVALID_GRAPH if state == "invalid" else remedy(state)


def reason_remedy(reason: str) -> Remedy:
    """The remedy of a reason a question could not be answered for: a lifecycle state's is the
    graph's (an ``invalid`` graph is rebuilt), any other reason's is its row of the table."""
    return (state_remedy(reason) if reason in STATES else None) or remedy(reason)


@record
class GraphStatus:
    state: str
    detail: str
    generation: Generation | None
    # The newest build that came out unusable and was kept from replacing a usable generation.
    attempt: Generation | None = None
    remedy: Remedy | None = None  # more precise than the state's own (see _absent_status)

    @property
    def next_remedy(self) -> Remedy | None:
        """What to do about this state: the judgement's own remedy, else the state's."""
        return self.remedy or state_remedy(self.state)

    @property
    def usable(self) -> bool:
        return self.state == "current"

    def to_json(self, readiness: dict[str, Any] | None = None) -> dict[str, Any]:
        """The reference's ``code_mower.contextGraphStatus.v1`` shape, key for key: ``schema``,
        ``state``, ``usable``, optional ``detail`` and ``next_action``, ``build`` (the shareable
        build summary) when a manifest was read, and with ``readiness`` the search verdict as the
        string ``search`` plus the ``query_reader`` object. cm-graph's own facts (where the
        generation came from, whether the provider ran contained) sit under the one extra key
        ``cm_graph``, which a reader of the reference shape ignores."""
        value: dict[str, Any] = {"schema": STATUS_SCHEMA, "state": self.state, "usable": self.usable}
        if self.detail:
            value["detail"] = self.detail
        found = self.next_remedy
        next_action = found.text if found is not None else (readiness or {}).get("next_action")
        if next_action:
            value["next_action"] = next_action
        if readiness is not None:
            value["search"] = readiness["search"]
            value["query_reader"] = readiness
        if self.generation is not None:
            value["build"] = build_summary(self.generation.manifest)
            value["cm_graph"] = build_origin(self.generation)
            coverage = coverage_from_record(self.generation.build_record() or {})
            if coverage is not None:
                value["cm_graph"]["coverage"] = coverage
                if self.state == "partial" and coverage.get("uncovered_inputs"):
                    value["next_action"] = coverage["uncovered_inputs"][0]["next_action"]
        last_build = self.last_build()
        if last_build is not None:
            value.setdefault("cm_graph", {})["last_build"] = last_build
        return value

    def last_build(self) -> dict[str, Any] | None:
        """What happened to the newest build when it did not become current, and how to recover."""
        attempt, kept = self.attempt, self.generation
        if attempt is None or kept is None or attempt.id == kept.id:
            return None
        reasons = (attempt.build_record() or {}).get("partial_because") or ["the provider did not cover every input"]
        reasons = [str(reason) for reason in reasons]
        return {
            "generation": attempt.id, "commit": attempt.manifest.commit,
            "completeness": attempt.manifest.completeness, "partial_because": reasons,
            "kept_generation": kept.id, "kept_commit": kept.manifest.commit,
            "summary": (
                f"The build of {attempt.manifest.commit} came out {attempt.manifest.completeness}: "
                f"{'; '.join(reasons)}; the current generation {kept.id} for {kept.manifest.commit} is kept."
            ),
            "next_action": "Fix or exclude what the provider could not read, then run `cm-graph refresh`.",
        }


BUILD_SUMMARY_SCHEMA = "code_mower.contextGraphBuildSummary.v1"


def build_summary(manifest: Manifest) -> dict[str, Any]:
    """The reference's shareable build summary: no paths, no content."""
    return {
        "schema": BUILD_SUMMARY_SCHEMA, "generation": manifest.generation, "commit": manifest.commit,
        "tree": manifest.tree, "provider_version": manifest.provider.version, "built_at": manifest.built_at,
        "tracked_files": manifest.tracked_files, "census_digest": manifest.census_digest,
        "graph_digest": manifest.graph_digest, "graph_bytes": manifest.graph_bytes,
        "completeness": manifest.completeness, "unsupported_inputs": manifest.unsupported_inputs,
    }


def build_origin(generation: Generation) -> dict[str, Any]:
    """cm-graph's own record of the build: ``from_graph`` or ``provider_run``, and containment."""
    record = generation.build_record() or {}
    return {"origin": record.get("origin", "unknown"), "contained": record.get("contained")}


def coverage_from_record(record: dict[str, Any]) -> dict[str, Any] | None:
    """The build record's coverage facts (scope exclusions per rule, empty inputs, uncovered
    inputs with reason and next action, ``--exclude`` globs): an addition of ours, kept under
    its own key outside the reference status shape."""
    coverage = record.get("coverage")
    return coverage if isinstance(coverage, dict) else None


STATUS_ATTEMPTS = 3
DAMAGED = ("invalid", "oversized", "corrupt")
GRAPH_CHANGED = "The graph was being replaced or removed while it was read; ask again once that has finished."
GRAPH_CHANGED_REMEDY = Remedy("the graph was being replaced or removed",
                              "Run the command again once that has finished.", "cm-graph status", "graph_status", {})


def graph_status(
    workspace: Workspace, revision: str = "HEAD", *, require_complete: bool = True,
    trust_seal: bool = False, sweep: bool = True,
) -> GraphStatus:
    """The verdict for ``revision`` (``sweep=False``: the caller sweeps scratch on its own
    schedule, as a resident server does). Readers take no lock, so a verdict that is not usable is
    judged again (at most three attempts) when the ``current`` pointer changed meanwhile: a
    concurrent refresh published a new generation and pruned the one being judged, or a removal
    took the state away. A graph that kept changing under every attempt is never called damaged
    for the files it lost meanwhile: it is ``absent`` for now (``GRAPH_CHANGED``)."""
    if sweep:
        sweep_stale_scratch(workspace)
    for _attempt in range(STATUS_ATTEMPTS):
        pointer = _pointer_bytes(workspace)
        status = _judge(workspace, revision, require_complete, trust_seal)
        if status.usable or _pointer_bytes(workspace) == pointer:
            break
    else:
        if status.state in DAMAGED:
            status = GraphStatus("absent", GRAPH_CHANGED, None, remedy=GRAPH_CHANGED_REMEDY)
    return replaced(status, attempt=read_attempt(workspace))


def _pointer_bytes(workspace: Workspace) -> bytes | None:
    try:
        return read_private_bytes(workspace.current_pointer, 64)
    except (OSError, Refusal):
        return None


def _judge(workspace: Workspace, revision: str, require_complete: bool, trust_seal: bool) -> GraphStatus:
    try:
        generation = read_current(workspace)
    except Absent as refusal:
        return _absent_status(workspace, refusal.message)
    except UnsafeStateRoot as refusal:
        return GraphStatus("invalid", refusal.message, None, remedy=STATE_ROOT_REMEDY)
    except (InvalidInput, Unsafe, Oversized) as refusal:
        return GraphStatus("invalid", refusal.message, None)
    try:
        generation.open_verified_artifact(trust_seal=trust_seal).close()
    except Unsafe as refusal:
        return GraphStatus("invalid", refusal.message, generation)
    except Oversized as refusal:
        return GraphStatus("oversized", refusal.message, generation)
    except Corrupt as refusal:
        return GraphStatus("corrupt", refusal.message, generation)
    try:
        bound = resolve_revision(workspace.checkout, revision)
    except GitFailure as refusal:
        # The graph is fine; the revision asked about is not: never advise removing it.
        return GraphStatus(
            "invalid", refusal.message, generation,
            remedy=Remedy("git cannot resolve the revision",
                          "Check the revision (git rev-parse REVISION); the graph itself was not touched."),
        )
    manifest = generation.manifest
    if (bound.commit, bound.tree) != (manifest.commit, manifest.tree):
        return GraphStatus(
            "stale", "The graph was built from a different revision; refresh it.", generation
        )
    if require_complete and manifest.completeness != "complete":
        return GraphStatus(
            "partial", _partial_detail(generation), generation
        )
    return GraphStatus("current", "", generation)


def _absent_status(workspace: Workspace, message: str) -> GraphStatus:
    """No graph: say why when building one would not help yet (no work tree, no commit)."""
    if checkout_root(workspace.checkout) is None:
        return GraphStatus(
            "absent", "This directory is not inside a git work tree, so there is no graph to read.", None,
            remedy=Remedy("this directory is not inside a git work tree", "Run cm-graph inside a git checkout (or "
                          "pass --repo-path); build its graph with cm-graph build."),
        )
    if not has_commit(workspace.checkout):
        return GraphStatus(
            "absent", "This repository has no commit yet; a graph is built from a commit.", None,
            remedy=Remedy("the repository has no commit yet",
                          "Commit the code (git add -A && git commit), then run cm-graph build."),
        )
    return GraphStatus("absent", message, None)


def _partial_detail(generation: Generation) -> str:
    """Say how many code inputs were left uncovered and why, when the build record knows it (the
    paths stay in ``coverage``: a detail can travel into a query's metadata)."""
    coverage = coverage_from_record(generation.build_record() or {}) or {}
    counts = coverage.get("uncovered_counts")
    if isinstance(counts, dict) and counts:
        why = ", ".join(f"{reason}: {count}" for reason, count in counts.items())
        return f"The provider did not cover every code input ({why}); cm-graph status --json names them."
    return "The provider did not cover every code input; refresh it."


def require_current(
    workspace: Workspace, revision: str = "HEAD", *, require_complete: bool = True, trust_seal: bool = False,
) -> Generation:

    """The current generation, or a refusal whose reason is the lifecycle state (``trust_seal``:
    graph.bin judged by its seal, as a question judges it)."""
    status = graph_status(workspace, revision, require_complete=require_complete, trust_seal=trust_seal)
    if not status.usable:
        raise status_refusal(status)
    assert status.generation is not None
    return status.generation


def status_refusal(status: GraphStatus) -> Refusal:
    """The refusal of a command that cannot go on in this state: its reason is the state, its
    sentence the detail and the judgement's own remedy, when it has one."""
    own = status.remedy.text if status.remedy is not None else ""
    return Refusal(f"{status.detail} {own}".strip(), reason=status.state)
