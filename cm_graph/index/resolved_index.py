"""The importer's resolved layer: which files are resolved, by which process, and its tables.

The files are the Python (``.py``, ``.pyi``) and JavaScript/TypeScript files (``resolvers``) among
the paths the graph's code nodes name,
read from the bound commit (never the working tree): the same files the provider extracted, so
an operator's ``--exclude`` and the provider's scope rules hold here too. On a large graph a
worker process (``resolve_worker``) is started with the build and handed those paths as soon as
the document's nodes end; otherwise, or when the worker's answer does not stand, the importer
resolves them itself once the graph's tables and the text index are written. Either way the rows
are ``resolve_blobs``' of the same blobs, so the index's bytes are too. A fault of a resolver
itself (a bug meeting some file) costs only its language's resolved rows (``resolvers._guarded``),
and a fault past them the whole layer: those files are listed ``failed`` and the rest of the index
is written as ever.
"""

from __future__ import annotations

from pathlib import Path

import apsw

from ..base.git import Census
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from .jsmanifest import manifest_paths
from .jsscope import is_js_path
from .pyresolve import read_python_blobs
from .resolve_worker import ResolveWorker
from .resolved import ResolvedLayer
from .resolvers import failed_layer, is_resolved_path, resolve_blobs

# As for the text scan, and from the same size: a smaller graph's files are resolved in the
# importer's own thread, where a worker's start would cost more than it saves. Imported, so each
# module's copy can still be set apart (the tests force one worker or the other).
from .text_index import WORKER_FROM_GRAPH_BYTES


class Resolution:
    """One build's resolution: a worker for a large graph, asked (``start``) when the nodes end;
    ``layer`` once, then ``close``."""

    def __init__(self, graph_bytes: int, scratch_dir: Path) -> None:
        self._worker: ResolveWorker | None = None
        self._paths: list[str] = []
        if graph_bytes >= WORKER_FROM_GRAPH_BYTES:
            try:
                self._worker = ResolveWorker(scratch_dir)
            except OSError:  # no room for its output file: this thread resolves everything
                pass

    def start(self, checkout: Path, commit: str, paths: set[str]) -> None:
        """The node paths, known when the nodes end: the Python and JavaScript/TypeScript ones are
        resolved, with the ``package.json`` files that may hold a JS/TS one (those the commit
        tracks are read: ``jsmanifest``)."""
        resolved = {path for path in paths if is_resolved_path(path) and "\n" not in path}
        manifests = manifest_paths(path for path in resolved if is_js_path(path))
        self._paths = sorted(resolved | manifests)
        if self._worker is not None:
            self._worker.request(checkout, commit, self._paths)

    def layer(self, census: Census, checkout: Path) -> ResolvedLayer:
        """The layer of the requested paths the commit tracks (the worker's when it stands)."""
        by_path = {entry.path: entry for entry in census.entries}
        entries = [by_path[path] for path in self._paths if path in by_path]
        worker, self._worker = self._worker, None
        if worker is not None:
            answered = worker.layer({entry.path: entry.blob for entry in entries})
            if answered is not None:
                return answered
        blobs = list(read_python_blobs(checkout, entries))  # git's refusals are the build's
        try:
            return resolve_blobs(blobs)
        except Exception:  # noqa: BLE001 - a resolver fault costs the resolved layer, never the index
            return failed_layer(blobs)

    def close(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()


def write_resolved(connection: apsw.Connection, layer: ResolvedLayer) -> dict[str, int]:
    """The resolved tables, each in its primary-key order, and their tallies for ``counts``
    (definitions are bound to nodes through the staging file's ``stage_node_sites``).

    Like the bulk graph rows, the CHECKed columns (status, kind, overload, role) hold only the
    words the resolvers write, so the CHECKs are not evaluated per row."""
    paths = [row[0] for row in layer.files]
    connection.execute(query_sql("stage_node_sites"))
    connection.execute("PRAGMA ignore_check_constraints = ON")
    try:
        connection.executemany(query_sql("insert_resolved_files"), (
            {"file": number, "path": path, "language": language, "module": module, "status": status}
            for number, (path, language, module, status) in enumerate(layer.files, start=1)))
        connection.executemany(query_sql("insert_definitions"), (
            {"definition": d[0], "file": d[1], "parent": d[2], "kind": d[3], "name": d[4], "qualname": d[5],
             "start_line": d[6], "line": d[7], "end_line": d[8], "overload": d[9], "path": paths[d[1] - 1],
             "base_name": paths[d[1] - 1].rpartition("/")[2]}
            for d in layer.definitions))
        # The layer's own tuples, bound by position (half a million of them on a large graph):
        # no row is built here.
        connection.executemany(query_sql("insert_resolved_references"), layer.references)
    finally:
        connection.execute("PRAGMA ignore_check_constraints = OFF")
    names = ("resolved_files", "resolved_unparsable_files", "resolved_definitions", "resolved_definitions_on_nodes",
             "resolved_nodes", "resolved_nodes_with_definitions", "resolved_references",
             "resolved_unbound_references")
    values = fetch_rows(connection.execute(query_sql("tally_resolved")), tuple[int, ...])[0]
    return dict(zip(names, values, strict=True))
