"""`cm-graph query` (and `auth init`, `ask`) through the CLI, over the reference fixture G0.

Everything is real: a git repository in a temp dir, a generation published through the same code
`cm-graph build --from-graph` uses, the SQLite index, and the typer app. Most cases run through
``typer.testing.CliRunner`` (typer >= 0.29 keeps stderr apart from stdout by default, so each is
asserted on its own); a few run the installed ``cm-graph`` entry point as a subprocess.

What the seed asks of the command: stdout is metadata only (no document text, no citation, no
local path), the evidence goes only to a private 0600 ``--packet-out`` file that replaces rather
than reopens its destination, required context that is unavailable pauses (exit 1) and optional
context degrades (exit 0), and one packet serves every recipient with identical documents.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import apsw
import pytest
from typer.testing import Result

from cm_graph.base.jsonio import dumps_canonical
from cm_graph.evidence.authorization import mint_envelope
from cm_graph.generation.manifest import MAX_ARTIFACT_BYTES, REQUIRED_OPTIONS, ProviderPin
from cm_graph.generation.status import STATES
from cm_graph.generation.store import ARTIFACT_NAME
from cm_graph.index.format import SCHEMA_VERSION

from ..support.askkit import RECIPIENTS, policy
from ..support.cases import Case
from ..support.cli import WIDE, assert_one_line_refusal
from ..support.cli import invoke as run
from ..support.files import mode
from ..support.g0 import g0_graph, node
from ..support.helpers import (
    CM_GRAPH,
    code_paths,
    commit_all,
    git,
    inventory_for,
    publish,
    publish_unchecked,
    run_installed,
    write_output,
)

# The §2.13 summary keys of an available answer (plus the answer's two ids, docs/feedback.md),
# and of an unavailable one.
AVAILABLE_KEYS = {
    "schema", "status", "dependent_work", "question", "generation", "source_revision", "seeds",
    "relations", "ambiguous", "graph_generation", "documents", "completeness",
    "generation_completeness", "query_completeness", "truncated", "omissions", "recipients",
    "capability_id", "answer_id",
}
UNAVAILABLE_KEYS = {"schema", "status", "reason", "dependent_work", "next_action", "detail"}

# Pieces of G0's document text (and of its citations) that must never reach stdout.
EVIDENCE_FRAGMENTS = (
    "#L", "calls parse_config", "tests parse_config", "calls load", "impact:", "dependency:",
    "hop 1", "symbol at", "reached from", "example_pkg", "tests/test_config.py", "citations",
)
UNKNOWN_GENERATION = "0" * 32
REVIEWED_ELSEWHERE = ProviderPin("graphifyy", "0.9.60", "ab" * 32, REQUIRED_OPTIONS)


# --------------------------------------------------------------------------- set-up helpers


@pytest.fixture
def g0(case: Case) -> Case:
    """``case`` with G0 published as the current, complete generation."""
    publish(case.repo, case.state, g0_graph())
    return case


def auth_document(
    case: Case,
    *,
    required: bool = True,
    recipients: list[str] | None = None,
    generation: str | None = None,
    expires_in: timedelta = timedelta(hours=1),
) -> dict[str, Any]:
    now = datetime.now(UTC)
    envelope = mint_envelope(
        connection="local-graph", generation=generation or case.generation,
        repository_root=str(case.workspace.checkout), repositories=["owner/repo"],
        recipients=list(recipients or RECIPIENTS), now=now,
    )
    envelope["expires_at"] = (now + expires_in).isoformat()
    return {
        "connection": envelope, "policy": policy(required),
        "repository": "owner/repo", "work_item": "work-item-one",
    }


def write_auth(case: Case, document: dict[str, Any] | bytes, name: str = "auth.json") -> Path:
    path = case.files / name
    path.write_bytes(document if isinstance(document, bytes) else json.dumps(document).encode())
    return path


def query(
    case: Case, auth: Path, *extra: Any, question: str = "impact", target: str = "parse_config",
    env: dict[str, str] | None = None,
) -> Result:
    return run(
        "query", "--question", question, "--target", target, "--authorization", auth, *case.where(), *extra,
        env=env,
    )


def assert_metadata_only(stdout: str, case: Case) -> None:
    """No evidence and no local path on stdout (the capability id names the question and the
    target the caller gave, so it is read past)."""
    stdout = re.sub(r"cmg:question:[a-z_]+:\S+?(?=[\s\"])", "", stdout)
    for fragment in EVIDENCE_FRAGMENTS:
        assert fragment not in stdout, fragment
    for path in {case.repo, case.state, case.files, case.repo.parent}:
        for spelling in {str(path), os.path.realpath(path)}:
            assert spelling not in stdout, spelling


def published_generation_dir(case: Case) -> Path:
    return case.workspace.generation_dir(case.generation)


# --------------------------------------------------------------------------- availability


def make_absent(case: Case) -> dict[str, Any]:
    return {"generation": UNKNOWN_GENERATION}


def make_stale(case: Case) -> dict[str, Any]:
    publish(case.repo, case.state, g0_graph())
    generation = case.generation
    commit_all(case.repo, "HEAD moves after the build")
    return {"generation": generation}


def make_corrupt(case: Case) -> dict[str, Any]:
    publish(case.repo, case.state, g0_graph())
    generation = case.generation
    with open(published_generation_dir(case) / ARTIFACT_NAME, "r+b") as handle:
        handle.seek(700)
        byte = handle.read(1)
        handle.seek(700)
        handle.write(bytes([byte[0] ^ 0xFF]))
    return {"generation": generation}


def make_invalid(case: Case) -> dict[str, Any]:
    publish(case.repo, case.state, g0_graph())
    generation = case.generation
    with open(case.workspace.current_pointer, "r+b") as handle:  # same inode: still 0600, one link
        handle.truncate(0)
        handle.write(b"not-a-generation\n")
    return {"generation": generation}


def make_oversized(case: Case) -> dict[str, Any]:
    """An artifact past the 256 MiB budget (sparse: no data is written, the size is enough)."""
    publish(case.repo, case.state, g0_graph())
    generation = case.generation
    os.truncate(published_generation_dir(case) / ARTIFACT_NAME, MAX_ARTIFACT_BYTES + 1)
    return {"generation": generation}


def make_unreadable(case: Case) -> dict[str, Any]:
    """A usable generation whose index cannot be derived: the checkout became a partial clone,
    so the bound commit's census cannot be read (no index of it is left to reuse)."""
    publish(case.repo, case.state, g0_graph())
    generation = case.generation
    case.workspace.index_path(generation).unlink(missing_ok=True)
    git(case.repo, "config", "remote.origin.promisor", "true")
    return {"generation": generation}


def make_partial(case: Case) -> dict[str, Any]:
    publish(case.repo, case.state, g0_graph(), inventory={})
    return {}


def make_unresolved(case: Case) -> dict[str, Any]:
    publish(case.repo, case.state, g0_graph())
    return {"target": "no_such_symbol"}


def make_uncitable(case: Case) -> dict[str, Any]:
    publish(case.repo, case.state, g0_graph())
    return {"question": "dependency"}  # parse_config is a leaf: nothing to cite


def make_reader_incompatible(case: Case) -> dict[str, Any]:
    """A generation from a provider this reader was not reviewed against, with a type it lacks."""
    graph = g0_graph()
    graph["nodes"].append(node("n-holo", "holo", "example_pkg/config.py", "L3", file_type="hologram"))
    out = write_output(case.files / "graphify-out", graph, inventory_for(case.repo, code_paths(case.repo)))
    publish_unchecked(case.workspace, out, provider=REVIEWED_ELSEWHERE)
    return {}


UNAVAILABLE = {
    "absent": make_absent,
    "stale": make_stale,
    "corrupt": make_corrupt,
    "oversized": make_oversized,
    "invalid": make_invalid,
    "partial": make_partial,
    "unresolved": make_unresolved,
    "uncitable": make_uncitable,
    "unreadable": make_unreadable,
    "reader_incompatible": make_reader_incompatible,
}


def test_every_unusable_graph_state_is_an_unavailable_case() -> None:
    """A new unusable state of the graph cannot go untested by the case below."""
    assert set(STATES) - {"current"} <= set(UNAVAILABLE)


POLICIES = [
    pytest.param(True, "required_unavailable", "paused", 1, id="required"),
    pytest.param(False, "optional_unavailable", "usable", 0, id="optional"),
]


@pytest.mark.parametrize(("required", "status", "work", "code"), POLICIES)
@pytest.mark.parametrize("reason", list(UNAVAILABLE))
def test_every_unavailable_reason_under_both_policies(
    case: Case, reason: str, required: bool, status: str, work: str, code: int
) -> None:
    setup = UNAVAILABLE[reason](case)
    auth = write_auth(case, auth_document(case, required=required, generation=setup.get("generation")))
    ask_with = {"question": setup.get("question", "impact"), "target": setup.get("target", "parse_config")}

    result = query(case, auth, "--packet-out", case.packet, "--json", **ask_with)
    assert result.exit_code == code, result.stdout + result.stderr
    assert result.stderr == ""
    summary = json.loads(result.stdout)
    assert summary["schema"] == "code_mower.contextGraphQuery.v1"
    assert (summary["status"], summary["reason"], summary["dependent_work"]) == (status, reason, work)
    assert summary["detail"] and summary["next_action"]
    if reason == "reader_incompatible":
        assert set(summary) == UNAVAILABLE_KEYS | {"remediation"}
        remediation = summary["remediation"]
        assert summary["next_action"] == remediation["action"]
        assert remediation["generation_provider"] == "graphifyy==0.9.60"
        assert remediation["reader_provider_versions"] == ["0.9.58"]
    else:
        assert set(summary) == UNAVAILABLE_KEYS
    if reason != "reader_incompatible":  # there the remediation's action is the next action
        expected = "paused" if required else "ordinary repository tools"
        assert expected in summary["next_action"]
    assert not case.packet.exists()
    assert os.listdir(case.packet.parent) == []
    assert_metadata_only(result.stdout, case)

    table = query(case, auth, "--packet-out", case.packet, **ask_with)
    assert table.exit_code == code and table.stderr == ""
    assert table.stdout.splitlines()[0] == f"Graph context: {status}"
    assert reason in table.stdout and work in table.stdout
    assert not case.packet.exists()
    assert_metadata_only(table.stdout, case)


def test_bounds_are_not_checked_before_availability(case: Case) -> None:
    """With no graph, bad bounds are never seen: availability is settled before anything is read."""
    auth = write_auth(case, auth_document(case, generation=UNKNOWN_GENERATION))
    result = query(case, auth, "--depth", "0", "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["reason"] == "absent"


def test_available_json_summary(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    summary = json.loads(result.stdout)
    assert set(summary) == AVAILABLE_KEYS
    assert summary["schema"] == "code_mower.contextGraphQuery.v1"
    assert (summary["status"], summary["dependent_work"], summary["question"]) == ("available", "usable", "impact")
    assert summary["source_revision"] == git(g0.repo, "rev-parse", "HEAD")
    assert summary["generation"] == summary["graph_generation"] == g0.generation
    assert (summary["seeds"], summary["relations"], summary["documents"]) == (1, 3, 3)
    assert summary["completeness"] == summary["query_completeness"] == "complete"
    assert summary["generation_completeness"] == "complete"
    assert summary["truncated"] is False and summary["omissions"] == [] and summary["ambiguous"] is False
    assert summary["recipients"] == RECIPIENTS
    assert_metadata_only(result.stdout, g0)


def test_available_table_summary(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, env=WIDE)
    assert result.exit_code == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == "Graph context: available"
    body = "\n".join(lines[1:])
    for key in sorted(AVAILABLE_KEYS - {"schema", "status"}):
        assert key in body, key
    assert g0.generation in body and git(g0.repo, "rev-parse", "HEAD") in body
    assert_metadata_only(result.stdout, g0)


@pytest.mark.parametrize("question", ["impact", "symbol", "related_tests"])
def test_stdout_stays_metadata_with_and_without_a_packet(g0: Case, question: str) -> None:
    auth = write_auth(g0, auth_document(g0))
    for extra in ([], ["--json"], ["--packet-out", g0.packet], ["--packet-out", g0.packet, "--json"]):
        result = query(g0, auth, *extra, question=question, env=WIDE)
        assert result.exit_code == 0 and result.stderr == ""
        assert_metadata_only(result.stdout, g0)


def test_expired_envelope_is_uncitable(g0: Case) -> None:
    """An expired envelope is not a bad file: the answer exists but cannot be bound, so uncitable."""
    for required, status, code in ((True, "required_unavailable", 1), (False, "optional_unavailable", 0)):
        auth = write_auth(g0, auth_document(g0, required=required, expires_in=timedelta(seconds=-1)))
        result = query(g0, auth, "--packet-out", g0.packet, "--json")
        assert result.exit_code == code and result.stderr == ""
        summary = json.loads(result.stdout)
        assert (summary["status"], summary["reason"]) == (status, "uncitable")
        assert summary["detail"] == "The connection envelope has expired."
        assert not g0.packet.exists()


def test_corruption_after_an_answered_question_is_still_caught(g0: Case) -> None:
    """Questions may skip re-hashing a verified artifact, but never past a change to its bytes."""
    auth = write_auth(g0, auth_document(g0))
    assert query(g0, auth).exit_code == 0
    artifact = published_generation_dir(g0) / ARTIFACT_NAME
    data = bytearray(artifact.read_bytes())
    data[700] ^= 0xFF
    with open(artifact, "r+b") as handle:  # same inode, same size
        handle.write(bytes(data))
    result = query(g0, auth, "--packet-out", g0.packet, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["reason"] == "corrupt"
    assert not g0.packet.exists()


def test_envelope_for_a_previous_generation_is_uncitable(g0: Case) -> None:
    stale_auth = write_auth(g0, auth_document(g0))
    publish(g0.repo, g0.state, g0_graph())  # a rebuild publishes a new generation
    result = query(g0, stale_auth, "--packet-out", g0.packet, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["reason"] == "uncitable"
    assert not g0.packet.exists()


# --------------------------------------------------------------------------- the index's own version


def set_user_version(path: Path, version: int) -> None:
    connection = apsw.Connection(str(path))
    try:
        connection.execute(f"PRAGMA user_version = {int(version)}")
    finally:
        connection.close()


def user_version(path: Path) -> int:
    connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        (value,) = connection.execute("PRAGMA user_version").fetchone() or (None,)
        assert isinstance(value, int)
        return value
    finally:
        connection.close()


def test_an_index_from_another_schema_version_is_derived_again(g0: Case) -> None:
    """The index is derived state, not the generation: the generation is still readable by this
    reader, so a query re-derives the index (SPEC-NOTES: "the importer rebuilds them") rather than
    reporting reader_incompatible, which the seed reserves for a generation the reader cannot
    consume (see the generation case in the parametrised test above)."""
    auth = write_auth(g0, auth_document(g0))
    assert query(g0, auth).exit_code == 0
    index = g0.workspace.index_path(g0.generation)
    set_user_version(index, 99)

    result = query(g0, auth, "--packet-out", g0.packet, "--json")
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["status"] == "available"
    assert g0.packet.exists()
    assert user_version(index) == SCHEMA_VERSION and mode(index) == 0o600

    status = run("status", *g0.where(), "--json")
    assert status.exit_code == 0
    assert json.loads(status.stdout)["search"] == "available"


def test_status_and_query_agree_on_reader_incompatible(case: Case) -> None:
    make_reader_incompatible(case)
    auth = write_auth(case, auth_document(case))
    summary = json.loads(query(case, auth, "--json").stdout)
    readiness = json.loads(run("status", *case.where(), "--json").stdout)["query_reader"]
    assert readiness["reason"] == "reader_incompatible"
    assert readiness["next_action"] == summary["next_action"]


# --------------------------------------------------------------------------- --packet-out


def test_packet_out_is_private_and_alone(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--packet-out", g0.packet, "--json")
    assert result.exit_code == 0
    assert mode(g0.packet) == 0o600 and stat.S_ISREG(os.lstat(g0.packet).st_mode)
    assert os.listdir(g0.packet.parent) == ["packet.json"]
    data = g0.packet.read_bytes()
    packet = json.loads(data)
    assert data == dumps_canonical(packet)  # compact, key-sorted
    assert packet["schema"] == "code_mower.contextPacket.v1" and packet["kind"] == "repository"
    assert packet["source_revision"] == json.loads(result.stdout)["source_revision"]
    assert len(packet["documents"]) == 3
    assert "citations" not in json.loads(result.stdout)


def test_packet_out_replaces_a_world_readable_file(g0: Case) -> None:
    g0.packet.write_bytes(b"old evidence")
    os.chmod(g0.packet, 0o644)
    before = os.lstat(g0.packet).st_ino
    auth = write_auth(g0, auth_document(g0))
    assert query(g0, auth, "--packet-out", g0.packet).exit_code == 0
    assert mode(g0.packet) == 0o600
    assert os.lstat(g0.packet).st_ino != before  # a fresh file, not the old one reopened
    assert json.loads(g0.packet.read_bytes())["kind"] == "repository"
    assert os.listdir(g0.packet.parent) == ["packet.json"]


def test_packet_out_replaces_a_symlink_and_leaves_its_target_alone(g0: Case) -> None:
    victim = g0.files / "victim.txt"
    victim.write_bytes(b"someone else's file\n")
    os.chmod(victim, 0o644)
    g0.packet.symlink_to(victim)
    auth = write_auth(g0, auth_document(g0))
    assert query(g0, auth, "--packet-out", g0.packet).exit_code == 0
    assert not g0.packet.is_symlink() and mode(g0.packet) == 0o600
    assert json.loads(g0.packet.read_bytes())["kind"] == "repository"
    assert victim.read_bytes() == b"someone else's file\n" and mode(victim) == 0o644
    assert os.listdir(g0.packet.parent) == ["packet.json"]


def test_unavailable_outcome_leaves_an_existing_destination_untouched(g0: Case) -> None:
    g0.packet.write_bytes(b"previous packet")
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--packet-out", g0.packet, target="no_such_symbol")
    assert result.exit_code == 1
    assert g0.packet.read_bytes() == b"previous packet"
    assert os.listdir(g0.packet.parent) == ["packet.json"]


def test_packet_into_a_missing_directory_is_a_clean_refusal(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    missing = g0.files / "no-such-dir" / "packet.json"
    result = query(g0, auth, "--packet-out", missing)
    assert_one_line_refusal(result, "io", "The packet file could not be written")
    assert str(missing.parent) not in result.stderr
    assert not missing.parent.exists()

    as_json = query(g0, auth, "--packet-out", missing, "--json")
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout) == {
        "status": "refused", "reason": "io",
        "detail": "The packet file could not be written (No such file or directory).",
    }


def test_packet_onto_a_directory_is_a_clean_refusal(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--packet-out", g0.packet.parent)
    assert_one_line_refusal(result, "unsafe_destination", "is not a regular file")
    assert os.listdir(g0.packet.parent) == []


def _fifo(path: Path) -> None:
    os.mkfifo(path, 0o644)


def _char_device(path: Path) -> None:
    """A real character device node (1, 3: the same device as /dev/null), made in the temp dir;
    /dev/null itself is never touched."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")


def _link_to_a_fifo(path: Path) -> None:
    """Like /dev/stdout (a symlink to /proc/self/fd/1, a pipe when piped): replacing the link
    would break every process's /dev/stdout."""
    _fifo(path.with_name("pipe"))
    os.symlink("pipe", path)


@pytest.mark.parametrize("make", [_fifo, _char_device, _link_to_a_fifo], ids=["fifo", "char-device", "link-to-fifo"])
def test_packet_out_never_replaces_a_fifo_or_device(g0: Case, make: Callable[[Path], None]) -> None:
    make(g0.packet)
    before = os.lstat(g0.packet)
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--packet-out", g0.packet)
    assert_one_line_refusal(result, "unsafe_destination", "is not a regular file")
    after = os.lstat(g0.packet)
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)
    expected = ["packet.json", "pipe"] if os.path.islink(g0.packet) else ["packet.json"]
    assert sorted(os.listdir(g0.packet.parent)) == expected  # no staging file left behind


def test_auth_init_out_never_replaces_a_fifo(g0: Case) -> None:
    """The rule lives in the shared atomic-write helper, so every private output obeys it."""
    target = g0.files / "auth.json"
    os.mkfifo(target)
    result = run("auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
                 "--recipient", "claude:builder", *g0.where(), "--out", target)
    assert_one_line_refusal(result, "unsafe_destination", "is not a regular file")
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert sorted(os.listdir(g0.files)) == ["auth.json", "out"]


# --------------------------------------------------------------------------- recipients


@pytest.mark.parametrize("recipients", [
    ["codex:reviewer"],
    ["devin:builder", "claude:builder"],
    list(reversed(RECIPIENTS)),
    ["codex:reviewer", "claude:builder", "devin:builder"],
])
def test_documents_are_identical_whoever_receives_them(g0: Case, recipients: list[str]) -> None:
    def packet_for(names: list[str], label: str) -> dict[str, Any]:
        auth = write_auth(g0, auth_document(g0, recipients=names), f"auth-{label}.json")
        destination = g0.files / "out" / f"{label}.json"
        result = query(g0, auth, "--packet-out", destination, "--json")
        assert result.exit_code == 0
        assert json.loads(result.stdout)["recipients"] == names
        return json.loads(destination.read_bytes())

    reference = packet_for(RECIPIENTS, "all")
    packet = packet_for(recipients, "some")
    assert dumps_canonical(packet["documents"]) == dumps_canonical(reference["documents"])
    assert packet["binding"]["recipients"] == recipients
    assert reference["binding"]["recipients"] == RECIPIENTS
    for key in ("source_revision", "completeness", "truncated", "omissions", "provider", "kind"):
        assert packet[key] == reference[key]
    rendered = dumps_canonical(packet["documents"]).decode()
    for forbidden in ("graphify", "local-graph", str(g0.repo), *RECIPIENTS):
        assert forbidden not in rendered


# --------------------------------------------------------------------------- bad input


def valid_auth_bytes(case: Case) -> bytes:
    return json.dumps(auth_document(case)).encode()


def _without_policy(case: Case) -> dict[str, Any]:
    document = auth_document(case)
    del document["policy"]
    return document


def _policy_with(case: Case, **changes: Any) -> dict[str, Any]:
    document = auth_document(case)
    document["policy"].update(changes)
    return document


BAD_FILES: dict[str, tuple[Callable[[Case], dict[str, Any] | bytes], str]] = {
    "malformed": (lambda c: b'{"connection": {', "is not valid JSON"),
    "oversized": (lambda c: valid_auth_bytes(c) + b" " * 65_536, "exceeds its 65,536-byte budget"),
    "duplicate-keys": (
        lambda c: valid_auth_bytes(c)[:-1] + b', "work_item": "again"}', "repeats a key",
    ),
    "missing-policy": (_without_policy, "does not have exactly the expected keys"),
    "policy-unknown-key": (lambda c: _policy_with(c, colour="blue"), "The policy does not have exactly"),
    "policy-required-not-bool": (lambda c: _policy_with(c, required="yes"), "required must be true or false"),
    "policy-bad-identifier": (
        lambda c: _policy_with(c, connection="Local[graph]"), "lowercase identifier ([a-z][a-z0-9_-]{0,63})",
    ),
    "not-an-object": (lambda c: b"[]", "must be a JSON object"),
}


def _with_repository(case: Case, repository: str) -> dict[str, Any]:
    document = auth_document(case)
    document["repository"] = repository
    return document


def _with_envelope_connection(case: Case, connection: str) -> dict[str, Any]:
    document = auth_document(case)
    document["connection"]["connection"] = connection
    return document


# An authorization whose parts disagree is refused at load, as an unapproved recipient is.
UNCOVERED_FILES: dict[str, tuple[Callable[[Case], dict[str, Any]], str]] = {
    "repository-not-approved": (
        lambda c: _with_repository(c, "someone/else"), "repository is not one its envelope approves",
    ),
    "policy-for-another-connection": (
        lambda c: _with_envelope_connection(c, "other-graph"), "policy names a different connection",
    ),
}


@pytest.mark.parametrize("bad", list(UNCOVERED_FILES))
def test_authorization_outside_its_envelope_is_unauthorized(g0: Case, bad: str) -> None:
    make, words = UNCOVERED_FILES[bad]
    auth = write_auth(g0, make(g0))
    assert_one_line_refusal(query(g0, auth, "--packet-out", g0.packet), "unauthorized", words)
    as_json = query(g0, auth, "--packet-out", g0.packet, "--json")
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout)["reason"] == "unauthorized"
    assert not g0.packet.exists()


@pytest.mark.parametrize("bad", list(BAD_FILES))
def test_bad_authorization_file(g0: Case, bad: str) -> None:
    make, words = BAD_FILES[bad]
    auth = write_auth(g0, make(g0))
    for extra in ([], ["--json"]):
        result = query(g0, auth, "--packet-out", g0.packet, *extra)
        if extra:
            assert result.exit_code == 1
            refused = json.loads(result.stdout)
            assert (refused["status"], refused["reason"]) == ("refused", "invalid")
            assert words in refused["detail"]
        else:
            assert_one_line_refusal(result, "invalid", words)
        assert not g0.packet.exists()


def test_missing_authorization_file(g0: Case) -> None:
    result = query(g0, g0.files / "nope.json", "--packet-out", g0.packet)
    assert_one_line_refusal(result, "invalid", "The authorization file cannot be opened.")
    assert not g0.packet.exists()


@pytest.mark.parametrize(("extra", "words"), [
    (["--depth", "0"], "The depth must be an integer from 1 to 4."),
    (["--depth", "5"], "The depth must be an integer from 1 to 4."),
    (["--node-budget", "0"], "The node budget must be an integer from 1 to 200."),
    (["--node-budget", "201"], "The node budget must be an integer from 1 to 200."),
])
def test_bounds_out_of_range(g0: Case, extra: list[str], words: str) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--packet-out", g0.packet, *extra)
    assert_one_line_refusal(result, "invalid", words)
    assert not g0.packet.exists()


@pytest.mark.parametrize("target", ["", "   ", "parse\nconfig", "x" * 513])
def test_bad_target(g0: Case, target: str) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--packet-out", g0.packet, target=target)
    assert_one_line_refusal(result, "invalid", "The target must be non-empty single-line text")
    assert not g0.packet.exists()


@pytest.mark.parametrize(("args", "option"), [
    (["--question", "impacts", "--target", "parse_config"], "--question"),
    (["--question", "impact", "--target", "parse_config", "--depth", "two"], "--depth"),
    (["--target", "parse_config"], "--question"),
])
def test_usage_errors_exit_2(g0: Case, args: list[str], option: str) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = run("query", *args, "--authorization", auth, "--packet-out", g0.packet, *g0.where())
    assert result.exit_code == 2
    assert result.stdout == ""
    assert option in result.stderr and result.stderr.startswith("cm-graph: usage: ")
    assert result.stderr.endswith(" (see cm-graph query --help)\n") and result.stderr.count("\n") == 1
    assert not g0.packet.exists()


# --------------------------------------------------------------------------- auth init, ask, --show


def test_auth_init_feeds_query_directly(g0: Case) -> None:
    made = run(
        "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", *g0.where(),
    )
    assert made.exit_code == 0 and made.stderr == ""
    document = json.loads(made.stdout)
    assert set(document) == {"connection", "policy", "repository", "work_item"}
    assert document["connection"]["generation"] == g0.generation
    assert document["connection"]["recipients"] == ["claude:builder"]
    assert document["policy"]["required"] is True
    auth = write_auth(g0, made.stdout.encode())

    result = query(g0, auth, "--packet-out", g0.packet, "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "available" and summary["recipients"] == ["claude:builder"]
    binding = json.loads(g0.packet.read_bytes())["binding"]
    assert (binding["repository"], binding["work_item"]) == ("owner/repo", "local-work")


def test_auth_init_optional_policy(g0: Case) -> None:
    made = run(
        "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", "--optional", *g0.where(),
    )
    auth = write_auth(g0, made.stdout.encode())
    result = query(g0, auth, "--json", question="dependency")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["status"] == "optional_unavailable"


def test_auth_init_without_a_graph_refuses(case: Case) -> None:
    result = run(
        "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", *case.where(),
    )
    assert_one_line_refusal(result, "absent", "No local graph has been built")


def test_ask_shows_the_relationships(g0: Case) -> None:
    result = run("ask", "impact", "parse_config", *g0.where(), env=WIDE)
    assert result.exit_code == 0 and result.stderr == ""
    assert "impact parse_config: 3 relationships" in result.stdout
    for text in ("load calls parse_config", "test_parse_config tests parse_config", "render calls load"):
        assert text in result.stdout
    assert result.stdout.rstrip().endswith("omissions: none")


def test_ask_unresolved_and_unusable(case: Case) -> None:
    assert_one_line_refusal(run("ask", "impact", "parse_config", *case.where()), "absent", "No local graph")
    publish(case.repo, case.state, g0_graph())
    assert_one_line_refusal(
        run("ask", "impact", "no_such_symbol", *case.where()), "unresolved", "names no symbol or path"
    )


def test_query_show_writes_the_table_to_stderr_only(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    result = query(g0, auth, "--show", "--json", env=WIDE)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["status"] == "available"  # stdout is still exactly the summary
    assert_metadata_only(result.stdout, g0)
    assert "impact parse_config: 3 relationships" in result.stderr
    assert "load calls parse_config" in result.stderr

    table = query(g0, auth, "--show", env=WIDE)
    assert table.stdout.splitlines()[0] == "Graph context: available"
    assert_metadata_only(table.stdout, g0)
    assert "render calls load" in table.stderr


@pytest.mark.parametrize("columns", ["80", "200"])
def test_query_show_fits_the_terminal_and_names_the_intermediate_node(g0: Case, columns: str) -> None:
    auth = write_auth(g0, auth_document(g0))
    shown = query(g0, auth, "--show", "--json", env={"COLUMNS": columns}).stderr
    lines = shown.splitlines()
    assert all(len(line) <= int(columns) for line in lines), shown
    assert "impact:" not in shown  # the question is in the header, not repeated on every row
    assert " 2  render calls load (inferred)" in lines
    assert "    via load · symbol at example_pkg/report.py#L5" in lines


def test_markup_in_a_refusal_is_printed_verbatim(g0: Case) -> None:
    document = auth_document(g0)
    document["connection"]["provider"] = "Bad[/]"
    auth = write_auth(g0, document)
    result = query(g0, auth, env=WIDE)
    assert result.exit_code == 1 and result.stderr == ""
    assert "([a-z][a-z0-9_-]{0,63})" in result.stdout  # rich markup is not interpreted


# --------------------------------------------------------------------------- the installed entry point


cli = run_installed


def test_installed_entry_point_newcomer_flow(g0: Case) -> None:
    """Two commands: mint an authorization file, then ask with it, from inside the checkout."""
    assert CM_GRAPH.exists()
    made = cli(
        "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", "--state-dir", g0.state, cwd=g0.repo,
    )
    assert made.returncode == 0 and made.stderr == ""
    auth = write_auth(g0, made.stdout.encode())

    done = cli(
        "query", "--question", "impact", "--target", "parse_config", "--authorization", auth,
        "--packet-out", g0.packet, "--state-dir", g0.state, "--json", cwd=g0.repo,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["status"] == "available"
    assert_metadata_only(done.stdout, g0)
    assert mode(g0.packet) == 0o600 and os.listdir(g0.packet.parent) == ["packet.json"]

    table = cli(
        "query", "--question", "impact", "--target", "parse_config", "--authorization", auth,
        "--state-dir", g0.state, cwd=g0.repo,
    )
    assert table.returncode == 0 and table.stdout.startswith("Graph context: available\n")
    assert_metadata_only(table.stdout, g0)


def test_installed_entry_point_refusals(g0: Case) -> None:
    auth = write_auth(g0, auth_document(g0))
    base = ["query", "--target", "parse_config", "--authorization", auth, "--state-dir", g0.state]
    missing = cli(*base, "--question", "impact", "--packet-out", g0.files / "nope" / "p.json", cwd=g0.repo)
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr == "cm-graph: io: The packet file could not be written (No such file or directory).\n"

    usage = cli(*base, "--question", "blast_radius", cwd=g0.repo)
    assert usage.returncode == 2 and usage.stdout == "" and "--question" in usage.stderr
    assert "Traceback" not in usage.stderr

    fresh = cli(*base, "--question", "impact", "--json", cwd=g0.repo)
    assert fresh.returncode == 0

    commit_all(g0.repo, "move HEAD")
    stale = cli(*base, "--question", "impact", "--json", "--packet-out", g0.packet, cwd=g0.repo)
    assert stale.returncode == 1 and stale.stderr == ""
    assert json.loads(stale.stdout)["reason"] == "stale"
    assert not g0.packet.exists()

    version = cli("version", cwd=g0.repo)
    assert version.returncode == 0 and version.stdout.strip()
