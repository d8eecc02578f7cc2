"""Open, check and create index files with apsw (which bundles its own SQLite).

Bundling matters: the same apsw release writes the same bytes on every machine, which is what
makes an index reproducible. A file is ours only if its ``application_id`` says so, and readable
by this reader only if its ``user_version`` is one we know.
"""

from __future__ import annotations

from pathlib import Path

import apsw

from ..base.errors import IndexUnreadable, ReaderIncompatible, Refusal
from ..base.records import record
from ..base.sqlfiles import migration_files, schema_sql
from ..base.sqlrows import fetch_value
from ..generation.store import storage_refusal

APPLICATION_ID = 0x636D6772
# Every table of schema.sql, in the order audits compare them and exports write them.
INDEX_TABLES = (
    "generation", "counts", "nodes", "edges", "adjacency", "exclusions",
    "undeclared_endpoints", "untraversable_borders", "rationale", "external_references", "census",
    "text_files", "mention_names", "resolved_files", "definitions", "resolved_references",
)
SCHEMA_VERSION = 13
PAGE_SIZE = 4096


@record
class IndexReport:
    """What an import produced, or what a reused index holds: the metadata ``cm-graph index``
    prints."""

    generation: str
    commit: str
    path: Path
    counts: dict[str, int]
    bytes: int = 0
    seconds: float = 0.0
    reused: bool = False


def configure(connection: apsw.Connection) -> None:
    """Settings every connection gets: strict quoting, foreign keys, a bounded busy wait."""
    connection.config(apsw.SQLITE_DBCONFIG_DQS_DML, 0)
    connection.config(apsw.SQLITE_DBCONFIG_DQS_DDL, 0)
    connection.setbusytimeout(5000)
    connection.execute("PRAGMA foreign_keys = ON")


def create_schema(connection: apsw.Connection, schema: str = "main") -> None:
    """Apply ``schema.sql`` to an empty database (``schema`` names an attached one)."""
    connection.execute(f"PRAGMA {schema}.page_size = {PAGE_SIZE}")
    sql = schema_sql()
    if schema != "main":
        sql = _qualify(sql, schema)
    connection.execute(sql)


def _qualify(sql: str, schema: str) -> str:
    """Point the DDL's CREATE and PRAGMA statements at an attached database."""
    out = []
    for line in sql.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("PRAGMA "):
            line = line.replace("PRAGMA ", f"PRAGMA {schema}.", 1)
        elif stripped.startswith("CREATE TABLE "):
            line = line.replace("CREATE TABLE ", f"CREATE TABLE {schema}.", 1)
        elif stripped.startswith("CREATE INDEX "):
            line = line.replace("CREATE INDEX ", f"CREATE INDEX {schema}.", 1)
        out.append(line)
    return "\n".join(out)


def apply_migrations(connection: apsw.Connection) -> None:
    """Bring a database from its ``user_version`` up to ``SCHEMA_VERSION``."""
    current = fetch_value(connection.execute("PRAGMA user_version"), int)
    for path in migration_files():
        number = int(path.name[:4])
        if number > current:
            with connection:
                connection.execute(path.read_text(encoding="utf-8"))


def open_index(path: Path) -> apsw.Connection:
    """Open an index read-only and refuse a file this reader did not write or cannot read."""
    try:
        connection = apsw.Connection(
            str(path), flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_NOFOLLOW
        )
        configure_readonly(connection)
        application_id = connection.execute("PRAGMA application_id").fetchall()[0][0]
        version = connection.execute("PRAGMA user_version").fetchall()[0][0]
    except apsw.Error:
        raise IndexUnreadable("The index file cannot be read as an SQLite database.") from None
    if application_id != APPLICATION_ID:
        connection.close()
        raise IndexUnreadable("The index file was not written by cm-graph.")
    if version != SCHEMA_VERSION:
        connection.close()
        from .. import __version__

        raise ReaderIncompatible(
            "The index file has a schema version this reader does not know.",
            remediation={
                "installed_cm_graph": __version__,
                "reader_schema_version": SCHEMA_VERSION,
                "index_schema_version": version,
                "action": "Run `cm-graph index --rebuild` to derive the index again with this reader.",
            },
        )
    return connection


def configure_readonly(connection: apsw.Connection) -> None:
    connection.config(apsw.SQLITE_DBCONFIG_DQS_DML, 0)
    connection.config(apsw.SQLITE_DBCONFIG_DQS_DDL, 0)
    connection.execute("PRAGMA query_only = ON")


def index_write_refusal(error: apsw.FullError | OSError) -> Refusal:
    """Writing an index failed on the machine (SQLite's full disk, or any OS error): the one
    refusal every index writer (a derivation, a rebind) reports, naming no path."""
    if isinstance(error, apsw.FullError):
        return Refusal("The disk filled up while the index was written; free space and try again.", reason="disk_full")
    return storage_refusal(error, "writing the index")
