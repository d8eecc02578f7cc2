"""Every ``.sql`` file's contract header is what SQLite says the statement takes and returns.

A statement file opens with a comment header (docs/architecture.md, "SQL files"). Three of its
lines are a contract a machine can check:

    -- Database: index            which database the statement runs on (the names below)
    -- Params : :path, :limit     every named parameter, or ``none``
    -- Returns: (path, line)      the result columns as SQLite names them, or ``nothing``

and a schema file (DDL applied as a script) says ``-- Database: <name> (schema)`` instead. Each
statement is prepared with ``apsw.ext.query_info`` on a real database of its kind (the G0 index
for ``index``, the importer's staging connection for ``import``, the two attached indexes of an
audit for ``pair``, the history, fleet and outcome-store schemas for the rest), and the declared
parameters and columns are held to the prepared statement's. So a renamed column, a new
parameter or a header copied from another file fails here instead of in a reader's head.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import apsw
import apsw.ext
import pytest

from cm_graph.base.sqlfiles import query_sql
from cm_graph.index.ensure import open_index_for
from cm_graph.index.format import create_schema

from ..support.g0 import g0_graph, make_g0_repo
from ..support.helpers import publish

PACKAGE = Path(__file__).resolve().parents[2] / "cm_graph"
SQL_FILES = sorted(PACKAGE.glob("*/sql/*.sql"))
HEADER_KEY = re.compile(r"^--\s*(Database|Params|Returns)\s*:\s*(.*)$")
CONTINUATION = re.compile(r"^--\s{2,}(\S.*)$")
SCHEMAS = {"history": "history_schema", "fleet": "fleet_schema", "feedback": "feedback_schema"}


def header(path: Path) -> dict[str, str]:
    """The contract lines of a file's leading comment, each with its continuation lines."""
    found: dict[str, str] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        key = HEADER_KEY.match(line)
        if key:
            current = key.group(1)
            found[current] = key.group(2).strip()
            continue
        more = CONTINUATION.match(line)
        if current is not None and more and not re.match(r"^\w+\s*:", more.group(1)):
            found[current] += " " + more.group(1).strip()
        else:
            current = None
    return found


def declared_params(text: str) -> list[str]:
    return [] if text == "none" else re.findall(r":(\w+)", text)


def declared_columns(text: str) -> list[str] | None:
    """``(a, b, c) ...`` gives [a, b, c]; ``nothing`` gives None (a statement with no rows)."""
    if text == "nothing" or text.startswith("nothing "):
        return None
    group = re.match(r"^\(([^()]*)\)", text)
    assert group, f"Returns must start with a parenthesised column list or 'nothing': {text!r}"
    return [column.strip() for column in group.group(1).split(",")]


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, apsw.Connection]]:
    base = tmp_path_factory.mktemp("sql-contracts")
    workspace = publish(make_g0_repo(base / "repo"), base / "state", g0_graph())
    from cm_graph.generation.status import require_current

    index = open_index_for(require_current(workspace))
    index_file = index.filename

    def fresh(sql_name: str) -> apsw.Connection:
        connection = apsw.Connection(":memory:")
        connection.execute(query_sql(sql_name))
        return connection

    importing = apsw.Connection(":memory:")
    importing.execute(query_sql("staging_schema"))
    importing.execute("ATTACH DATABASE ':memory:' AS idx")
    create_schema(importing, "idx")
    importing.execute("ATTACH DATABASE ':memory:' AS res")
    importing.execute(query_sql("resolve_schema"))
    pair = apsw.Connection(":memory:", flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    pair.execute("ATTACH DATABASE ? AS old", (f"file:{index_file}?mode=ro",))
    pair.execute("ATTACH DATABASE ? AS new", (f"file:{index_file}?mode=ro",))
    made = {"index": index, "import": importing, "pair": pair}
    made.update({name: fresh(sql) for name, sql in SCHEMAS.items()})
    yield made
    for connection in made.values():
        connection.close()


def test_every_sql_file_declares_its_database() -> None:
    missing = [path.relative_to(PACKAGE).as_posix() for path in SQL_FILES if "Database" not in header(path)]
    assert not missing, f"no '-- Database:' line: {missing}"


@pytest.mark.parametrize("path", SQL_FILES, ids=lambda path: path.stem)
def test_the_contract_header_is_what_sqlite_prepares(path: Path, databases: dict[str, apsw.Connection]) -> None:
    contract = header(path)
    database = contract.get("Database", "")
    if database.endswith("(schema)"):
        assert database.removesuffix("(schema)").strip() in databases, database
        assert "Params" not in contract and "Returns" not in contract, "a schema file takes and returns nothing"
        return
    assert database in databases, f"{path.name}: unknown database {database!r} (one of {sorted(databases)})"
    assert "Params" in contract, f"{path.name}: no '-- Params :' line (write 'none' when it takes none)"
    assert "Returns" in contract, f"{path.name}: no '-- Returns:' line (write 'nothing' for a write)"
    details = apsw.ext.query_info(databases[database], path.read_text(encoding="utf-8"))
    assert details.query_remaining in (None, "") or not details.query_remaining.strip(), \
        f"{path.name} holds more than one statement"
    assert sorted(details.bindings_names or ()) == sorted(set(declared_params(contract["Params"]))), (
        f"{path.name}: declares {declared_params(contract['Params'])}, SQLite binds {details.bindings_names}")
    columns = declared_columns(contract["Returns"])
    prepared = [column[0] for column in details.description or ()]
    if columns is None:
        assert not prepared, f"{path.name} says it returns nothing but yields columns {prepared}"
    else:
        assert prepared == columns, f"{path.name}: declares columns {columns}, SQLite returns {prepared}"


def _schema_kind(path: Path) -> str | None:
    database = header(path).get("Database", "")
    return database.removesuffix("(schema)").strip() if database.endswith("(schema)") else None


@pytest.mark.parametrize("path", [p for p in SQL_FILES if _schema_kind(p)], ids=lambda path: path.stem)
def test_a_schema_file_applies_to_an_empty_database(path: Path) -> None:
    """A schema file runs whole as a script (every statement of it) and creates tables."""
    connection = apsw.Connection(":memory:")
    where = "main"
    if path.stem == "resolve_schema":  # the resolver's scratch tables live in an attached file
        connection.execute("ATTACH DATABASE ':memory:' AS res")
        where = "res"
    connection.execute(path.read_text(encoding="utf-8"))
    tables = connection.execute(f"SELECT count(*) FROM {where}.sqlite_schema WHERE type = 'table'").fetchall()
    assert tables[0][0] > 0
