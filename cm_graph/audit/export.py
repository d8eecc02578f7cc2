"""``cm-graph export``: a canonical text dump of an index, for audits with ordinary tools.

This is the one place sqlite-utils (and so the stdlib ``sqlite3`` driver) touches an index: the
export opens the file read-only and never through apsw in the same process, so the two bundled
SQLite copies never share a file. One JSON object per row, tables in a fixed order, rows in
primary-key order, keys sorted: two exports of byte-identical indexes are byte-identical, and
two exports of different indexes ``diff`` line by line.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..base.errors import Refusal
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


def export_lines(path: Path, fmt: str) -> Iterator[str]:
    """Yield the dump line by line (streamed: memory does not grow with the index)."""
    db = _open(path)
    try:
        if fmt == "sql":
            yield from db.conn.iterdump()
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
                yield json.dumps({"table": table, "row": row}, sort_keys=True, ensure_ascii=False)
    except sqlite3.DatabaseError:
        raise Refusal("The index file is corrupt; run `cm-graph audit`.", reason="unreadable") from None
    finally:
        db.conn.close()
