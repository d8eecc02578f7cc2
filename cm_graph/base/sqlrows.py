"""Rows from an apsw cursor, typed as the SQL that produced them declares.

apsw's stub types every column of ``fetchall()`` as ``SQLiteValue`` (None, int, float, bytes or
str), since only the statement knows what it returns. Each SQL file's header states its row
(``returns:``); the caller says that row once, here, and the type checker then holds the code that
uses the values to it. Nothing is checked at run time: the rows come from an index this reader
wrote and sealed, and the question path stays as fast as a bare ``fetchall()`` (typing stays
unloaded).
"""

from __future__ import annotations

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import TypeVar

    import apsw

    Row = TypeVar("Row")


def fetch_rows(cursor: apsw.Cursor, row: type[Row]) -> list[Row]:
    """Every row of ``cursor``, each of the shape ``row`` (a tuple type, e.g. ``tuple[int, str]``)."""
    return list(cursor)


def fetch_value(cursor: apsw.Cursor, value: type[Row]) -> Row:
    """The first column of the one row a statement such as ``PRAGMA user_version`` returns."""
    return list(cursor)[0][0]
