"""The DDL: schema.sql equals baseline + migrations, and the file header marks our files."""

from __future__ import annotations

from pathlib import Path

import apsw

from cm_graph.base.sqlfiles import migration_files, schema_sql
from cm_graph.index.format import APPLICATION_ID, SCHEMA_VERSION, apply_migrations, create_schema


def _shape(connection: apsw.Connection) -> list[tuple[str, str, str]]:
    rows = connection.execute(
        "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
    ).fetchall()
    return [(t, n, " ".join(s.split())) for t, n, s in rows]


def _pragmas(connection: apsw.Connection) -> tuple[int, int]:
    return (
        connection.execute("PRAGMA application_id").fetchall()[0][0],
        connection.execute("PRAGMA user_version").fetchall()[0][0],
    )


def test_schema_equals_baseline_plus_migrations(tmp_path: Path) -> None:
    fresh = apsw.Connection(str(tmp_path / "fresh.sqlite"))
    create_schema(fresh)
    migrated = apsw.Connection(str(tmp_path / "migrated.sqlite"))
    apply_migrations(migrated)
    assert _shape(fresh) == _shape(migrated)
    assert _pragmas(fresh) == _pragmas(migrated) == (APPLICATION_ID, SCHEMA_VERSION)


def test_migrations_are_numbered_from_one() -> None:
    numbers = [int(path.name[:4]) for path in migration_files()]
    # increasing from one (0004 is another branch's schema step; the merge fills the gap)
    assert numbers[0] == 1 and numbers == sorted(set(numbers))
    assert numbers[-1] == SCHEMA_VERSION


def test_schema_sql_is_the_repository_file() -> None:
    root = Path(__file__).resolve().parents[2]
    assert schema_sql() == (root / "schema.sql").read_text(encoding="utf-8")
