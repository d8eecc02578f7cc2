"""The fleet category of the issue-25 sweep (``adversarial2.py``): a hostile operator's state and
a hostile agent's recipient, against the fleet's evidence rule and its derived, sealed index.

Three real checkouts (``fleetkit``) with real generations under one state root: ``lib`` (the
agent's own, joined by the server's connection ``local-graph`` naming ``claude:builder``), ``app``
(joined by the connection ``app-graph``, which names only ``codex:reviewer``) and ``other``
(joined by its path). ``app`` imports ``lib``'s ``helper``, so every answer about ``helper`` could
carry ``app``'s evidence; for ``claude:builder`` none may, whatever was done between two calls.
Each trial starts from a copy of the whole tree (checkouts and state at the same paths) and asks
through the surfaces' own ``call_tool`` (what ``cm-graph mcp`` and REST run) and the CLI.

A trial *holds* when nothing crashed (no traceback, no ``internal`` refusal), no evidence of a
member the caller may not see reached it, and an answer over a tampered index is the honest one.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

from cm_graph.base.errors import Refusal
from cm_graph.connections.store import Connection, ConnectionStore, connect, disconnect
from cm_graph.fleet.build import open_fleet
from cm_graph.fleet.members import add_member, member_from
from cm_graph.generation.layout import Workspace
from cm_graph.index.ensure import ensure_index
from cm_graph.index.seal import write_derived_seal
from cm_graph.surfaces.authority import Caller
from cm_graph.surfaces.dispatch import call_tool
from cm_graph.surfaces.tools import BY_NAME

from .adversarial import Tally, cli, unclean
from .fleetkit import make_fleet_repos
from .helpers import git

BUILDER, REVIEWER = "claude:builder", "codex:reviewer"
APP_EVIDENCE = ("app/main.py", "app/__init__.py")  # no path of app may reach claude:builder
CALLS = (("code_context", {"target": "helper", "intent": "usage"}), ("cross_repo_usages", {"symbol": "helper"}),
         ("graph_status", {"fleet": "deps"}), ("code_context", {"target": "Client", "intent": "impact"}))


class Fleet:
    """The three checkouts and their state, restorable to the state they were made in."""

    def __init__(self, base: Path) -> None:
        self.base, self.live = base / "snapshot", base / "live"
        self.state = self.live / "state"
        repos = make_fleet_repos(self.live, self.state)
        self.repos = repos
        for repo in repos.values():
            ensure_index(Workspace.locate(repo, self.state))
        store = ConnectionStore(self.state)
        connect(store, "local-graph", repos["lib"], ["acme/lib"], [BUILDER])
        connect(store, "app-graph", repos["app"], ["acme/app"], [REVIEWER])
        for connection, path, name in (("local-graph", None, None), ("app-graph", None, None),
                                       (None, repos["other"], None)):
            add_member(self.state, "deps", member_from(self.state, connection=connection, repo_path=path,
                                                       repository=name))
        self.honest = self.usages("helper")
        shutil.copytree(self.live, self.base, symlinks=True)

    def restore(self) -> None:
        shutil.rmtree(self.live)
        shutil.copytree(self.base, self.live, symlinks=True)

    @property
    def store(self) -> ConnectionStore:
        return ConnectionStore(self.state)

    def usages(self, symbol: str) -> dict[str, Any]:
        """The operator's answer (every member read), from the fleet index as it is now."""
        from cm_graph.fleet.usages import cross_repo_usages

        index = open_fleet(self.state, "deps")
        try:
            return cross_repo_usages(index, symbol)
        finally:
            index.close()

    def index_path(self) -> Path:
        index = open_fleet(self.state, "deps")
        index.close()
        return index.path

    def calls(self, recipient: str = BUILDER) -> list[tuple[str, dict[str, Any], bool]]:
        """Every fleet-reading tool, as the server for ``recipient`` answers it: (tool, reply, error)."""
        caller = Caller(self.state, "local-graph", recipient)
        return [(name, (reply := call_tool(caller, BY_NAME[name], dict(arguments))).payload, reply.is_error)
                for name, arguments in CALLS]


def withheld(fleet: Fleet, recipient: str = BUILDER) -> str | None:
    """None when no reply to ``recipient`` carries app's evidence and none is a fault."""
    for name, payload, _ in fleet.calls(recipient):
        if payload.get("reason") == "internal":
            return f"{name} failed inside (internal): {payload.get('detail')}"
        text = json.dumps(payload)
        leaked = [path for path in APP_EVIDENCE if path in text]
        if leaked:
            return f"{name} gave {recipient} app's evidence ({leaked[0]}) though app's connection does not name it"
    return None


def shown_to_builder(fleet: Fleet) -> bool:
    """Does ``code_context`` give claude:builder app's usage (the control of a withheld trial)?"""
    payload = fleet.calls()[0][1]
    return "app/main.py#L1" in json.dumps(payload)


# --- connections edited between two calls of one server -----------------------------------------


def repointed(fleet: Fleet, to: str) -> str | None:
    """``app-graph`` disconnected and connected again, now to another checkout and naming the
    agent: the member still reads app's checkout, which no connection naming the agent covers."""
    assert withheld(fleet) is None
    disconnect(fleet.store, "app-graph")
    connect(fleet.store, "app-graph", fleet.repos[to], [f"acme/{to}"], [BUILDER])
    return withheld(fleet)


def recipients_edited(fleet: Fleet) -> str | None:
    """The member's connection names the agent (app's evidence is its to see), then stops naming it."""
    store = fleet.store
    known = store.read("app-graph")
    assert known is not None
    store.write(Connection("app-graph", "verified", known.repository_root, known.repositories, (REVIEWER, BUILDER)))
    if not shown_to_builder(fleet):
        return "app's connection names claude:builder, yet its evidence was withheld (the trial proves nothing)"
    store.write(Connection("app-graph", "verified", known.repository_root, known.repositories, (REVIEWER,)))
    return withheld(fleet)


def connection_file(fleet: Fleet, damage: str) -> str | None:
    path = fleet.store.state_path("app-graph")
    if damage == "disconnected":
        disconnect(fleet.store, "app-graph")
    elif damage == "deleted":
        path.unlink()
    elif damage == "garbage":
        path.write_bytes(b"\x00garbage{")
    elif damage == "group-readable":
        path.chmod(0o644)
    elif damage == "symlink":
        target = path.with_name("elsewhere.json")
        path.rename(target)
        path.symlink_to(target)
    elif damage == "other-name":  # a state file that says it is another connection
        data = json.loads(path.read_bytes())
        data["connection"] = "local-graph"
        path.write_text(json.dumps(data))
    return withheld(fleet)


def near_spellings(rng: random.Random, name: str, count: int) -> list[str]:
    """Spellings a person might read as ``name``: case, spaces, zero-width and confusable characters."""
    made = {name.upper(), name.capitalize(), f" {name}", f"{name} ", name.replace(":", ": "),
            name.replace(":", "\uff1a"), name.replace("c", "\u0441", 1), name.replace("a", "\u0430", 1),
            f"{name}\u200b", f"\u200d{name}", f"{name}\u00a0", name.replace("l", "\u217c", 1),
            f"{name},{REVIEWER}", name.replace("builder", "builders"), f"{name}\u0301"}
    return rng.sample(sorted(made), min(count, len(made)))


def odd_recipient(fleet: Fleet, spelling: str) -> str | None:
    """app's connection names a near-spelling of the agent: never the agent itself."""
    store = fleet.store
    known = store.read("app-graph")
    assert known is not None
    store.write(Connection("app-graph", "verified", known.repository_root, known.repositories, (spelling,)))
    problem = withheld(fleet)
    if problem is None:  # and the server's own connection does not serve a near-spelling either
        for name, payload, is_error in fleet.calls(spelling):
            if not is_error or payload.get("reason") != "unauthorized":
                return f"a server started for {spelling!r} was answered ({name}: {payload.get('status')})"
    return problem


# --- the checkouts -----------------------------------------------------------------------------


def symlinked_member(fleet: Fleet) -> str | None:
    """app's checkout replaced by a symlink to lib's: both answers judge app alike, none covers it."""
    app = fleet.repos["app"]
    app.rename(app.with_name("app-moved"))
    app.symlink_to(fleet.repos["lib"])
    answer = fleet.usages("helper")
    ran = cli("doctor", "--fleet", "deps", "--state-dir", fleet.state, "--json")
    problem = unclean(ran, "doctor --fleet")
    if problem:
        return problem
    doctor = {m["repository"]: m.get("reason") for m in json.loads(ran.stdout)["members"]}
    missing = {m["repository"]: m["state"] for m in answer["coverage"]["missing"]}
    if "acme/app" not in missing:
        return f"a checkout that became a symlink to another member is covered ({answer['coverage']})"
    if doctor.get("acme/app") != missing["acme/app"]:
        return f"fleet usages says {missing['acme/app']}, the doctor {doctor}"
    return None


def two_fleets(fleet: Fleet, damage: bool) -> str | None:
    """lib in a second fleet, named first, holding app by its path; optionally that fleet's file
    is damaged: code_context answers from a fleet it can read, and never lets app through the
    connection-less door either, unless the operator put app there by path."""
    add_member(fleet.state, "aaa", member_from(fleet.state, connection="local-graph", repo_path=None, repository=None))
    add_member(fleet.state, "aaa", member_from(fleet.state, connection="app-graph", repo_path=None, repository=None))
    if damage:
        (fleet.state / "fleet" / "aaa" / "fleet.json").write_bytes(b'{"schema": 1')
    return withheld(fleet)


# --- the fleet index and its seal --------------------------------------------------------------

TAMPERS = (
    "UPDATE symbols SET line = line + {n}", "UPDATE symbols SET path = 'src/lib_pkg/__init__.py'",
    "DELETE FROM symbols WHERE line % 2 = {m}", "UPDATE references_out SET line = line + {n}",
    "DELETE FROM references_out", "UPDATE members SET covered = 0", "UPDATE members SET repository = 'x{n}' || member",
    "UPDATE members SET reason = 'absent', covered = 0 WHERE repository = 'acme/lib'",
    "UPDATE fleet SET digest = 'x'", "INSERT INTO symbols SELECT member, name, label || 'x', owner, module, path, "
    "line + {n}, kind, family FROM symbols", "PRAGMA user_version = 9", "PRAGMA application_id = 1",
)


def _comparable(answer: dict[str, Any]) -> str:
    return json.dumps({key: answer[key] for key in ("status", "definitions", "usages_by_repository",
                                                    "name_matches_by_repository", "coverage", "answer_id")})


def honest_after(fleet: Fleet, what: str) -> str | None:
    now = fleet.usages("helper")
    if _comparable(now) != _comparable(fleet.honest):
        return f"after {what} the answer is not the honest one: {_comparable(now)[:200]}"
    return withheld(fleet)


def tampered_table(fleet: Fleet, rng: random.Random) -> tuple[str, str | None]:
    statement = rng.choice(TAMPERS).format(n=rng.randint(1, 40), m=rng.randint(0, 1))
    path = fleet.index_path()
    connection = apsw.Connection(str(path))
    try:
        connection.execute(statement)
    finally:
        connection.close()
    return statement, honest_after(fleet, statement)


def tampered_seal(fleet: Fleet, how: str) -> str | None:
    seal = Path(f"{fleet.index_path()}.seal")
    if how == "deleted":
        seal.unlink()
    elif how == "empty":
        seal.write_bytes(b"")
    elif how == "random":
        seal.write_bytes(os.urandom(200))
    elif how == "directory":  # nothing may be renamed over it: a clean refusal on every surface is enough
        seal.unlink()
        seal.mkdir()
        return unclean(cli("fleet", "usages", "deps", "helper", "--state-dir", fleet.state), "fleet usages") or \
            withheld(fleet)
    elif how == "symlink":
        seal.unlink()
        seal.symlink_to("/etc/passwd")
    elif how == "group-writable":
        seal.chmod(0o664)
    elif how == "another-digest":  # a well-formed seal of other bytes
        fields = seal.read_text().split()
        fields[2] = "0" * 64
        seal.write_text(" ".join(fields) + "\n")
    return honest_after(fleet, f"a seal {how}")


def replaced_index(fleet: Fleet, how: str) -> str | None:
    path = fleet.index_path()
    path.unlink()
    if how == "member-index":
        member = Workspace.locate(fleet.repos["lib"], fleet.state)
        from cm_graph.generation.store import read_current

        shutil.copy(member.index_path(read_current(member).id), path)
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "fifo":
        os.mkfifo(path, 0o600)
    elif how == "symlink":
        path.symlink_to("/etc/passwd")
    elif how == "directory":
        path.mkdir(mode=0o700)
    if how == "directory":  # nothing may be renamed over it: a clean refusal on every surface is enough
        ran = cli("fleet", "usages", "deps", "helper", "--state-dir", fleet.state)
        return unclean(ran, "fleet usages") or withheld(fleet)
    return honest_after(fleet, f"the index replaced by {how}")


def forged_seal_swap(fleet: Fleet) -> str | None:
    """The file rewritten with its seal: two members' names swapped. Every citation still names
    a line its own repository's blob has (checked with git), and app stays withheld."""
    path = fleet.index_path()
    digest = open_fleet(fleet.state, "deps")
    digest.close()
    connection = apsw.Connection(str(path))
    try:
        for old, new in (("acme/app", "swap"), ("other", "acme/app"), ("swap", "other")):
            connection.execute("UPDATE members SET repository = ? WHERE repository = ?", (new, old))
    finally:
        connection.close()
    write_derived_seal(path, digest.digest)
    answer = fleet.usages("helper")
    for repository, group in answer["usages_by_repository"].items():
        for item in group["items"]:
            if not _cited_in(fleet, repository, item["citation"]):
                return f"{repository} was cited for {item['citation']}, a line it lacks"
    return withheld(fleet)


def _cited_in(fleet: Fleet, repository: str, citation: str) -> bool:
    checkout = {"acme/lib": fleet.repos["lib"], "acme/app": fleet.repos["app"], "other": fleet.repos["other"]}
    path, _, line = citation.partition("#L")
    try:
        text = git(checkout[repository], "show", f"HEAD:{path}")
    except Exception:  # noqa: BLE001 - the path is not in that repository's commit
        return False
    return 1 <= int(line) <= len(text.splitlines())


# --- the fleet file, as an operator's editor leaves it -------------------------------------------


def edited_fleet_file(fleet: Fleet, edit: Callable[[dict[str, Any]], Any]) -> str | None:
    path = fleet.state / "fleet" / "deps" / "fleet.json"
    document = json.loads(path.read_bytes())
    changed = edit(document)
    path.write_bytes(changed if isinstance(changed, bytes) else json.dumps(document).encode())
    for args in (["fleet", "usages", "deps", "helper"], ["doctor", "--fleet", "deps"], ["fleet", "list", "deps"],
                 ["context", "usage", "helper", "--repo-path", str(fleet.repos["lib"])]):
        problem = unclean(cli(*args, "--state-dir", fleet.state), " ".join(args[:2]))
        if problem:
            return problem
    return withheld(fleet)


def _member(document: dict[str, Any], **changes: Any) -> None:
    document["members"][-1].update(changes)


FLEET_FILE_EDITS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "relative checkout": lambda d: _member(d, checkout="other"),
    "empty checkout": lambda d: _member(d, checkout=""),
    "checkout is a file": lambda d: _member(d, checkout="/etc/passwd"),
    "checkout with ..": lambda d: _member(d, checkout=d["members"][0]["checkout"] + "/../app"),
    "checkout not UTF-8": lambda d: json.dumps(d).replace('"members"', '"members"').encode()
    .replace(b'"other"', b'"oth\xe9r"'),
    "connection of another member": lambda d: _member(d, connection="app-graph"),
    "connection not a name": lambda d: _member(d, connection="../../etc/passwd"),
    "repository with escape": lambda d: _member(d, repository="o\x1b[31mther"),
    "extra keys": lambda d: d.update(extra={"a": [1] * 10}),
    "members an object": lambda d: d.update(members={"a": 1}),
    "a member is a list": lambda d: d["members"].append(["x"]),
    "deep nesting": lambda d: b'{"schema": "cm_graph.fleet.v1", "members": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    "duplicate key": lambda d: json.dumps(d).replace('{"schema"', '{"members": [], "schema"', 1).encode(),
    "not JSON": lambda d: b"\xff\xfe{",
    "thousand members": lambda d: d.update(members=d["members"] * 400),
}


def odd_fleet_names(fleet: Fleet, name: str) -> str | None:
    caller = Caller(fleet.state, "local-graph", BUILDER)
    reply = call_tool(caller, BY_NAME["graph_status"], {"fleet": name})
    if reply.payload.get("reason") == "internal":
        return f"graph_status fleet={name!r} failed inside"
    for args in (["fleet", "usages", name, "helper"], ["doctor", "--fleet", name], ["fleet", "list", name]):
        ran = cli(*args, "--state-dir", fleet.state)
        problem = unclean(ran, " ".join(args[:2]))
        if problem and not (ran.code == 2 and ran.stderr.startswith("cm-graph: usage: ")):
            return problem
        if ran.code == 0:
            return f"{' '.join(args[:2])} answered for a fleet named {name!r}"
    return None


ODD_FLEET_NAMES = ("..", ".", "../deps", "deps/", "DEPS", "deps\x00", "deps\n", "d" * 65, "", "-deps", "dé")


def sweep(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    """Every fixed attack once and ``count`` random tamperings and spellings."""
    fleet = Fleet(base)
    fixed: list[tuple[str, Callable[[], str | None]]] = [
        ("connection re-pointed to other", lambda: repointed(fleet, "other")),
        ("connection re-pointed to lib", lambda: repointed(fleet, "lib")),
        ("recipients edited between calls", lambda: recipients_edited(fleet)),
        *((f"connection file {how}", lambda how=how: connection_file(fleet, how))
          for how in ("disconnected", "deleted", "garbage", "group-readable", "symlink", "other-name")),
        ("member symlinked to another member", lambda: symlinked_member(fleet)),
        ("two fleets share lib", lambda: two_fleets(fleet, damage=False)),
        ("two fleets, the first damaged", lambda: two_fleets(fleet, damage=True)),
        *((f"seal {how}", lambda how=how: tampered_seal(fleet, how))
          for how in ("deleted", "empty", "random", "directory", "symlink", "group-writable", "another-digest")),
        *((f"index replaced by {how}", lambda how=how: replaced_index(fleet, how))
          for how in ("member-index", "empty", "fifo", "symlink", "directory")),
        ("seal forged, members swapped", lambda: forged_seal_swap(fleet)),
        *((f"fleet file: {name}", lambda edit=edit: edited_fleet_file(fleet, edit))
          for name, edit in FLEET_FILE_EDITS.items()),
        *((f"fleet name {name!r}", lambda name=name: odd_fleet_names(fleet, name)) for name in ODD_FLEET_NAMES),
    ]
    for case, attack in fixed:
        tally.judge(_guarded(attack), case)
        fleet.restore()
    for number in range(count):
        statement, problem = tampered_table(fleet, rng)
        tally.judge(problem, f"table tampered #{number}: {statement}")
        fleet.restore()
    for spelling in near_spellings(rng, BUILDER, count):
        tally.judge(_guarded(lambda: odd_recipient(fleet, spelling)), f"recipient {spelling!r}")  # noqa: B023
        fleet.restore()


def _guarded(attack: Callable[[], str | None]) -> str | None:
    """The attack's verdict; an exception escaping cm-graph's own functions is a crash."""
    try:
        return attack()
    except Refusal as refusal:
        return f"refused where it should answer: {refusal.reason}: {refusal.message[:160]}"
    except Exception as error:  # noqa: BLE001 - what escaped is the finding
        return f"crashed: {type(error).__name__}: {str(error)[:160]}"

