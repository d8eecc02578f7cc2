"""Find the SQL this package ships: the DDL (``schema.sql``, ``migrations/``) and query files.

The DDL lives at the top of the repository so it reads as a document; the wheel carries a copy
inside the package (``cm_graph/_ddl``). An editable install or a source checkout has no copy, so
the repository root is the fallback. Every caller goes through here, so there is one answer.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # cm_graph/, above base/


def _ddl_root() -> Path:
    packaged = _PACKAGE / "_ddl"
    if (packaged / "schema.sql").is_file():
        return packaged
    source = _PACKAGE.parent
    if (source / "schema.sql").is_file():
        return source
    raise FileNotFoundError("cm-graph's schema.sql is missing from this installation")


@cache
def schema_sql() -> str:
    return (_ddl_root() / "schema.sql").read_text(encoding="utf-8")


def migration_files() -> list[Path]:
    return sorted((_ddl_root() / "migrations").glob("[0-9][0-9][0-9][0-9]_*.sql"))


@cache
def _query_files() -> dict[str, list[Path]]:
    """Every ``cm_graph/<stage>/sql/*.sql`` by name, listed once per process (a question reads a
    few dozen statements: one directory walk, not one per statement)."""
    found: dict[str, list[Path]] = {}
    for path in sorted(_PACKAGE.glob("*/sql/*.sql")):
        found.setdefault(path.stem, []).append(path)
    return found


@cache
def query_sql(name: str) -> str:
    """One statement from ``cm_graph/<stage>/sql/<name>.sql``: each stage keeps the SQL it runs
    beside its modules, and a name is unique across stages (tests hold it)."""
    [path] = _query_files().get(name, [])
    return path.read_text(encoding="utf-8")
