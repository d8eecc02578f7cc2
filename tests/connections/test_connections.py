"""Local graph connections end to end: connect, guided `session prepare`, `context fetch`.

Everything is real: git repositories in temp dirs (a registered checkout, second clones, a
directory outside any checkout), generations published with the same code the CLI uses, the
private connection store on disk, the typer app through ``CliRunner`` and the installed
``cm-graph`` entry point as subprocesses. ``context fetch`` reads the consuming revision from the
directory it runs in, so it always runs as a subprocess with ``cwd=`` (or, once, in-process after
``monkeypatch.chdir``).

What the issue asks of the guided route: authorization is re-derived on every load (a rebuilt
graph refuses old handles, a moved HEAD refuses outright), the consuming revision is the work's
own commit and never defaulted, the packet store stays bounded and uncorrupted under concurrent
`prepare`s, every approved recipient reads the same bytes, and required context that is
refused pauses work (exit 1) while optional context degrades (exit 0).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cm_graph.base.errors import Refusal
from cm_graph.base.jsonio import dumps_canonical
from cm_graph.base.privfs import write_private_atomic
from cm_graph.cli.app import app
from cm_graph.connections.store import ConnectionRefusal, ConnectionStore, load_authorized
from cm_graph.generation.layout import Workspace
from cm_graph.generation.manifest import REQUIRED_OPTIONS, ProviderPin
from cm_graph.generation.store import read_current

from ..support.g0 import edge, g0_graph, make_g0_repo, node
from ..support.helpers import (
    code_paths,
    commit_all,
    git,
    inventory_for,
    publish,
    publish_unchecked,
    write_files,
    write_output,
)

CM_GRAPH = Path(sys.executable).parent / "cm-graph"
RUNNER = CliRunner()
NAME = "local-graph"
REPOSITORY = "owner/repo"
# cursor:orchestrator is approved but is no guided recipient; cursor:builder is not approved.
APPROVED = ("claude:builder", "codex:reviewer", "devin:builder", "cursor:orchestrator")
HANDLE = re.compile(r"[0-9a-f]{32}")
CONTINUE = "Continue with ordinary repository tools."
# Every G0 target the symbol question answers with a citable packet.
SYMBOL_TARGETS = (
    "parse_config", "load", "render", "test_parse_config", "config.py",
    "example_pkg/config.py", "example_pkg/loader.py", "example_pkg/report.py", "tests/test_config.py",
)


def cli(*args: Any, stdin: str | None = None) -> Result:
    return RUNNER.invoke(app, [str(arg) for arg in args], input=stdin)


def run(*args: Any, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CM_GRAPH), *(str(arg) for arg in args)], cwd=cwd, input=stdin, capture_output=True,
        text=True, timeout=120, check=False,
    )


@dataclass
class World:
    """A registered G0 checkout, its state root, and a connection approving ``APPROVED``."""

    base: Path
    repo: Path
    state: Path
    graph: dict[str, Any]

    @property
    def store_dir(self) -> Path:
        """The reference's layout: the connection store is the state root itself."""
        return self.state

    def head(self, repo: Path | None = None) -> str:
        return git(repo or self.repo, "rev-parse", "HEAD")

    def rebuild(self) -> None:
        """Publish the graph again (a new generation) and index it, as `cm-graph build` does."""
        publish(self.repo, self.state, self.graph)
        indexed = cli("index", "--repo-path", self.repo, "--state-dir", self.state)
        assert indexed.exit_code == 0, indexed.output

    def generation(self) -> str:
        return read_current(Workspace.locate(self.repo, self.state)).id

    def connect(self, *recipients: str) -> Result:
        flags = [item for recipient in (recipients or APPROVED) for item in ("--recipient", recipient)]
        return cli(
            "connect", "--connection", NAME, "--repository", REPOSITORY, *flags,
            "--repo-path", self.repo, "--state-dir", self.state, "--json",
        )

    def session(
        self, filename: str = "session.json", *, recipient: str = "claude:builder", required: bool = True,
        directory: Path | None = None, work_item: str = "issue-6", repository: str = REPOSITORY, **limits: int,
    ) -> Path:
        path = self.base / filename
        path.write_text(json.dumps({
            "schema": "cm_graph.session.v1",
            "connection": NAME,
            "repository": repository,
            "work_item": work_item,
            "recipient": recipient,
            "directory": str(directory or self.repo),
            "policy": {
                "schema": "code_mower.contextPolicy.v1", "connection": NAME, "policy_version": "v1",
                "required": required, **limits,
            },
        }))
        return path

    def prepare(self, session: Path, target: str, *extra: str) -> tuple[int, dict[str, Any]]:
        result = cli("session", "prepare", session, "--query-stdin", "--state-dir", self.state, "--json", *extra,
                     stdin=target + "\n")
        return result.exit_code, json.loads(result.stdout)

    def handle(self, session: Path, target: str = "parse_config", *extra: str) -> str:
        code, outcome = self.prepare(session, target, *extra)
        assert (code, outcome["status"]) == (0, "available"), outcome
        return outcome["packet_handle"]

    def fetch(self, handle: str, recipient: str = "claude:builder", *, cwd: Path | None = None,
              json_output: bool = True) -> subprocess.CompletedProcess[str]:
        flags = ["--json"] if json_output else []
        return run("context", "fetch", "--connection", NAME, "--handle", handle, "--recipient", recipient,
                   "--state-dir", self.state, *flags, cwd=cwd or self.repo)

    def status(self) -> tuple[int, dict[str, Any]]:
        result = cli("connection-status", "--connection", NAME, "--state-dir", self.state, "--json")
        return result.exit_code, json.loads(result.stdout)

    def index(self) -> dict[str, Any]:
        [path] = self.store_dir.glob(".i-*.json")
        return json.loads(path.read_bytes())

    def packets(self) -> set[str]:
        return {path.name[3:-5] for path in self.store_dir.glob(".p-*.json")}

    def packet_path(self, handle: str) -> Path:
        return self.store_dir / f".p-{handle}.json"

    def retrieved_earlier(self, handle: str, *, seconds: int) -> None:
        """Record the packet as retrieved ``seconds`` earlier than it was, through the store's own
        writes (the packet privately and atomically, its digest in the index), as if it had been."""
        store = ConnectionStore(self.state)
        packet = json.loads(store.packet_path(NAME, handle).read_bytes())
        retrieved = datetime.fromisoformat(packet["retrieved_at"]) - timedelta(seconds=seconds)
        data = dumps_canonical({**packet, "retrieved_at": retrieved.isoformat()})
        write_private_atomic(store.packet_path(NAME, handle), data)
        entries = store.entries(NAME)
        for entry in entries:
            if entry["handle"] == handle:
                entry["reference"]["sha256"] = hashlib.sha256(data).hexdigest()
        store.save_entries(NAME, entries)


def make_world(base: Path, graph: dict[str, Any] | None = None) -> World:
    world = World(base, make_g0_repo(base / "checkout"), base / "state", graph or g0_graph())
    world.rebuild()
    connected = world.connect()
    assert connected.exit_code == 0, connected.output
    return world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


def assert_refused(done: subprocess.CompletedProcess[str], fragment: str) -> None:
    """A refused fetch under a required policy: exit 1, required_unavailable / paused on stdout,
    the reason on stderr, no evidence anywhere."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    outcome = json.loads(done.stdout)
    assert outcome["status"] == "required_unavailable" and outcome["dependent_work"] == "paused"
    assert fragment in done.stderr, done.stderr
    assert "#L" not in done.stdout + done.stderr


def assert_unavailable(code: int, outcome: dict[str, Any], *, required: bool, fragment: str) -> None:
    if required:
        assert code == 1
        assert outcome["status"] == "required_unavailable"
        assert outcome["dependent_work"] == "paused"
        assert outcome["owner_action"] is True
    else:
        assert code == 0
        assert outcome["status"] == "optional_unavailable"
        assert outcome["dependent_work"] == "usable"
        assert outcome["next_action"] == CONTINUE
    assert outcome["stage"] == "preparing"
    assert "packet_handle" not in outcome
    assert fragment in outcome["detail"], outcome


# -- connect, prepare, fetch ----------------------------------------------------------------------


def test_connect_prepare_fetch_round_trip(world: World) -> None:
    state_file = world.store_dir / f"{NAME}.json"
    saved = json.loads(state_file.read_bytes())
    assert saved == {
        "schema": "code_mower.contextLocalGraphConnection.v1", "connection": NAME, "provider": "graphify",
        "kind": "repository", "state": "verified", "repository_root": os.path.realpath(world.repo),
        "repositories": [REPOSITORY], "recipients": list(APPROVED),
    }
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(world.store_dir.stat().st_mode) == 0o700

    session = world.session()
    code, outcome = world.prepare(session, "parse_config", "--question", "impact")
    assert code == 0
    assert outcome == {
        "schema": "code_mower.contextSummary.v1", "status": "available", "kind": "repository",
        "documents": 3, "completeness": "complete", "truncated": False, "revision_state": "matching",
        "packet_handle": outcome["packet_handle"], "reused": False, "usage": None,
    }
    handle = outcome["packet_handle"]
    assert HANDLE.fullmatch(handle)

    packet_file = world.packet_path(handle)
    assert stat.S_IMODE(packet_file.stat().st_mode) == 0o600
    packet = json.loads(packet_file.read_bytes())
    assert packet["schema"] == "code_mower.contextPacket.v1"
    assert packet["source_revision"] == world.head()
    assert packet["binding"]["generation"] == world.generation()
    assert packet["binding"]["identity"] == {"repository_root": os.path.realpath(world.repo)}
    [entry] = world.index()["entries"]
    assert entry["handle"] == handle
    assert entry["reference"] == {
        "path": packet_file.name, "sha256": hashlib.sha256(packet_file.read_bytes()).hexdigest(),
    }

    done = world.fetch(handle)
    assert done.returncode == 0, done.stderr
    evidence = json.loads(done.stdout)
    assert evidence["schema"] == "cm_graph.evidence.v1"
    assert evidence["source_revision"] == world.head()
    sources = {c["source"] for d in evidence["documents"] for c in d["citations"]}
    assert "example_pkg/config.py#L12" in sources
    assert all(d["text"].startswith("impact:") for d in evidence["documents"])

    # The human rendering is the same evidence, from the same re-authorized load.
    human = world.fetch(handle, json_output=False)
    assert human.returncode == 0
    assert f"revision {world.head()}" in human.stdout and "example_pkg/config.py#L12" in human.stdout

    # A second prepare reuses the stored answer; --refresh asks again under a new handle.
    assert world.prepare(session, "parse_config", "--question", "impact") == (0, {**outcome, "reused": True})
    code, refreshed = world.prepare(session, "parse_config", "--question", "impact", "--refresh")
    assert (code, refreshed["reused"]) == (0, False)
    assert refreshed["packet_handle"] != handle
    assert world.packets() == {refreshed["packet_handle"]}
    assert_refused(world.fetch(handle), "missing or was invalidated")
    assert world.fetch(refreshed["packet_handle"]).returncode == 0

    status_code, status = world.status()
    assert status_code == 0
    assert status["authorization"] == "available"
    assert status["graph"]["usable"] is True
    assert status["credential_storage"] == "none"


def test_question_defaults_to_symbol(world: World) -> None:
    session = world.session()
    default = world.handle(session)
    symbol = world.handle(session, "parse_config", "--question", "symbol")
    impact = world.handle(session, "parse_config", "--question", "impact")
    assert default == symbol != impact
    by_handle = {entry["handle"]: entry["request"]["source"] for entry in world.index()["entries"]}
    assert by_handle == {default: "symbol", impact: "impact"}
    evidence = json.loads(world.fetch(default).stdout)
    assert all(d["text"].startswith("symbol:") for d in evidence["documents"])


def test_context_fetch_in_process_reads_the_working_directory(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handle = world.handle(world.session())
    args = ("context", "fetch", "--connection", NAME, "--handle", handle, "--recipient", "codex:reviewer",
            "--state-dir", world.state, "--json")
    monkeypatch.chdir(world.repo / "example_pkg")  # any directory inside the checkout
    inside = cli(*args)
    assert inside.exit_code == 0, inside.output
    assert inside.stdout == world.fetch(handle, "codex:reviewer").stdout
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.chdir(outside)
    refused = cli(*args)
    assert refused.exit_code == 1
    assert "not in a git checkout" in refused.stderr


# -- authorization is re-derived: rebuilt graph, moved HEAD -------------------------------------


def test_rebuilt_graph_refuses_old_handle_and_refresh_recovers(world: World) -> None:
    session = world.session()
    old_generation = world.generation()
    old = world.handle(session)
    assert world.fetch(old).returncode == 0

    world.rebuild()  # same commit, new generation
    new_generation = world.generation()
    assert new_generation != old_generation

    assert_refused(world.fetch(old), "the graph was rebuilt")
    # The reuse path finds the old entry and its load fails: no silent re-query.
    code, outcome = world.prepare(session, "parse_config")
    assert_unavailable(code, outcome, required=True, fragment="the graph was rebuilt")

    code, refreshed = world.prepare(session, "parse_config", "--refresh")
    assert (code, refreshed["status"], refreshed["reused"]) == (0, "available", False)
    new = refreshed["packet_handle"]
    assert new != old
    assert world.fetch(new).returncode == 0
    assert json.loads(world.packet_path(new).read_bytes())["binding"]["generation"] == new_generation
    assert world.packets() == {new}


@pytest.mark.parametrize("required", [True, False], ids=["required", "optional"])
def test_commit_in_checkout_is_refused_as_stale(world: World, required: bool) -> None:
    session = world.session(required=required)
    handle = world.handle(session)
    write_files(world.repo, {"example_pkg/config.py": "changed\n"})
    commit_all(world.repo, "move HEAD")

    code, outcome = world.prepare(session, "parse_config")
    assert_unavailable(code, outcome, required=required, fragment="not current for this revision (stale)")
    code, outcome = world.prepare(session, "load", "--refresh")
    assert_unavailable(code, outcome, required=required, fragment="not current for this revision (stale)")
    assert world.packets() == {handle}  # nothing new was minted

    fetched = world.fetch(handle)
    if required:
        assert_refused(fetched, "not current for this revision (stale)")
    else:  # the packet was prepared under an optional policy: fetch degrades, exit 0
        assert fetched.returncode == 0, fetched.stderr
        assert json.loads(fetched.stdout)["status"] == "optional_unavailable"
        assert "#L" not in fetched.stdout
    status_code, status = world.status()
    assert status_code == 1
    assert status["authorization"] == "unavailable"
    assert status["graph"]["state"] == "stale"


def test_packet_for_an_old_commit_loads_only_at_that_commit(world: World) -> None:
    """The library takes the consuming revision explicitly: the bound commit still loads."""
    first = world.head()
    handle = world.handle(world.session())
    write_files(world.repo, {"README.md": "moved\n"})
    moved = commit_all(world.repo, "move HEAD")
    store = ConnectionStore(world.state)
    with pytest.raises(Refusal, match="stale"):
        load_authorized(store, NAME, handle, "claude:builder", moved)
    assert load_authorized(store, NAME, handle, "claude:builder", first)["source_revision"] == first


# -- the consuming revision: other clones, no checkout ------------------------------------------


@pytest.mark.parametrize("required", [True, False], ids=["required", "optional"])
def test_second_clone_at_another_commit_is_refused(world: World, tmp_path: Path, required: bool) -> None:
    handle = world.handle(world.session("registered.json"))
    ahead = tmp_path / "clone-ahead"
    git(tmp_path, "clone", "-q", str(world.repo), str(ahead))
    write_files(ahead, {"example_pkg/loader.py": "other work\n"})
    commit_all(ahead, "work elsewhere")
    assert world.head(ahead) != world.head()

    session = world.session("ahead.json", directory=ahead, required=required)
    code, outcome = world.prepare(session, "parse_config")
    assert_unavailable(code, outcome, required=required, fragment="not current for this revision")
    assert_refused(world.fetch(handle, cwd=ahead), "not current for this revision")
    assert world.packets() == {handle}

    # A clone at an older commit the registered checkout knows: stale, not silently answered.
    behind = tmp_path / "clone-behind"
    git(tmp_path, "clone", "-q", str(world.repo), str(behind))
    write_files(world.repo, {"README.md": "registered moved on\n"})
    commit_all(world.repo, "registered moves")
    world.rebuild()
    fresh = world.handle(world.session("registered.json"), "parse_config", "--refresh")
    assert_refused(world.fetch(fresh, cwd=behind), "not current for this revision (stale)")
    code, outcome = world.prepare(world.session("behind.json", directory=behind, required=required), "load")
    assert_unavailable(code, outcome, required=required, fragment="(stale)")

    # What counts is the commit, not the directory: a clone at the graph's commit is served.
    same = tmp_path / "clone-same"
    git(tmp_path, "clone", "-q", str(world.repo), str(same))
    assert world.fetch(fresh, cwd=same).returncode == 0
    assert world.fetch(fresh).returncode == 0


@pytest.mark.parametrize("required", [True, False], ids=["required", "optional"])
def test_outside_a_git_checkout_is_refused(world: World, tmp_path: Path, required: bool) -> None:
    handle = world.handle(world.session("registered.json"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, outcome = world.prepare(world.session(directory=elsewhere, required=required), "parse_config")
    assert_unavailable(code, outcome, required=required, fragment="not in a git checkout")
    assert_refused(world.fetch(handle, cwd=elsewhere), "not in a git checkout")
    # A session directory that does not exist at all names no revision either.
    code, outcome = world.prepare(world.session(directory=tmp_path / "missing", required=required), "load")
    assert_unavailable(code, outcome, required=required, fragment="not in a git checkout")
    assert world.packets() == {handle}


# -- recipients -----------------------------------------------------------------------------------


def test_approved_recipients_read_byte_identical_evidence(world: World, tmp_path: Path) -> None:
    handle = world.handle(world.session(), "parse_config", "--question", "impact")
    # The request key leaves the recipient out: a reviewer's session reuses the builder's packet.
    code, reviewer = world.prepare(world.session("reviewer.json", recipient="codex:reviewer"),
                                   "parse_config", "--question", "impact")
    assert (code, reviewer["packet_handle"], reviewer["reused"]) == (0, handle, True)

    outputs = {}
    for recipient in ("claude:builder", "codex:reviewer", "devin:builder"):
        done = world.fetch(handle, recipient)
        assert done.returncode == 0, done.stderr
        outputs[recipient] = done.stdout.encode()
    assert len(set(outputs.values())) == 1
    evidence = outputs["claude:builder"]
    assert evidence.endswith(b"\n") and evidence.count(b"\n") == 1

    # The packet on disk carries the binding; the rendering drops it.
    assert NAME.encode() in world.packet_path(handle).read_bytes()
    for secret in (NAME, str(tmp_path), os.path.realpath(tmp_path), str(world.repo), str(world.state),
                   "checkout", "connections", ".p-", "binding", "repository_root", REPOSITORY, "issue-6"):
        assert secret.encode() not in evidence, secret
    value = json.loads(evidence)
    assert set(value) == {
        "schema", "kind", "retrieved_at", "source_revision", "source_built_at",
        "completeness", "truncated", "documents", "omissions",
    }
    # The seed: rendered evidence names no provider tool (the reference's §3.8 kept a
    # provider label; the seed wins).
    assert b"graphify" not in json.dumps(value).encode().lower()

    human = {world.fetch(handle, r, json_output=False).stdout for r in ("claude:builder", "devin:builder")}
    assert len(human) == 1

    assert_refused(world.fetch(handle, "cursor:builder"), "not approved")


def test_guided_sessions_only_serve_known_hosts_and_roles(world: World) -> None:
    # Approved, but not one of claude/codex/devin x orchestrator/builder/reviewer.
    code, outcome = world.prepare(world.session(recipient="cursor:orchestrator"), "parse_config")
    assert_unavailable(code, outcome, required=True, fragment="Guided sessions deliver only to")
    assert outcome["reason"] == "unauthorized"
    code, outcome = world.prepare(world.session(recipient="cursor:orchestrator", required=False), "parse_config")
    assert_unavailable(code, outcome, required=False, fragment="Guided sessions deliver only to")
    # A guided host and role that the operator did not approve.
    code, outcome = world.prepare(world.session(recipient="claude:orchestrator"), "parse_config")
    assert_unavailable(code, outcome, required=True, fragment="not approved")
    code, outcome = world.prepare(world.session(repository="owner/other"), "parse_config")
    assert_unavailable(code, outcome, required=True, fragment="not approved")
    assert world.packets() == set()
    assert not list(world.store_dir.glob(".i-*.json"))  # refused before anything was reserved

    # Plain `context fetch` only requires approval (§3.8), so the approved non-guided recipient reads.
    handle = world.handle(world.session())
    assert world.fetch(handle, "cursor:orchestrator").returncode == 0
    assert_refused(world.fetch(handle, "claude:orchestrator"), "not approved")


# -- expiry, tampering, privacy -------------------------------------------------------------------


def test_expired_packet_is_refused(world: World) -> None:
    handle = world.handle(world.session())
    store = ConnectionStore(world.state)
    revision = world.head()
    soon = datetime.now(UTC) + timedelta(seconds=60)
    assert load_authorized(store, NAME, handle, "claude:builder", revision, now=soon)["source_revision"] == revision
    later = datetime.now(UTC) + timedelta(seconds=3601)  # past the default max_age_seconds
    with pytest.raises(ConnectionRefusal, match="expired"):
        load_authorized(store, NAME, handle, "claude:builder", revision, now=later)
    earlier = datetime.now(UTC) - timedelta(seconds=60)  # before retrieval
    with pytest.raises(ConnectionRefusal, match="expired"):
        load_authorized(store, NAME, handle, "claude:builder", revision, now=earlier)


def test_packet_past_its_policy_age_is_refused_until_refresh(world: World) -> None:
    """A packet's age is now against its own recorded ``retrieved_at``: it is aged by recording it
    as retrieved earlier, never by sleeping against a budget a slow process start could spend,
    so no step here depends on how fast a ``cm-graph`` process starts."""
    session = world.session(max_age_seconds=600)
    handle = world.handle(session)
    assert world.fetch(handle).returncode == 0
    world.retrieved_earlier(handle, seconds=601)  # past the policy's age, before its expires_at
    assert_refused(world.fetch(handle), "expired")
    code, outcome = world.prepare(session, "parse_config")  # reuse fails; no automatic re-query
    assert_unavailable(code, outcome, required=True, fragment="expired")
    fresh = world.handle(session, "parse_config", "--refresh")
    assert fresh != handle
    assert world.fetch(fresh).returncode == 0


def test_tampered_or_exposed_packet_is_refused(world: World) -> None:
    handle = world.handle(world.session())
    path = world.packet_path(handle)
    original = path.read_bytes()
    offset = original.index(b"parse_config")
    with open(path, "r+b") as file:  # same inode, same mode, one byte changed
        file.seek(offset)
        file.write(b"P")
    assert_refused(world.fetch(handle), "does not match its recorded digest")
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(original[offset:offset + 1])
    assert world.fetch(handle).returncode == 0

    os.chmod(path, 0o640)
    assert_refused(world.fetch(handle), "owner-only")
    os.chmod(path, 0o604)
    assert_refused(world.fetch(handle), "owner-only")
    os.chmod(path, 0o600)
    assert world.fetch(handle).returncode == 0

    extra_link = world.base / "linked.json"
    os.link(path, extra_link)
    assert_refused(world.fetch(handle), "more than one link")
    extra_link.unlink()
    assert world.fetch(handle).returncode == 0

    path.unlink()
    assert_refused(world.fetch(handle), "missing or was invalidated")


def test_bad_handles_and_unknown_connections_are_refused(world: World) -> None:
    handle = world.handle(world.session())
    assert world.fetch(handle.upper()).returncode == 1
    assert world.fetch("../" + handle[3:]).returncode == 1
    assert_refused(world.fetch("0" * 32), "missing or was invalidated")
    done = run("context", "fetch", "--connection", "other", "--handle", handle, "--recipient", "claude:builder",
               "--state-dir", world.state, "--json", cwd=world.repo)
    assert_refused(done, "No such connection")
    result = cli("connection-status", "--connection", "other", "--state-dir", world.state, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["reason"] == "not_configured"


# -- disconnect, reconnect ------------------------------------------------------------------------


def test_disconnect_purges_and_reconnect_works(world: World) -> None:
    session = world.session()
    handles = {world.handle(session, target) for target in ("parse_config", "load")}
    assert world.packets() == handles
    assert world.status()[0] == 0

    again = world.connect("claude:builder")
    assert again.exit_code == 1
    assert "disconnect it before changing it" in again.stderr
    assert json.loads((world.store_dir / f"{NAME}.json").read_bytes())["recipients"] == list(APPROVED)

    result = cli("disconnect", "--connection", NAME, "--state-dir", world.state, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["status"] == "disconnected"
    assert (summary["packet_cleanup"], summary["search"]) == ("complete", "unavailable")
    assert world.packets() == set()
    assert world.index()["entries"] == []
    assert json.loads((world.store_dir / f"{NAME}.json").read_bytes())["state"] == "disconnected"

    for handle in handles:
        assert_refused(world.fetch(handle), "disconnected")
    code, outcome = world.prepare(session, "parse_config")
    assert_unavailable(code, outcome, required=True, fragment="disconnected")
    code, outcome = world.prepare(world.session("optional.json", required=False), "parse_config")
    assert_unavailable(code, outcome, required=False, fragment="disconnected")
    status_code, status = world.status()
    assert status_code == 1
    assert (status["status"], status["authorization"]) == ("disconnected", "unavailable")
    assert status["query_reader"]["reason"] == "disconnected"

    reconnected = world.connect("claude:builder", "devin:builder")
    assert reconnected.exit_code == 0, reconnected.output
    assert json.loads(reconnected.stdout)["status"] == "verified"
    assert world.status()[0] == 0
    for handle in handles:
        assert_refused(world.fetch(handle), "missing or was invalidated")
    fresh = world.handle(session)
    assert fresh not in handles
    assert world.fetch(fresh, "devin:builder").returncode == 0
    assert_refused(world.fetch(fresh, "codex:reviewer"), "not approved")  # no longer approved


def test_failed_purge_needs_attention_and_blocks_reconnect(world: World) -> None:
    session = world.session()
    stuck, gone = world.handle(session, "parse_config"), world.handle(session, "load")
    world.packet_path(stuck).unlink()
    world.packet_path(stuck).mkdir()  # a packet path that unlink() cannot remove

    result = cli("disconnect", "--connection", NAME, "--state-dir", world.state, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["packet_cleanup"] == "needs_attention"
    assert world.packets() == {stuck}
    assert [entry["handle"] for entry in world.index()["entries"]] == [stuck]  # kept for the retry

    refused = world.connect()
    assert refused.exit_code == 1
    assert json.loads(refused.stdout)["reason"] == "needs_attention"
    assert json.loads((world.store_dir / f"{NAME}.json").read_bytes())["state"] == "disconnected"
    assert_refused(world.fetch(gone), "disconnected")

    world.packet_path(stuck).rmdir()
    assert world.connect().exit_code == 0
    assert world.index()["entries"] == []
    for handle in (stuck, gone):
        assert_refused(world.fetch(handle), "missing or was invalidated")


def test_connection_status_exit_codes(world: World) -> None:
    assert world.status()[0] == 0
    removed = cli("remove", "--repo-path", world.repo, "--state-dir", world.state)
    assert removed.exit_code == 0, removed.output
    code, status = world.status()
    assert (code, status["authorization"], status["graph"]["state"]) == (1, "unavailable", "absent")
    code, outcome = world.prepare(world.session(), "parse_config")
    assert_unavailable(code, outcome, required=True, fragment="(absent)")
    code, outcome = world.prepare(world.session(required=False), "parse_config")
    assert_unavailable(code, outcome, required=False, fragment="(absent)")
    world.rebuild()
    assert world.status()[0] == 0
    assert world.handle(world.session("again.json"))


def test_connection_status_carries_the_reader_incompatible_remediation(world: World) -> None:
    """A generation from an unreviewed provider holding a node type this reader lacks: the
    connection's status says why search is unavailable and how to get it back."""
    graph = g0_graph()
    graph["nodes"].append(node("n-holo", "holo", "example_pkg/config.py", "L3", file_type="hologram"))
    out = write_output(world.base / "graphify-out", graph, inventory_for(world.repo, code_paths(world.repo)))
    unreviewed = ProviderPin("graphifyy", "0.9.60", "ab" * 32, REQUIRED_OPTIONS)
    # made by another tool: our own build --from-graph refuses a graph this reader cannot read
    publish_unchecked(Workspace.locate(world.repo, world.state), out, provider=unreviewed)
    code, status = world.status()
    assert (code, status["authorization"]) == (1, "unavailable")
    reader = status["query_reader"]
    assert (reader["search"], reader["reader"]) == ("unavailable", "incompatible")
    assert reader["reason"] == "reader_incompatible"
    remediation = reader["remediation"]
    assert remediation["generation_provider"] == "graphifyy==0.9.60"
    assert remediation["reader_provider_versions"] == ["0.9.58"]
    assert "graphifyy==0.9.58" in remediation["action"]
    assert reader["next_action"] == remediation["action"]


# -- the packet store -----------------------------------------------------------------------------


def wide_graph(count: int) -> dict[str, Any]:
    """G0 plus ``count`` functions in loader.py that each call parse_config."""
    graph = g0_graph()
    for n in range(1, count + 1):
        graph["nodes"].append(node(f"n-fn-{n:02d}", f"fn_{n:02d}", "example_pkg/loader.py", f"L{n}"))
        graph["edges"].append(edge(f"n-fn-{n:02d}", "n-config", "calls", "EXTRACTED"))
    return graph


def test_store_keeps_at_most_16_entries_evicting_the_oldest(tmp_path: Path) -> None:
    world = make_world(tmp_path, wide_graph(17))
    session = world.session()
    handles = [world.handle(session, f"fn_{n:02d}") for n in range(1, 18)]
    assert len(set(handles)) == 17

    entries = world.index()["entries"]
    assert len(entries) == 16
    assert [entry["handle"] for entry in entries] == handles[1:]
    assert [entry["request"]["query"] for entry in entries] == [f"fn_{n:02d}" for n in range(2, 18)]
    assert world.packets() == set(handles[1:])
    assert_refused(world.fetch(handles[0]), "missing or was invalidated")
    for handle in (handles[1], handles[-1]):
        assert world.fetch(handle).returncode == 0

    # The evicted request is answered again (as the newest) and the next-oldest goes.
    code, outcome = world.prepare(session, "fn_01")
    assert (code, outcome["reused"]) == (0, False)
    assert [entry["handle"] for entry in world.index()["entries"]] == [*handles[2:], outcome["packet_handle"]]
    assert len(world.packets()) == 16

    # A failed answer is recorded, counts as an entry, and blocks reuse until --refresh.
    code, outcome = world.prepare(session, "no_such_symbol")
    assert_unavailable(code, outcome, required=True, fragment="names no symbol")
    entries = world.index()["entries"]
    assert len(entries) == 16
    assert entries[-1]["reference"] is None and entries[-1]["failure_reason"] == "unresolved"
    code, outcome = world.prepare(session, "no_such_symbol")
    assert_unavailable(code, outcome, required=True, fragment="use an explicit refresh")
    assert len(world.packets()) == 15


def _check_index(world: World, expected: set[str]) -> None:
    raw = next(world.store_dir.glob(".i-*.json")).read_bytes()
    index = json.loads(raw)  # valid JSON, never a torn write
    assert index["schema"] == "code_mower.contextPacketIndex.v1"
    handles = [entry["handle"] for entry in index["entries"]]
    assert len(handles) == len(set(handles))
    assert set(handles) == expected
    assert len({entry["key"] for entry in index["entries"]}) == len(handles)
    for entry in index["entries"]:
        data = world.packet_path(entry["handle"]).read_bytes()
        assert entry["reference"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert world.packets() == expected
    assert not list(world.store_dir.glob(".*.tmp"))  # no staging file left behind


def _prepare_together(world: World, session: Path, targets: tuple[str, str]) -> Iterator[dict[str, Any]]:
    args = [str(CM_GRAPH), "session", "prepare", str(session), "--question", "symbol", "--query-stdin",
            "--state-dir", str(world.state), "--json"]
    procs = [subprocess.Popen(args, cwd=world.base, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in targets]
    for proc, target in zip(procs, targets, strict=True):  # release both only once both are running
        assert proc.stdin is not None
        proc.stdin.write(target + "\n")
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        stdout, stderr = proc.stdout.read(), proc.stderr.read()  # a few hundred bytes each
        assert proc.wait(timeout=120) == 0, (stdout, stderr)
        proc.stdout.close()
        proc.stderr.close()
        yield json.loads(stdout)


def test_concurrent_prepares_never_corrupt_the_store(world: World) -> None:
    session = world.session()
    expected: set[str] = set()
    pairs = [SYMBOL_TARGETS[i:i + 2] for i in range(0, 8, 2)]
    for pair in pairs:
        outcomes = list(_prepare_together(world, session, (pair[0], pair[1])))
        assert all(o["status"] == "available" and o["reused"] is False for o in outcomes)
        handles = {o["packet_handle"] for o in outcomes}
        assert len(handles) == 2
        expected |= handles
        _check_index(world, expected)
    assert len(world.index()["entries"]) == 8

    # The same request twice at once: one answers, the other waits for the lock and reuses it.
    outcomes = list(_prepare_together(world, session, ("tests/test_config.py", "tests/test_config.py")))
    assert len({o["packet_handle"] for o in outcomes}) == 1
    assert sorted(o["reused"] for o in outcomes) == [False, True]
    expected.add(outcomes[0]["packet_handle"])
    _check_index(world, expected)
    for handle in expected:
        assert world.fetch(handle).returncode == 0


# -- session files --------------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["extra key", "missing key", "relative directory", "schema", "policy"])
def test_malformed_session_files_are_refused(world: World, change: str) -> None:
    path = world.session()
    value = json.loads(path.read_text())
    if change == "extra key":
        value["principal"] = "someone"
    elif change == "missing key":
        del value["directory"]
    elif change == "relative directory":
        value["directory"] = "checkout"
    elif change == "schema":
        value["schema"] = "cm_graph.session.v2"
    else:
        value["policy"] = "required"
    path.write_text(json.dumps(value))
    result = cli("session", "prepare", path, "--query-stdin", "--state-dir", world.state, "--json",
                 stdin="parse_config\n")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "refused"
    assert world.packets() == set()


def test_prepare_needs_the_target_on_stdin(world: World) -> None:
    result = cli("session", "prepare", world.session(), "--state-dir", world.state, "--json")
    assert result.exit_code == 1
    assert "stdin" in result.stderr


# -- the store's layout: the reference's, with the old location still read --------------------------


def _write_private(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())


def _reference_state(world: World, name: str, **changes: Any) -> dict[str, Any]:
    """A connection state as the reference writes it (its §3.2 key set, nothing of ours)."""
    return {
        "schema": "code_mower.contextLocalGraphConnection.v1", "connection": name, "provider": "graphify",
        "kind": "repository", "state": "verified", "repository_root": os.path.realpath(world.repo),
        "repositories": [REPOSITORY], "recipients": list(APPROVED), **changes,
    }


def test_a_connection_laid_out_as_the_reference_lays_it_is_found(world: World) -> None:
    """The reference keeps ``<name>.json`` directly in the state root, beside ``graph/``."""
    _write_private(world.state / "theirs.json", _reference_state(world, "theirs"))
    result = cli("connection-status", "--connection", "theirs", "--state-dir", world.state, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["authorization"] == "available"
    # and ours is written there too: no connections/ directory at all
    assert (world.state / f"{NAME}.json").is_file()
    assert not (world.state / "connections").exists()


def test_a_connection_in_the_old_location_is_still_read_and_moves_on_reconnect(world: World) -> None:
    legacy = world.state / "connections"
    _write_private(legacy / "older.json", _reference_state(world, "older"))
    result = cli("connection-status", "--connection", "older", "--state-dir", world.state, "--json")
    assert result.exit_code == 0, result.output
    session = world.base / "older-session.json"
    document = json.loads(world.session().read_text())
    document["connection"] = document["policy"]["connection"] = "older"
    session.write_text(json.dumps(document))
    handle = world.handle(session)
    assert (legacy / f".p-{handle}.json").is_file(), "a legacy connection keeps all its files together"
    fetched = run("context", "fetch", "--connection", "older", "--handle", handle, "--recipient", "claude:builder",
                  "--state-dir", world.state, "--json", cwd=world.repo)
    assert fetched.returncode == 0, fetched.stderr

    # both places: the state root wins
    _write_private(world.state / "older.json", _reference_state(world, "older", recipients=["codex:reviewer"]))
    status = json.loads(cli("connection-status", "--connection", "older", "--state-dir", world.state,
                            "--json").stdout)
    assert status["recipients"] == ["codex:reviewer"]
    (world.state / "older.json").unlink()

    # disconnect purges it where it lives; reconnect writes it to the state root and drops the old files
    assert cli("disconnect", "--connection", "older", "--state-dir", world.state).exit_code == 0
    assert not (legacy / f".p-{handle}.json").exists()
    reconnected = cli("connect", "--connection", "older", "--repository", REPOSITORY, "--recipient", "claude:builder",
                      "--repo-path", world.repo, "--state-dir", world.state)
    assert reconnected.exit_code == 0, reconnected.output
    assert json.loads((world.state / "older.json").read_bytes())["state"] == "verified"
    assert not (legacy / "older.json").exists()
    assert not list(legacy.glob(".i-*.json"))
