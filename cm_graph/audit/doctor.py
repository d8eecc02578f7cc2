"""``cm-graph doctor``: one line per thing that must hold for builds and questions to work.

Each check says pass / warn / fail / skip with one sentence and, when it is not a pass, what to
do about it. Nothing is repaired, except that index files of generations that no longer exist
are removed (derived state of nothing; the check says so).
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import Refusal, remedy
from ..base.locking import build_lock
from ..generation.definitions import gaps_sentence, recorded_definitions
from ..generation.layout import Workspace
from ..generation.status import GraphStatus, coverage_from_record, graph_status
from ..generation.store import remove_orphaned_indexes
from ..index.ensure import search_readiness
from ..provider.run import INSTALL_REMEDY, bwrap_path, default_executable, probe_containment, verify_provider

DOCTOR_SCHEMA = "cm_graph.doctor.v1"


@dataclass(frozen=True)
class Check:
    check: str
    status: str
    message: str
    remediation: str = ""
    command: str | None = None  # the remedy's shell command, where one does it (printed whole, own line)

    def to_json(self) -> dict[str, str]:
        value = {"check": self.check, "status": self.status, "message": self.message}
        if self.remediation:
            value["remediation"] = self.remediation
        if self.command:
            value["command"] = self.command
        return value


def _provider_checks() -> list[Check]:
    try:
        provider = verify_provider(default_executable())
    except Refusal as refusal:
        return [
            Check("provider-pin", "fail", refusal.message, INSTALL_REMEDY),
            Check("provider-containment", "skip", "No verified provider to contain."),
        ]
    checks = [Check("provider-pin", "pass", f"{provider.pin.requirement} is installed and unmodified.")]
    bwrap = bwrap_path()
    if bwrap is None:
        checks.append(Check(
            "provider-containment", "warn",
            "bubblewrap is not installed; the provider would run with network access.",
            "Install bubblewrap (e.g. apt-get install bubblewrap) or build with --sandbox off knowingly.",
        ))
        return checks
    with tempfile.TemporaryDirectory(prefix="cm-graph-doctor-") as scratch:
        contained = probe_containment(bwrap, provider, Path(scratch))
    if contained:
        checks.append(Check("provider-containment", "pass", "bubblewrap runs the provider without network."))
    else:
        checks.append(Check(
            "provider-containment", "warn",
            "bubblewrap is present but could not contain the provider here.",
            "Check that unprivileged user namespaces are allowed, or build with --sandbox off knowingly.",
        ))
    return checks


def _state_check(workspace: Workspace) -> Check:
    root = workspace.root
    if not os.path.lexists(root):
        return Check("state", "skip", "The state directory does not exist yet; the first build creates it.")
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        return Check(
            "state", "fail", "The state directory is not an owner-only directory.",
            "chmod 700 the state directory, or choose another with --state-dir or $CM_GRAPH_HOME.",
        )
    return Check("state", "pass", "The state directory is private to this user.")


def _orphan_check(workspace: Workspace) -> Check:
    """Index files whose generation no longer exists (another tool pruned it, or a build was
    killed after deriving its index) are removed: derived state of nothing, never evidence.
    Under the build lock, so an index a publication derives before its rename is not one."""
    if not os.path.isdir(workspace.indexes_dir):
        return Check("orphaned-indexes", "skip", "There is no index directory yet.")
    try:
        with build_lock(workspace.lock_path, wait_seconds=1.0):
            removed = remove_orphaned_indexes(workspace)
    except (Refusal, OSError):
        return Check("orphaned-indexes", "skip", "A build holds the lock (or the state is unreadable); not checked.")
    if removed:
        return Check(
            "orphaned-indexes", "pass",
            f"Removed {len(removed)} index file(s) of generations that no longer exist.",
        )
    return Check("orphaned-indexes", "pass", "Every index file belongs to an existing generation.")


def _coverage_check(status: GraphStatus) -> Check | None:
    """What the current generation's provider run left uncovered, and why, from its build record:
    scope exclusions per rule, empty inputs, and the first uncovered input with its next action."""
    if status.generation is None:
        return None
    coverage = coverage_from_record(status.generation.build_record() or {})
    if coverage is None:
        return None
    scope = coverage.get("scope_exclusions") or {}
    outside = ", ".join(f"{rule}: {count}" for rule, count in scope.items()) or "none"
    said = f"Scope exclusions ({outside}); {coverage.get('empty_inputs', 0)} empty inputs."
    uncovered = coverage.get("uncovered_inputs") or []
    if not coverage.get("warning"):  # a warning says the bytes itself
        said += _code_read(coverage)
    if uncovered:
        counts = ", ".join(f"{why}: {n}" for why, n in (coverage.get("uncovered_counts") or {}).items())
        first = uncovered[0]
        return Check(
            "coverage", "warn", f"Uncovered code inputs ({counts}), first {first['path']} ({first['reason']}). {said}",
            first["next_action"],
        )
    if coverage.get("warning"):
        return Check("coverage", "warn", f"{coverage['warning']} {said}", str(coverage.get("remedy", "")))
    return Check("coverage", "pass", f"Every code input the provider dispatches is covered. {said}")


def _code_read(coverage: dict[str, Any]) -> str:
    """The code bytes read of those tracked, when the build record counted them (older records did not)."""
    code = coverage.get("code_bytes")
    if not isinstance(code, dict) or not code.get("tracked"):
        return ""
    return f" Code bytes read: {code.get('read', 0):,} of {code['tracked']:,}."


def _definitions_check(status: GraphStatus) -> Check | None:
    """The definitions the text of the bound commit holds and the graph lacks (extraction gaps),
    from the build record; a record from before they were counted gets no check."""
    if status.generation is None:
        return None
    definitions = recorded_definitions(status.generation)
    if definitions is None:
        return None
    said = gaps_sentence(definitions)
    if said is None:
        return Check("definitions", "pass", f"Every definition the text index lexes in the "
                     f"{definitions.get('files_read', 0):,} graphed file(s) is in the graph.")
    return Check(
        "definitions", "warn", f"The provider dropped {said}.",
        "The pinned provider does not extract them, so this tool cannot graph them; an answer about one of "
        "these names comes from the text only and says so (cm-graph context usage NAME).",
    )


def run_doctor(workspace: Workspace, revision: str = "HEAD") -> dict[str, Any]:
    checks = _provider_checks()
    checks.append(_state_check(workspace))
    checks.append(_orphan_check(workspace))
    status = graph_status(workspace, revision)
    found = status.next_remedy  # a judgement's own remedy first (no work tree, a revision git cannot resolve)
    if status.state == "absent" and status.remedy:  # no work tree, or no commit: nothing to build yet
        checks.append(Check("generation", "fail", status.detail, status.remedy.text, status.remedy.command))
    elif status.state == "absent":
        checks.append(Check("generation", "skip", "No graph has been built for this checkout.", remedy("absent").text,
                            remedy("absent").command))
    elif status.usable:
        checks.append(Check("generation", "pass", "The current generation is usable for this revision."))
    else:
        checks.append(
            Check("generation", "fail", f"The graph is {status.state}: {status.detail}", found.text if found else "",
                  found.command if found else None)
        )
    coverage_check = _coverage_check(status)
    if coverage_check is not None:
        checks.append(coverage_check)
    definitions_check = _definitions_check(status)
    if definitions_check is not None:
        checks.append(definitions_check)
    readiness = search_readiness(status)
    if not status.usable:
        checks.append(Check("index", "skip", "No usable generation to index."))
    elif readiness["search"] == "available":
        checks.append(Check("index", "pass", "The index is readable by this reader."))
    else:
        checks.append(Check(
            "index", "warn" if readiness["reader"] == "not_indexed" else "fail",
            f"Search is unavailable ({readiness['reason']}).",
            str(readiness.get("next_action", "Run `cm-graph index --rebuild`.")),
        ))
    overall = "fail" if any(c.status == "fail" for c in checks) else (
        "warn" if any(c.status == "warn" for c in checks) else "pass"
    )
    return {"schema": DOCTOR_SCHEMA, "status": overall, "checks": [c.to_json() for c in checks]}
