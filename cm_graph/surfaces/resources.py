"""The MCP resources: a file's definitions (``cmgraph://symbols/{path}``), the graph's status
(``cmgraph://status``) and each reply schema in full (``cmgraph://schemas/{schema}``,
``replyschemas.py``), each one row of ``RESOURCES`` with the reader that answers it.

A read of the checkout is a call like any tool's: the connection is read again and must name the
recipient, HEAD is read now, and nothing is derived (a missing index is ``index_missing``). ``cmgraph://status`` is
the ``graph_status`` answer, the same bytes; ``cmgraph://symbols/{path}`` is ``cm-graph symbols PATH
--json``'s object, compact (the path repository-relative, its ``/`` as written or escaped as
RFC 6570's ``{path}`` expands it). What cannot be read (no such resource, a path with no
definition, an unnamed recipient, a graph not current) is a ``Refusal``: the server answers it as
a JSON-RPC error whose data is the one refusal reply every surface gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from ..base.errors import Refusal
from ..evidence.filesymbols import file_definitions
from ..query.targets import path_spelling
from .answers import graph_status_answer
from .authority import Caller, approved_workspace
from .replyschemas import whole_schema

SCHEME = "cmgraph://"
JSON = "application/json"
Reader = Callable[[Caller, str], dict[str, Any]]


@dataclass(frozen=True)
class Resource:
    """A resource (``uri``) or a resource template (``uri`` ends with ``{name}``, what follows its
    prefix is the reader's argument)."""

    name: str
    uri: str
    description: str
    reader: Reader

    @property
    def prefix(self) -> str:
        return self.uri.split("{", 1)[0]

    @property
    def is_template(self) -> bool:
        return "{" in self.uri


def symbols(caller: Caller, path: str) -> dict[str, Any]:
    workspace, _ = approved_workspace(caller)
    given = unquote(path)
    spelled = path_spelling(given.strip("/"))
    return file_definitions(workspace, given.strip("/"), [spelled] if spelled not in (".", "") else [],
                            derive=False, trust_seal=True)


def status(caller: Caller, _: str) -> dict[str, Any]:
    return graph_status_answer(caller, {})


def reply_schema(_: Caller, name: str) -> dict[str, Any]:
    """A reply schema in full: the program's, so no connection is read (it names nothing of a checkout)."""
    return whole_schema(unquote(name))


RESOURCES: tuple[Resource, ...] = (
    Resource("status", SCHEME + "status", "Can the graph answer now: the graph_status tool's answer.", status),
    Resource("symbols", SCHEME + "symbols/{path}",
             "A file's definitions by line (cm-graph symbols PATH), e.g. cmgraph://symbols/pkg/mod.py.", symbols),
    Resource("schemas", SCHEME + "schemas/{schema}",
             "A reply schema in full (JSON Schema 2020-12), e.g. cmgraph://schemas/cm_graph.changes.v1.", reply_schema),
)


def read(caller: Caller, uri: str) -> dict[str, Any]:
    """The object the resource ``uri`` names, read now."""
    for resource in RESOURCES:
        if resource.is_template and uri.startswith(resource.prefix):
            return resource.reader(caller, uri[len(resource.prefix):])
        if uri == resource.uri:
            return resource.reader(caller, "")
    raise Refusal(f"No resource {uri[:80]!r}; see resources/list and resources/templates/list.", reason="not_found")
