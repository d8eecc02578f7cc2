"""``cm-graph export``: a canonical text dump of an index, for audits with ordinary tools.

This is the one place sqlite-utils (and so the stdlib ``sqlite3`` driver) touches an index: the
export opens the file read-only and never through apsw in the same process, so the two bundled
SQLite copies never share a file. One JSON object per row, tables in a fixed order, rows in
primary-key order, keys sorted: two exports of byte-identical indexes are byte-identical, and
two exports of different indexes ``diff`` line by line.

The dump keeps every value exact, yet no control or bidi character a file name or label holds
reaches the terminal raw (``base/printable.py``): in JSON lines each is a ``\\uXXXX`` escape
(``printable_json``), in SQL a string literal is split around it as ``'…'||char(27)||'…'``,
which SQLite reads back as the same text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..base.errors import Refusal
from ..base.printable import UNPRINTABLE, printable_json
from ..index.format import APPLICATION_ID, INDEX_TABLES
from ..index.mentions import read_postings

FORMATS = ("jsonl", "sql")


def _open(path: Path) -> Any:
    import sqlite_utils  # imported here: it is heavy, and only export needs it

    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db = sqlite_utils.Database(connection)
    try:
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.DatabaseError:
        connection.close()
        raise Refusal("The index file cannot be read as an SQLite database.", reason="unreadable") from None
    if application_id != APPLICATION_ID:
        connection.close()
        raise Refusal("The file was not written by cm-graph.", reason="unreadable")
    return db


def sql_printable(statement: str) -> str:
    """A dumped statement with each ``UNPRINTABLE`` character but newline as ``'||char(N)||'``.
    The schema is ours and printable but for the newlines of its statements, so any other such
    character can only stand inside a quoted text value, where closing the quote, concatenating
    ``char(N)`` and reopening it gives the same text. (A newline in a value stays raw, as in
    SQLite's own dump: it drives no terminal.)"""
    return UNPRINTABLE.sub(lambda match: match.group() if match.group() == "\n"
                           else f"'||char({ord(match.group())})||'", statement)


def export_lines(path: Path, fmt: str) -> Iterator[str]:
    """Yield the dump line by line (streamed: memory does not grow with the index)."""
    db = _open(path)
    try:
        if fmt == "sql":
            for statement in db.conn.iterdump():
                yield sql_printable(statement)
            return
        text_files: dict[int, str] = {}  # streamed before mention_names, whose postings name them
        for table in INDEX_TABLES:
            order = ", ".join(f'"{pk}"' for pk in db[table].pks)
            for row in db[table].rows_where(order_by=order):
                if table == "text_files":
                    text_files[row["file"]] = row["path"]
                if "postings" in row:  # the one blob column: as the lines it lists, by path
                    row["postings"] = [[text_files.get(file, str(file)), line, form]
                                       for file, line, form in read_postings(row["postings"])]
                yield printable_json(json.dumps({"table": table, "row": row}, sort_keys=True, ensure_ascii=False))
    except sqlite3.DatabaseError:
        raise Refusal("The index file is corrupt; run `cm-graph audit`.", reason="unreadable") from None
    finally:
        db.conn.close()
