"""Every I/O fault is a reason code, one sentence and exit 1, on every command; never a traceback.

Real faults, not simulated ones: a read-only bind mount of the state root, a tiny tmpfs that is
full, a directory or symlink standing where a file belongs, a connection store holding the wrong
JSON types. Each case runs the installed ``cm-graph`` as a subprocess, because a traceback is what
the interpreter prints when nothing catches an exception, and only a real process shows that.
Mounting needs root (CAP_SYS_ADMIN); where it is not permitted, those cases skip.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from cm_graph.base.errors import Refusal
from cm_graph.cli.command_table import COMMANDS
from cm_graph.generation.layout import Workspace
from cm_graph.provider.run import default_executable, verify_provider

from ..support.g0 import g0_graph, make_g0_repo
from ..support.helpers import CM_GRAPH, code_paths, inventory_for, publish, run_installed, write_output

NAME = "local-graph"
REASON_LINE = re.compile(r"^cm-graph: [a-z_]+: [^/]+$")


def _mount(*args: str) -> bool:
    done = subprocess.run(["mount", *args], capture_output=True, check=False)
    return done.returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


@contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """``directory`` bind-mounted read-only over itself (skips where mounting is not permitted)."""
    if not _mount("--bind", str(directory), str(directory)):
        pytest.skip("bind mounts need root (CAP_SYS_ADMIN)")
    try:
        if not _mount("-o", "remount,bind,ro", str(directory)):
            pytest.skip("read-only remount is not permitted here")
        yield
    finally:
        _umount(directory)


@contextmanager
def small_tmpfs(directory: Path, size: str = "2m") -> Iterator[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(directory)):
        pytest.skip("mounting a tmpfs needs root (CAP_SYS_ADMIN)")
    try:
        yield directory
    finally:
        _umount(directory)


def fill(directory: Path) -> None:
    """Write until the file system says ENOSPC, down to its last block."""
    fd = os.open(directory / "ballast", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (1 << 20, 1 << 16, 1 << 12, 1 << 9, 1):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError:
                pass
    finally:
        os.close(fd)


@dataclass
class World:
    """A G0 checkout with an indexed generation, an authorization file, a connection and a session."""

    base: Path
    repo: Path
    state: Path

    def where(self) -> list[Any]:
        return ["--repo-path", self.repo, "--state-dir", self.state]

    def run(self, *args: Any, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        if stdin is None:
            return run_installed(*args, cwd=self.repo)
        return subprocess.run(
            [str(CM_GRAPH), *(str(arg) for arg in args)], cwd=self.repo, input=stdin,
            capture_output=True, text=True, timeout=120, check=False,
        )

    @property
    def workspace(self) -> Workspace:
        return Workspace.locate(self.repo, self.state)

    def session(self, policy_connection: str = NAME, *, required: bool = True) -> Path:
        path = self.base / "session.json"
        path.write_text(json.dumps({
            "schema": "cm_graph.session.v1", "connection": NAME, "repository": "owner/repo",
            "work_item": "issue-6", "recipient": "claude:builder", "directory": str(self.repo),
            "policy": {"schema": "code_mower.contextPolicy.v1", "connection": policy_connection,
                       "policy_version": "v1", "required": required},
        }))
        return path

    def authorization(self) -> Path:
        done = self.run("auth", "init", "--connection", NAME, "--repository", "owner/repo",
                        "--recipient", "claude:builder", *self.where())
        assert done.returncode == 0, done.stderr
        path = self.base / "auth.json"
        path.write_text(done.stdout)
        return path

    def graph_output(self) -> Path:
        return write_output(self.base / "graphify-out", g0_graph(), inventory_for(self.repo, code_paths(self.repo)))


def make_world(base: Path, state: Path | None = None) -> World:
    world = World(base, make_g0_repo(base / "checkout"), state or base / "state")
    publish(world.repo, world.state, g0_graph())
    assert world.run("index", *world.where()).returncode == 0
    connected = world.run("connect", "--connection", NAME, "--repository", "owner/repo",
                          "--recipient", "claude:builder", *world.where())
    assert connected.returncode == 0, connected.stderr
    return world


def assert_reasoned(done: subprocess.CompletedProcess[str], reason: str | None = None) -> None:
    """Exit 1, no traceback, and a last stderr line ``cm-graph: <reason>: <sentence>`` naming no path."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, (done.stdout, done.stderr)
    last = done.stderr.strip().splitlines()[-1]
    assert REASON_LINE.match(last), last
    if reason is not None:
        assert last.startswith(f"cm-graph: {reason}: "), last


# -- a read-only state root, every command ----------------------------------------------------

# (command words, arguments) -> what a read-only state root does to it: "read_only" for a command
# that must write state (exit 1, reason read_only), "reads" for one that only reads (it still
# answers, exit 0: read-only state is a fine place to ask questions of an indexed generation).
def recorded_answer(world: World) -> str:
    """The answer id of one answer with an outcome on record (so the store exists to be read)."""
    asked = world.run("context", "how", "load", *world.where(), "--json")
    answer = json.loads(asked.stdout)["answer_id"]
    done = world.run("feedback", "record", "--intent", "how", "--target", "load", "--answer-id", answer,
                     "--reads-avoided", "1", "--files-read", "0", "--correct", *world.where())
    assert done.returncode == 0, done.stderr
    return str(answer)


def ro_table(
    world: World, auth: Path, session: Path, out: Path, answer: str
) -> dict[str, tuple[list[Any], str, str | None]]:
    where = world.where()
    state = ["--state-dir", world.state]
    return {
        "feedback record": (["feedback", "record", "--intent", "how", "--target", "load", "--answer-id", answer,
                             "--reads-avoided", "1", "--files-read", "0", "--correct", "--client", "another",
                             *where], "read_only", None),
        "feedback report": (["feedback", "report", *where], "reads", None),
        "feedback export": (["feedback", "export", *where], "reads", None),
        "feedback purge": (["feedback", "purge", *where], "read_only", None),
        "eval run": (["eval", "run", *where], "reads", None),
        "agents init": (["agents", "init", "--connection", "ro-agents", *where], "read_only", None),  # connects
        "agents remove": (["agents", "remove", *where], "reads", None),  # the checkout's files only
        "index --rebuild": (["index", "--rebuild", *where], "read_only", None),
        "index": (["index", *where], "reads", None),
        "build": (["build", "--from-graph", out, "--keep-previous", *where], "read_only", None),
        # without the pinned provider, refresh is refused before it reaches the state (any reason)
        "refresh": (["refresh", *where], "read_only" if provider_installed() else "refused", None),
        "query": (["query", "--question", "impact", "--target", "parse_config", "--authorization", auth,
                   "--packet-out", world.base / "packet.json", *where], "reads", None),
        "ask": (["ask", "impact", "parse_config", *where], "reads", None),
        "symbols": (["symbols", "example_pkg/config.py", *where], "reads", None),
        "changes": (["changes", *where], "reads", None),
        "status": (["status", *where], "reads", None),
        "remove": (["remove", *where], "read_only", None),
        "doctor": (["doctor", *where], "reads", None),
        "audit": (["audit", *where], "read_only", None),
        "diff": (["diff", "HEAD", "HEAD", *where], "reads", None),
        "export": (["export", *where], "reads", None),
        "score": (["score", world.base / "packet.json", "--repo-path", world.repo], "reads", None),
        "connect": (["connect", "--connection", "another", "--repository", "owner/repo", "--recipient",
                     "claude:builder", *where], "read_only", None),
        "connection-status": (["connection-status", "--connection", NAME, *state], "reads", None),
        "disconnect": (["disconnect", "--connection", NAME, *state], "read_only", None),
        "version": (["version"], "reads", None),
        "auth init": (["auth", "init", "--connection", NAME, "--repository", "owner/repo", "--recipient",
                       "claude:builder", *where], "reads", None),
        "auth init --out": (["auth", "init", "--connection", NAME, "--repository", "owner/repo", "--recipient",
                             "claude:builder", *where, "--out", world.state / "auth.json"], "read_only", None),
        "session init": (["session", "init", world.state / "s.json", "--connection", NAME, "--repository",
                          "owner/repo", "--recipient", "claude:builder", "--work-item", "w"], "read_only", None),
        "session prepare": (["session", "prepare", session, "--query-stdin", *state], "read_only",
                            "parse_config\n"),
        "context fetch": (["context", "fetch", "--connection", NAME, "--handle", "0" * 32,
                           "--recipient", "claude:builder", *state], "read_only", None),
        "fleet add": (["fleet", "add", "ro", "--repo-path", world.repo, *state], "read_only", None),
        "tests record": (["tests", "record", *where], "read_only", None),
        "fleet list": (["fleet", "list", "ro", *state], "refused", None),  # no such fleet
        # Without the optional extra, ``mcp`` refuses first (extra_missing), before any state is read.
        "mcp --http": (["mcp", "--connection", NAME, "--recipient", "claude:builder", "--http", *state],
                       "read_only" if find_spec("mcp") else "refused", None),
    }


def provider_installed() -> bool:
    try:
        verify_provider(default_executable())
    except Refusal:
        return False
    return True


def test_every_command_on_a_read_only_state_root(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    auth, session, out = world.authorization(), world.session(), world.graph_output()
    table = ro_table(world, auth, session, out, recorded_answer(world))
    assert {words.split()[0] for words in table} == {command.name for command in COMMANDS}, "a command is missing"
    with read_only(world.state):
        for words, (args, expected, stdin) in table.items():
            done = world.run(*args, stdin=stdin)
            assert "Traceback" not in done.stderr, (words, done.stderr)
            if expected == "reads":
                assert done.returncode == 0, (words, done.stdout, done.stderr)
            elif expected == "refused":
                assert_reasoned(done)
            else:
                assert_reasoned(done, "read_only")
                assert str(world.state) not in done.stderr and str(world.state) not in done.stdout, words
    # Nothing was lost: the generation still answers once the mount is gone.
    assert world.run("status", *world.where()).returncode == 0


def test_a_read_only_store_degrades_optional_evidence_and_pauses_required(tmp_path: Path) -> None:
    """``context fetch`` reports a machine fault as it reports any unavailable evidence."""
    world = make_world(tmp_path)
    handles = {}
    for required in (True, False):
        done = world.run("session", "prepare", world.session(required=required), "--query-stdin",
                         "--state-dir", world.state, "--json", stdin="parse_config\n")
        assert done.returncode == 0, done.stderr
        handles[required] = json.loads(done.stdout)["packet_handle"]
    with read_only(world.state):
        for required, (code, status) in {True: (1, "required_unavailable"), False: (0, "optional_unavailable")}.items():
            done = world.run("context", "fetch", "--connection", NAME, "--handle", handles[required],
                             "--recipient", "claude:builder", "--state-dir", world.state, "--json")
            assert "Traceback" not in done.stderr
            assert done.returncode == code, (done.stdout, done.stderr)
            outcome = json.loads(done.stdout)
            assert (outcome["status"], outcome["reason"]) == (status, "read_only")
            assert "#L" not in done.stdout


# -- a full disk --------------------------------------------------------------------------------


def test_a_full_disk_is_disk_full_for_packets_and_the_connection_store(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "small") as small:
        world = make_world(tmp_path, state=small / "state")
        auth = world.authorization()
        (small / "out").mkdir()
        fill(small)
        packet = small / "out" / "packet.json"
        done = world.run("query", "--question", "impact", "--target", "parse_config", "--authorization", auth,
                         "--packet-out", packet, *world.where())
        assert_reasoned(done)
        assert os.listdir(small / "out") == []  # no half-written packet, no staging file
        assert_reasoned(world.run("session", "prepare", world.session(), "--query-stdin", "--state-dir",
                                  world.state, stdin="parse_config\n"), "disk_full")
        assert_reasoned(world.run("connect", "--connection", "another", "--repository", "owner/repo",
                                  "--recipient", "claude:builder", *world.where()), "disk_full")
        leftovers = [name for name in os.listdir(world.state) if name.endswith(".tmp")]
        assert leftovers == []
        os.unlink(small / "ballast")
        assert world.run("status", *world.where()).returncode == 0


# -- a directory, or a symlink, where a file belongs ------------------------------------------------


def test_a_directory_where_a_file_is_expected(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    assert_reasoned(world.run("query", "--question", "impact", "--target", "parse_config",
                              "--authorization", ".", *world.where()))
    assert_reasoned(world.run("score", "."))
    assert_reasoned(world.run("session", "prepare", ".", "--query-stdin", "--state-dir", world.state,
                              stdin="parse_config\n"))


def test_an_index_replaced_by_a_directory(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    auth = world.authorization()
    [index] = world.workspace.indexes_dir.glob("*.sqlite")
    index.unlink()
    index.mkdir()
    for args in (["status"], ["index"], ["ask", "impact", "parse_config"], ["doctor"], ["audit"],
                 ["diff", "HEAD", "HEAD"], ["export"],
                 ["query", "--question", "impact", "--target", "parse_config", "--authorization", auth]):
        done = world.run(*args, *world.where())
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.returncode == 1, (args, done.stdout, done.stderr)


def test_a_lock_that_is_a_symlink_or_a_directory(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    lock = world.workspace.lock_path
    lock.unlink(missing_ok=True)
    victim = tmp_path / "victim"
    lock.symlink_to(victim)
    assert_reasoned(world.run("build", "--from-graph", world.graph_output(), "--keep-previous", *world.where()))
    assert not victim.exists()
    lock.unlink()
    lock.mkdir()
    assert_reasoned(world.run("remove", *world.where()))
    assert world.run("status", *world.where()).returncode == 0


# -- the connection store holding the wrong JSON types ----------------------------------------------


def _store_file(world: World, pattern: str) -> Path:
    found = [p for p in world.state.rglob(pattern) if "graph" not in p.relative_to(world.state).parts]
    assert len(found) == 1, found
    return found[0]


def _rewrite(path: Path, value: Any) -> None:
    path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(json.dumps(value).encode())


STATE_DAMAGE: dict[str, Any] = {
    "repository_root-a-number": {"repository_root": 5},
    "repository_root-relative": {"repository_root": "checkout"},
    "repositories-null": {"repositories": None},
    "recipients-a-string": {"recipients": "claude:builder"},
}
INDEX_DAMAGE: dict[str, Any] = {
    "entry-a-string": lambda entries: ["not an entry"],
    "request-a-string": lambda entries: [{**entries[0], "request": "parse_config"}],
    "handle-a-number": lambda entries: [{**entries[0], "handle": 7}],
}
PACKET_DAMAGE: dict[str, Any] = {
    "binding-a-list": lambda packet: {**packet, "binding": []},
    "retrieved_at-missing": lambda packet: {k: v for k, v in packet.items() if k != "retrieved_at"},
    "retrieved_at-without-timezone": lambda packet: {**packet, "retrieved_at": "2026-01-01T12:00:00"},
}


def _prepared(world: World) -> str:
    done = world.run("session", "prepare", world.session(), "--query-stdin", "--state-dir", world.state,
                     "--json", stdin="parse_config\n")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["packet_handle"]


def _fetch(world: World, handle: str) -> subprocess.CompletedProcess[str]:
    return world.run("context", "fetch", "--connection", NAME, "--handle", handle, "--recipient",
                     "claude:builder", "--state-dir", world.state, "--json")


@pytest.mark.parametrize("damage", [*STATE_DAMAGE, *INDEX_DAMAGE, *PACKET_DAMAGE])
def test_wrong_json_types_in_the_connection_store(tmp_path: Path, damage: str) -> None:
    world = make_world(tmp_path)
    handle = _prepared(world)
    if damage in STATE_DAMAGE:
        path = _store_file(world, f"{NAME}.json")
        _rewrite(path, {**json.loads(path.read_bytes()), **STATE_DAMAGE[damage]})
        assert_reasoned(world.run("connection-status", "--connection", NAME, "--state-dir", world.state))
    elif damage in INDEX_DAMAGE:
        path = _store_file(world, ".i-*.json")
        index = json.loads(path.read_bytes())
        _rewrite(path, {**index, "entries": INDEX_DAMAGE[damage](index["entries"])})
    else:
        path = _store_file(world, f".p-{handle}.json")
        _rewrite(path, PACKET_DAMAGE[damage](json.loads(path.read_bytes())))
        # the packet no longer matches its recorded digest either way; re-record it so the shape
        # check itself is what refuses
        index_path = _store_file(world, ".i-*.json")
        index = json.loads(index_path.read_bytes())
        index["entries"][0]["reference"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        _rewrite(index_path, index)
    done = _fetch(world, handle)
    assert_reasoned(done)
    assert "#L" not in done.stdout


def _console(args: list[bytes], cwd: Path, state: Path) -> subprocess.CompletedProcess[bytes]:
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    return subprocess.run([bytes(CM_GRAPH), *args], cwd=cwd, env=env | {"CM_GRAPH_HOME": str(state)},
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=120, check=False)


@pytest.mark.parametrize("argument", [b"/nonexistent\xff", b"caf\xe9", b"\xed\xa0\x80", b"a\xc3"])
def test_an_argument_that_is_not_utf8_is_a_usage_error(tmp_path: Path, argument: bytes) -> None:
    """The shell can hand over bytes no text holds (a latin-1 file name): every name and path
    cm-graph takes is text it writes into files and answers, so such an argument is refused in
    one line, whichever command and position it is in, before anything is read."""
    repo = make_g0_repo(tmp_path / "repo")
    for args in ([b"status", b"--repo-path", argument], [b"remove", b"--repo-path", argument],
                 [b"ask", b"impact", argument], [b"query", b"--question", b"impact", b"--target", argument,
                                                  b"--authorization", b"a.json", b"--packet-out", b"p.json"],
                 [b"auth", b"init", b"--connection", argument, b"--repository", b"a", b"--recipient", b"b"]):
        done = _console(args, repo, tmp_path / "state")
        stderr = done.stderr.decode()
        assert done.returncode == 2 and done.stdout == b"", (args, stderr)
        assert stderr.startswith("cm-graph: usage: ") and len(stderr.splitlines()) == 1, (args, stderr)
        assert "Traceback" not in stderr and "not UTF-8" in stderr, (args, stderr)


def test_a_checkout_whose_path_is_not_utf8_is_refused_in_one_sentence(tmp_path: Path) -> None:
    """A checkout unpacked under a directory name that is not UTF-8 (from cwd, never an
    argument): the workspace id, the connection file and every answer name its path as text, so
    each command refuses it in one sentence that says so, never with a traceback."""
    repo = make_g0_repo(Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9")))
    for args in ([b"status"], [b"ask", b"impact", b"parse_config"], [b"context", b"usage", b"parse_config"],
                 [b"build", b"--from-graph", b"/nonexistent"], [b"remove"],
                 [b"connect", b"--connection", b"latin", b"--repository", b"o/r", b"--recipient", b"claude:builder"],
                 [b"fleet", b"add", b"latin", b"--repo-path", b"."]):
        done = _console(args, repo, tmp_path / "state")
        stderr = done.stderr.decode()
        assert done.returncode == 1 and "Traceback" not in stderr, (args, stderr)
        assert stderr == "cm-graph: invalid: The checkout's path is not UTF-8 text; move or rename it to a UTF-8 " \
                         "path (cm-graph names the checkout in its state and its answers).\n", (args, stderr)
