"""Derive a fleet's index: one SQLite file keyed by the digest of its members' generations.

Opening a fleet judges every member's graph (its lifecycle state and current generation); the
digest of those facts names the file, ``<root>/fleet/<name>/<digest>.sqlite``. A file with that
name is reused; otherwise it is derived from the members' own indexes (symbols with census-checked
lines, external references, bare-name references, the cited files' line counts), written to a
private temp sibling and renamed into place, and older files of the fleet are removed. It is
never patched: a member's new generation is a new digest.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw

from ..base.errors import GitFailure, Refusal
from ..base.git import BlobReader
from ..base.jsonio import dumps_canonical
from ..base.privfs import create_exclusive, fsync_dir, temp_sibling
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..generation.layout import Workspace
from ..generation.status import graph_status
from ..index.ensure import index_for
from ..index.format import open_index
from .imports import import_statements, imported_names
from .members import Member, fleet_dir, fleet_lock, read_members
from .packages import declared_package, family_of_lang, family_of_path, import_root, module_of

FLEET_FORMAT = 1
FLEET_APPLICATION_ID = 0x636D6766
FLEET_PAGE_SIZE = 4096
COVERED_STATES = ("current", "stale", "partial")  # a readable generation bound to a known commit
MAX_PARSED_BYTES = 4 << 20  # a Python file larger than this gives no imported names
_INSERTS = (
    ("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "members"),
    ("INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", "symbols"),
    ("INSERT INTO references_out VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "references_out"),
    ("INSERT INTO census VALUES (?, ?, ?)", "census"),
)


@dataclass(frozen=True)
class MemberState:
    member: Member
    state: str
    generation: Any  # a Generation when covered, else None

    @property
    def covered(self) -> bool:
        return self.generation is not None and self.state in COVERED_STATES

    def key(self) -> dict[str, Any]:
        gen = self.generation if self.covered else None
        return {
            "repository": self.member.repository, "connection": self.member.connection,
            "checkout": str(self.member.checkout), "state": self.state,
            "generation": gen.id if gen else None, "commit": gen.manifest.commit if gen else None,
        }


@dataclass(frozen=True)
class FleetIndex:
    name: str
    path: Path
    digest: str
    connection: apsw.Connection
    built: bool


def judge_members(root: Path, members: list[Member]) -> list[MemberState]:
    """Each member's lifecycle state at its own HEAD, and its generation when one is readable."""
    judged = []
    for member in members:
        status = graph_status(Workspace(member.checkout, root), trust_seal=True)
        judged.append(MemberState(member, status.state, status.generation))
    return sorted(judged, key=lambda m: m.member.repository)


def fleet_digest(judged: list[MemberState]) -> str:
    return hashlib.sha256(dumps_canonical({"format": FLEET_FORMAT, "members": [m.key() for m in judged]})).hexdigest()


def open_fleet(root: Path, name: str) -> FleetIndex:
    """The fleet's index for its members' current generations: reused, or derived now."""
    judged = judge_members(root, read_members(root, name))
    digest = fleet_digest(judged)
    path = fleet_dir(root, name) / f"{digest[:32]}.sqlite"
    connection = _open_existing(path, digest)
    if connection is not None:
        return FleetIndex(name, path, digest, connection, False)
    with fleet_lock(root, name):
        connection = _open_existing(path, digest)
        built = connection is None
        if connection is None:
            _derive(path, name, digest, judged)
            _remove_others(path)
            connection = _open_existing(path, digest)
            if connection is None:
                raise Refusal("The fleet index could not be read back after it was written.", reason="unreadable")
    return FleetIndex(name, path, digest, connection, built)


def _open_existing(path: Path, digest: str) -> apsw.Connection | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if st.st_uid != os.geteuid() or st.st_mode & 0o077 or not os.path.isfile(path) or os.path.islink(path):
        return None
    try:
        connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_NOFOLLOW)
        connection.execute("PRAGMA query_only = ON")
        header = [connection.execute(f"PRAGMA {pragma}").fetchall()[0] for pragma in ("application_id", "user_version")]
        if header == [(FLEET_APPLICATION_ID,), (FLEET_FORMAT,)] and connection.execute(
                "SELECT digest FROM fleet").fetchall() == [(digest,)]:
            return connection
        connection.close()
    except apsw.Error:
        pass
    return None


def _remove_others(keep: Path) -> None:
    for other in keep.parent.glob("*.sqlite"):
        if other != keep:
            try:
                os.unlink(other)
            except OSError:
                pass


def _derive(path: Path, name: str, digest: str, judged: list[MemberState]) -> None:
    temp = temp_sibling(path)
    os.close(create_exclusive(temp))
    try:
        connection = apsw.Connection(str(temp))
        try:
            connection.execute(f"PRAGMA page_size = {FLEET_PAGE_SIZE}")
            connection.execute("PRAGMA journal_mode = OFF")
            connection.execute(query_sql("fleet_schema"))
            with connection:
                connection.execute("INSERT INTO fleet VALUES (?, ?)", (name, digest))
                rows = _collect(judged)
                # primary-key order, so the bytes do not depend on the members' or providers' order
                for statement, table in _INSERTS:
                    connection.executemany(statement, sorted(set(rows[table])))
        finally:
            connection.close()
        fd = os.open(temp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, path)
        fsync_dir(path.parent)
    except apsw.FullError:
        raise Refusal("The disk is full; the fleet index was not written.", reason="disk_full") from None
    finally:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass


def _collect(judged: list[MemberState]) -> dict[str, list[tuple[Any, ...]]]:
    rows: dict[str, list[tuple[Any, ...]]] = {"members": [], "symbols": [], "references_out": [], "census": []}
    for number, state in enumerate(judged, start=1):
        member = state.member
        ecosystem, package, root = "", "", ""
        covered = state.covered
        if covered:
            try:
                ecosystem, package = declared_package(member.checkout, state.generation.manifest.commit)
                root = import_root(ecosystem, package)
                _read_member(number, state, root, rows)
            except (GitFailure, Refusal):
                covered = False  # its index or its clone could not be read: missing, with its state
        gen = state.generation if covered else None
        rows["members"].append((
            number, member.repository, member.connection, state.state, int(covered),
            gen.id if gen else None, gen.manifest.commit if gen else None, ecosystem, package, root,
        ))
    return rows


def _read_member(number: int, state: MemberState, root: str, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    report = index_for(state.generation)
    index = open_index(report.path)
    try:
        census = {path: (lines, blob, size) for path, lines, blob, size in fetch_rows(
            index.execute(query_sql("member_census_lines")), tuple[str, int, str, int])}
        cited: set[str] = set()
        for label, base, owner, path, line, kind in fetch_rows(
                index.execute(query_sql("member_symbols")), tuple[str, str | None, str, str, int, str]):
            rows["symbols"].append((
                number, bare_name(base or label), label, bare_name(owner), module_of(path, root), path, line, kind,
                family_of_path(path),
            ))
            cited.add(path)
        python_imports: dict[str, list[tuple[str, int]]] = {}
        for kind, target, receiver, language, path, line in fetch_rows(
                index.execute(query_sql("member_external_references")), tuple[str, str, str, str, str, int]):
            if kind == "member_call":
                rows["references_out"].append(
                    (target, "member_call", number, path, line, "", receiver, family_of_lang(language)))
                cited.add(path)
            elif path.endswith((".py", ".pyi")):
                python_imports.setdefault(path, []).append((target, line))
        for label, base, path, line in fetch_rows(
                index.execute(query_sql("member_name_references")), tuple[str, str | None, str, int]):
            qualifier, _, bare = bare_name(base or label).rpartition(".")  # a JVM stub is com.acme.Session
            rows["references_out"].append((bare, "name", number, path, line, qualifier, "", family_of_path(path)))
            cited.add(path)
        cited |= _python_import_rows(number, state.member.checkout, census, python_imports, rows)
        rows["census"].extend((number, path, census[path][0]) for path in sorted(cited) if path in census)
    finally:
        index.close()


def _python_import_rows(
    number: int, checkout: Path, census: dict[str, tuple[int, str, int]],
    by_path: dict[str, list[tuple[str, int]]], rows: dict[str, list[tuple[Any, ...]]],
) -> set[str]:
    """One row per name an unbound Python import brings in (read from the bound commit's blob)."""
    cited: set[str] = set()
    if not by_path:
        return cited
    with BlobReader(checkout) as blobs:
        for path in sorted(by_path):
            facts = census.get(path)
            if facts is None:
                continue
            _lines, blob, size = facts
            statements = import_statements(b"".join(blobs.chunks(blob, size))) if size <= MAX_PARSED_BYTES else {}
            for target in sorted({target for target, _line in by_path[path]}):
                for line, module, name in imported_names(statements, target):
                    rows["references_out"].append((name, "import", number, path, line, module, "", "python"))
                    cited.add(path)
    return cited


def bare_name(name: str) -> str:
    """A label's name as code writes it: no leading '.' of a member, no argument list."""
    name = name.lstrip(".")
    return name[:-2] if name.endswith("()") else name
