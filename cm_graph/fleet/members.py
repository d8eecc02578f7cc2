"""A fleet: a named set of checkouts under one state root, each one a member with a repository name.

The fleet's whole definition is one private JSON file, ``<root>/fleet/<name>/fleet.json``
(0600, written atomically under the fleet's lock). A member is added by a local connection
(its checkout and its first approved repository name) or by a checkout path (the name is the
checkout's directory name unless ``repository`` says otherwise). Everything else the fleet knows
(generations, symbols, references) is derived from the members' own graph state, never stored
here, so a member's rebuild needs no fleet command.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput, Refusal
from ..base.git import checkout_root
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.locking import build_lock
from ..base.privfs import ensure_private_dir, read_private_bytes, write_private_atomic
from ..base.records import record
from ..base.rules import identifier, is_bounded_text
from ..connections.store import ConnectionStore
from ..generation.layout import resolved_state_root

FLEET_SCHEMA = "cm_graph.fleet.v1"
FLEETS_SCHEMA = "cm_graph.fleets.v1"
MAX_MEMBERS = 500
MAX_FLEET_BYTES = 1 << 20


@record
class Member:
    repository: str  # the name answers group by: owner/repo of a connection, or the checkout's name
    checkout: Path
    connection: str | None

    def to_json(self) -> dict[str, Any]:
        return {"repository": self.repository, "checkout": str(self.checkout), "connection": self.connection}


MemberAccess = Callable[[Member], bool]  # may this member's evidence go to the caller?


def member_authorizes(store: ConnectionStore, member: Member, recipient: str) -> bool:
    """The one per-member rule for evidence that goes to an agent surface's recipient: a member
    that joined by a connection must still have it verified, naming ``recipient`` and covering
    the member's checkout (read now, never cached: a connection disconnected and connected again
    to another checkout approves that one, not the checkout the member reads); a member added by
    its checkout path has no connection to ask, and the local user who put it in a fleet with
    the caller's checkout decided. ``cross_repo_usages`` and a fleet's ``graph_status`` refuse a
    whole call on a member this refuses; ``code_context`` leaves its evidence out and lists it as
    ``unauthorized``."""
    if member.connection is None:
        return True
    found = store.read(member.connection)
    return (found is not None and found.state == "verified" and recipient in found.recipients
            and found.repository_root == member.checkout)


def state_root(state_dir: Path) -> Path:
    """The resolved state root, refused inside a git work tree (as every state is)."""
    return resolved_state_root(state_dir)


def fleet_dir(root: Path, name: str) -> Path:
    identifier(name, "The fleet name")  # names become directory names: never a path
    return root / "fleet" / name


def read_members(root: Path, name: str, *, distinct: bool = True) -> list[Member]:
    """The fleet's members in the order they were added; refused when there is no such fleet, or
    (``distinct``) when the file names one repository or one checkout twice: ``fleet add`` never
    writes that, and every answer groups by repository. ``fleet remove`` reads it as it is, so the
    remedy the refusal names works."""
    try:
        data = read_private_bytes(fleet_dir(root, name) / "fleet.json", MAX_FLEET_BYTES)
    except FileNotFoundError:
        raise Refusal("No such fleet; add a member with `cm-graph fleet add`.", reason="not_configured") from None
    value = loads_strict(data, "The fleet file")
    rows = value.get("members") if isinstance(value, dict) and value.get("schema") == FLEET_SCHEMA else None
    if not isinstance(rows, list):
        raise Refusal("The fleet file is not one this reader supports; remove and add its members again.",
                      reason="unreadable")
    members = []
    for row in rows:
        if not (isinstance(row, dict) and is_bounded_text(row.get("repository"), 256)
                and is_bounded_text(row.get("checkout"), 4096)
                and (row.get("connection") is None or is_bounded_text(row.get("connection"), 64))):
            raise Refusal("The fleet file is not one this reader supports; remove and add its members again.",
                          reason="unreadable")
        members.append(Member(row["repository"], Path(row["checkout"]), row["connection"]))
    if distinct:
        _refuse_repeats(name, members)
    return members


def _refuse_repeats(name: str, members: list[Member]) -> None:
    import shlex

    repositories: set[str] = set()
    checkouts: dict[Path, str] = {}
    for member in members:
        if member.repository in repositories:
            raise InvalidInput(
                f"The fleet file names the repository `{member.repository}` twice; run `cm-graph fleet remove "
                f"{shlex.quote(name)} {shlex.quote(member.repository)}` (it removes both) and add it again.")
        if member.checkout in checkouts:
            raise InvalidInput(
                f"The fleet file names one checkout twice (as `{checkouts[member.checkout]}` and "
                f"`{member.repository}`); run `cm-graph fleet remove {shlex.quote(name)} "
                f"{shlex.quote(member.repository)}`.")
        repositories.add(member.repository)
        checkouts[member.checkout] = member.repository


def _write(root: Path, name: str, members: list[Member]) -> None:
    directory = fleet_dir(root, name)
    write_private_atomic(directory / "fleet.json", dumps_canonical(listing(name, members)))


def fleet_lock(root: Path, name: str):  # type: ignore[no-untyped-def]
    directory = fleet_dir(root, name)
    ensure_private_dir(directory, private_from=root)
    return build_lock(
        directory / "fleet.lock", 35.0, busy_message="Another command is changing this fleet; try again shortly.",
    )


def member_from(root: Path, *, connection: str | None, repo_path: Path | None, repository: str | None) -> Member:
    """The member a connection or a checkout path names (exactly one of the two)."""
    if (connection is None) == (repo_path is None):
        raise InvalidInput("Name the member with exactly one of --connection or --repo-path.")
    if connection is not None:
        found = ConnectionStore(root).read(connection)
        if found is None:
            raise Refusal("No such connection.", reason="not_configured")
        if found.state != "verified":
            raise Refusal("The connection is disconnected; connect it again first.", reason="disconnected")
        checkout, default_name = found.repository_root, found.repositories[0]
    else:
        assert repo_path is not None
        top = checkout_root(Path(repo_path))
        if top is None:
            raise InvalidInput("A fleet member needs a git checkout.")
        checkout, default_name = top, top.name
    name = repository or default_name
    if not is_bounded_text(name, 256):
        raise InvalidInput("The repository name must be single-line text of at most 256 characters.")
    return Member(name, checkout, connection)


def add_member(root: Path, name: str, member: Member) -> dict[str, Any]:
    with fleet_lock(root, name):
        try:
            members = read_members(root, name)
        except Refusal as refusal:
            if refusal.reason != "not_configured":
                raise
            members = []
        for existing in members:
            if existing.checkout == member.checkout:
                raise InvalidInput("That checkout is already a member of the fleet.")
            if existing.repository == member.repository:
                raise InvalidInput("The fleet already has a member with that repository name; pass --repository.")
        if len(members) >= MAX_MEMBERS:
            raise InvalidInput(f"A fleet holds at most {MAX_MEMBERS} members.")
        members.append(member)
        _write(root, name, members)
    return listing(name, members)


def remove_member(root: Path, name: str, which: str) -> dict[str, Any]:
    """Remove the member named by its repository name, connection or checkout path."""
    with fleet_lock(root, name):
        members = read_members(root, name, distinct=False)
        keep = [m for m in members if which not in (m.repository, m.connection, str(m.checkout))]
        if len(keep) == len(members):
            raise Refusal("The fleet has no such member.", reason="not_configured")
        _write(root, name, keep)
    return listing(name, keep)


def fleets_of(root: Path, checkout: Path) -> list[tuple[str, Member]]:
    """Every fleet (by name) that has ``checkout`` as a member, with that member; a fleet file
    this reader cannot use is skipped (the fleet commands refuse it with its reason)."""
    found = []
    for path in sorted((root / "fleet").glob("*/fleet.json")):
        try:
            members = read_members(root, path.parent.name)
        except Refusal:
            continue
        found += [(path.parent.name, m) for m in members if m.checkout == checkout]
    return found


def all_fleets(root: Path) -> dict[str, Any]:
    """Every fleet under the state root by name, with its member count (``fleet list`` with no
    name); a fleet file this reader cannot use is listed with its refusal's sentence instead."""
    fleets: list[dict[str, Any]] = []
    for path in sorted((root / "fleet").glob("*/fleet.json")):
        try:
            fleets.append({"fleet": path.parent.name, "members": len(read_members(root, path.parent.name))})
        except Refusal as refusal:
            fleets.append({"fleet": path.parent.name, "members": None, "refused": refusal.message})
    return {"schema": FLEETS_SCHEMA, "fleets": fleets}


def listing(name: str, members: list[Member]) -> dict[str, Any]:
    return {"schema": FLEET_SCHEMA, "fleet": name, "members": [m.to_json() for m in members]}
