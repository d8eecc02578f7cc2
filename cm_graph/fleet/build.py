"""Derive a fleet's index: one sealed SQLite file keyed by the digest of its members' generations.

Opening a fleet judges every member (``judgement.py``: the same judgement ``doctor --fleet``
makes); the digest of what the index depends on (each member's generation, or why it has none)
names the file, ``<root>/fleet/<name>/<digest>.sqlite``. A file with that name is reused while
its seal holds (``index/seal.py``, as a member's index is sealed); otherwise it is derived from
the members' own indexes (symbols with census-checked lines, external references, bare-name
references), written to a private temp sibling, renamed into place and sealed, and older files of
the fleet are removed. It is never patched: a member's new generation is a new digest, and a
file whose bytes changed is derived again. When it is answered, every citation it holds is
checked once more against the census of the member index it came from (``FleetIndex.confirms``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw

from ..base.errors import GitFailure, Refusal
from ..base.git import BlobReader
from ..base.jsonio import dumps_canonical
from ..base.privfs import create_exclusive, fsync_dir, temp_sibling
from ..base.refusals import refusal_for_os_error
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..evidence.documents import CitationChecker
from ..index.ensure import index_for, open_index_for
from ..index.format import open_index
from ..index.seal import SEAL_SUFFIX, derived_is_sealed, write_derived_seal
from .imports import import_statements, imported_names
from .judgement import MemberJudgement, judge_members
from .members import fleet_dir, fleet_lock, read_members
from .packages import Declared, declared_package, family_of_lang, family_of_path, import_root, module_of
from .resolved_js import resolved_js_uses
from .resolved_uses import MemberSources, read_sources, resolved_uses

FLEET_FORMAT = 4  # 4: JS/TS uses resolved across members (a format-3 file lacks them: derived again)
FLEET_APPLICATION_ID = 0x636D6766
FLEET_PAGE_SIZE = 4096
MAX_PARSED_BYTES = 4 << 20  # a Python file larger than this gives no imported names
_INSERTS = (
    ("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "members"),
    ("INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", "symbols"),
    ("INSERT INTO references_out VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "references_out"),
    ("INSERT INTO uses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "uses"),
)
Rows = dict[str, list[tuple[Any, ...]]]


@dataclass
class FleetIndex:
    """An open fleet index with the judgements it was opened for; ``close`` it."""

    name: str
    path: Path
    digest: str
    connection: apsw.Connection
    built: bool
    judged: list[MemberJudgement]
    _checkers: dict[str, CitationChecker | None] = field(default_factory=dict)
    _opened: list[apsw.Connection] = field(default_factory=list)

    def judgement(self, repository: str) -> MemberJudgement | None:
        return next((j for j in self.judged if j.member.repository == repository), None)

    def confirms(self, repository: str, path: str, line: int) -> bool:
        """Does the bound commit of ``repository``'s generation carry ``path`` with a line
        ``line``? Asked of that member's own sealed index (its census), as every citation is
        checked, never of the fleet file's copy. The index is derived if it went missing since
        the fleet file was (as deriving the fleet file derives it); one that cannot be read
        confirms nothing, and the citation is counted as unverified."""
        if repository not in self._checkers:
            self._checkers[repository] = self._checker(repository)
        checker = self._checkers[repository]
        return checker is not None and line > 0 and checker.confirms(path, line)

    def _checker(self, repository: str) -> CitationChecker | None:
        judged = self.judgement(repository)
        if judged is None or not judged.covered or judged.generation is None:
            return None
        try:
            connection = open_index_for(judged.generation)
        except Refusal:
            return None
        self._opened.append(connection)
        return CitationChecker(connection)

    def close(self) -> None:
        for connection in (*self._opened, self.connection):
            connection.close()
        self._opened.clear()


def fleet_digest(judged: list[MemberJudgement]) -> str:
    return hashlib.sha256(dumps_canonical({"format": FLEET_FORMAT, "members": [m.key() for m in judged]})).hexdigest()


def open_fleet(root: Path, name: str) -> FleetIndex:
    """The fleet's index for its members' current generations: reused, or derived now."""
    judged = judge_members(root, read_members(root, name))
    digest = fleet_digest(judged)
    path = fleet_dir(root, name) / f"{digest[:32]}.sqlite"
    connection = _open_existing(path, digest)
    if connection is not None:
        return FleetIndex(name, path, digest, connection, False, judged)
    with fleet_lock(root, name):
        connection = _open_existing(path, digest)
        built = connection is None
        if connection is None:
            _derive(path, name, digest, judged)
            _remove_others(path)
            connection = _open_existing(path, digest)
            if connection is None:
                raise Refusal("The fleet index could not be read back after it was written.", reason="unreadable")
    return FleetIndex(name, path, digest, connection, built, judged)


def _open_existing(path: Path, digest: str) -> apsw.Connection | None:
    """The sealed fleet file of ``digest``; None (derive it again) when it is missing, not a
    private regular file, another format or fleet, or its bytes are not the sealed ones."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if st.st_uid != os.geteuid() or st.st_mode & 0o077 or not os.path.isfile(path) or os.path.islink(path):
        return None
    if not derived_is_sealed(path, digest):
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
    """Every other fleet file of this fleet, and its seal (the kept file's seal stays)."""
    for other in (*keep.parent.glob("*.sqlite"), *keep.parent.glob("*.sqlite" + SEAL_SUFFIX)):
        if other.name not in (keep.name, keep.name + SEAL_SUFFIX):
            try:
                os.unlink(other)
            except OSError:
                pass


def _derive(path: Path, name: str, digest: str, judged: list[MemberJudgement]) -> None:
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
        write_derived_seal(path, digest)  # after the rename, which moves the file's ctime
        fsync_dir(path.parent)
    except apsw.FullError:
        raise Refusal("The disk is full; the fleet index was not written.", reason="disk_full") from None
    except OSError as error:  # a directory where the file belongs, a read-only state: every surface refuses
        raise refusal_for_os_error(error) from None
    finally:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass


def _collect(judged: list[MemberJudgement]) -> Rows:
    rows: Rows = {"members": [], "symbols": [], "references_out": [], "uses": []}
    sources: list[MemberSources] = []
    scripts: list[MemberSources] = []
    manifests: dict[int, dict[str, Any]] = {}
    for number, state in enumerate(judged, start=1):
        member = state.member
        declared, root, reason = Declared(), "", state.reason
        if state.covered:
            assert state.generation is not None
            own: Rows = {"symbols": [], "references_out": []}  # kept only when the whole member was read
            try:
                declared = declared_package(member.checkout, state.generation.manifest.commit)
                root = import_root(declared.ecosystem, declared.name)
                python, javascript = _read_member(number, state, root, own)
                sources.append(python)
                scripts.append(javascript)
                if declared.ecosystem == "npm":
                    manifests[number] = declared.manifest
                for table, found in own.items():
                    rows[table] += found
            except Refusal as refusal:  # its index or its clone could not be read: missing, with why
                declared, root = Declared(), ""
                reason = "unknown" if isinstance(refusal, GitFailure) else "unreadable"
        gen = state.generation if reason is None else None
        rows["members"].append((
            number, member.repository, member.connection, reason or "", int(reason is None),
            gen.id if gen else None, gen.manifest.commit if gen else None, declared.ecosystem, declared.name,
            declared.version, root,
        ))
    packages = {row[0]: (row[7], row[8], row[9], row[10]) for row in rows["members"]}
    covered = {row[0] for row in rows["members"] if row[4]}
    rows["uses"] = resolved_uses(sources, packages) + resolved_js_uses(
        [s for s in scripts if s.member in covered], packages, {n: m for n, m in manifests.items() if n in covered})
    return rows


def _read_member(number: int, state: MemberJudgement, root: str, rows: Rows) -> tuple[MemberSources, MemberSources]:
    """The member's symbols and references into ``rows``; its Python and its JS/TS sources for
    the resolved uses (read now, while its index and clone are open)."""
    assert state.generation is not None
    report = index_for(state.generation)
    index = open_index(report.path)
    try:
        census = {path: (lines, blob, size) for path, lines, blob, size in fetch_rows(
            index.execute(query_sql("member_census_lines")), tuple[str, int, str, int])}
        for label, base, owner, path, line, kind in fetch_rows(
                index.execute(query_sql("member_symbols")), tuple[str, str | None, str, str, int, str]):
            rows["symbols"].append((
                number, bare_name(base or label), label, bare_name(owner), module_of(path, root), path, line, kind,
                family_of_path(path),
            ))
        python_imports: dict[str, list[tuple[str, int]]] = {}
        for kind, target, receiver, language, path, line in fetch_rows(
                index.execute(query_sql("member_external_references")), tuple[str, str, str, str, str, int]):
            if kind == "member_call":
                rows["references_out"].append(
                    (target, "member_call", number, path, line, "", receiver, family_of_lang(language)))
            elif path.endswith((".py", ".pyi")):
                python_imports.setdefault(path, []).append((target, line))
        for label, base, path, line in fetch_rows(
                index.execute(query_sql("member_name_references")), tuple[str, str | None, str, int]):
            qualifier, _, bare = bare_name(base or label).rpartition(".")  # a JVM stub is com.acme.Session
            rows["references_out"].append((bare, "name", number, path, line, qualifier, "", family_of_path(path)))
        _python_import_rows(number, state.member.checkout, census, python_imports, rows)
        python = fetch_rows(index.execute(query_sql("member_python_files")), tuple[str, str, int])
        javascript = fetch_rows(index.execute(query_sql("member_js_files")), tuple[str, str, int])
        return (read_sources(number, state.member.checkout, python),
                read_sources(number, state.member.checkout, javascript))
    finally:
        index.close()


def _python_import_rows(
    number: int, checkout: Path, census: dict[str, tuple[int, str, int]],
    by_path: dict[str, list[tuple[str, int]]], rows: Rows,
) -> None:
    """One row per name an unbound Python import brings in (read from the bound commit's blob)."""
    if not by_path:
        return
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


def bare_name(name: str) -> str:
    """A label's name as code writes it: no leading '.' of a member, no argument list."""
    name = name.lstrip(".")
    return name[:-2] if name.endswith("()") else name
