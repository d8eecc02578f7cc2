"""Nodes as an answer names them: label, kind, path and line, read in one statement."""

from __future__ import annotations

import json
from typing import Any

import apsw

from ..base.sqlfiles import query_sql


def describe(connection: apsw.Connection, numbers: list[int]) -> dict[int, dict[str, Any]]:
    rows = connection.execute(query_sql("describe_nodes"), {"nodes": json.dumps(sorted(set(numbers)))})
    return {row[0]: {"label": row[1], "kind": row[4], "path": row[2], "line": row[3]} for row in rows}
