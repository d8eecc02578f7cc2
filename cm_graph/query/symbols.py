"""What the operator's view says about definitions, beyond what a packet carries.

A packet names a node by its label and citation; a person reading ``ask`` needs to tell five
``.invoke()`` methods apart and to see which definitions a name matched. This module reads that
from the index: the provider's id and the holding definition (container) of each node, every
definition a target matches (so the seed bound's drops can be counted), and a file's own
definitions (``cm-graph symbols PATH``). Nothing here changes what a question answers.
"""

from __future__ import annotations

import json

import apsw

from ..base.records import record
from ..base.rules import citation_string
from ..base.sqlfiles import query_sql
from .traversal import matching_nodes

MAX_LISTED_MATCHES = 1000  # definitions counted for "the name matches N definitions"
MAX_FILE_SYMBOLS = 5000


@record
class Endpoint:
    node: int
    label: str
    kind: str
    path: str
    line: int | None
    provider_id: str
    container: str | None

    @property
    def citation(self) -> str | None:
        return citation_string(self.path, self.line) if self.path else None

    @property
    def qualified(self) -> str:
        """``Context.ensure_object()`` for a method the provider labels ``.ensure_object()``."""
        if self.container and self.label.startswith("."):
            return f"{self.container}{self.label}"
        return self.label

    def to_json(self) -> dict[str, object]:
        return {
            "label": self.label, "kind": self.kind, "citation": self.citation,
            "path": self.path, "line": self.line, "provider_id": self.provider_id,
            "container": self.container,
        }


def describe(connection: apsw.Connection, nodes: list[int]) -> dict[int, Endpoint]:
    """Each node's label, kind, location, provider id and container."""
    wanted = json.dumps(sorted(set(nodes)))
    base = {
        row[0]: row for row in connection.execute(query_sql("describe_nodes"), {"nodes": wanted})
    }
    extra = {
        row[0]: row for row in connection.execute(query_sql("describe_endpoints"), {"nodes": wanted})
    }
    return {
        node: Endpoint(node, row[1], row[4], row[2], row[3], extra[node][1], extra[node][2])
        for node, row in base.items()
    }


def matching_definitions(
    connection: apsw.Connection, target: str, within: str | None = None, *, qualified: bool = False
) -> tuple[list[Endpoint], int]:
    """The definitions ``target`` resolves to (in node order, at most MAX_LISTED_MATCHES; by the
    grammar the answer was read with) and how many there are (MAX_LISTED_MATCHES + 1 means "more
    than that")."""
    nodes = matching_nodes(connection, target, MAX_LISTED_MATCHES + 1, within, qualified=qualified)
    described = describe(connection, list(nodes[:MAX_LISTED_MATCHES]))
    return [described[node] for node in nodes[:MAX_LISTED_MATCHES]], len(nodes)


def file_symbols(connection: apsw.Connection, path: str) -> list[dict[str, object]]:
    """The definitions the graph holds for one file, by line: label, kind, line."""
    rows = connection.execute(query_sql("list_file_symbols"), {"path": path, "limit": MAX_FILE_SYMBOLS})
    return [{"label": label, "kind": kind, "line": line} for _, label, kind, line in rows]


def undeclared_near(connection: apsw.Connection, nodes: list[int], limit: int = 10) -> list[str]:
    """The undeclared endpoints next to ``nodes``: why an answer is provider_partial (bounded)."""
    rows = connection.execute(
        query_sql("list_undeclared_endpoints"), {"nodes": json.dumps(sorted(set(nodes))), "limit": limit}
    )
    return [row[0] for row in rows]
