"""The one-time importer: a verified generation in, one deterministic SQLite index out.

Stage 1 streams ``graph.json`` out of the artifact into scratch tables (bounded memory, batched
inserts). Stage 2 classifies edge endpoints, numbers nodes and edges by rank and writes the
sorted tables and adjacency into a temp sibling of the index. Stage 3 counts lines of every blob
a citation can name, from the bound commit through one ``git cat-file --batch``. Only a complete
file is renamed into place; every failure removes both scratch files.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import apsw

from . import artifact
from .document import CodeNode, DocumentShape, EdgeRecord, read_document
from .errors import Corrupt, Refusal, Unreadable
from .generation import Generation
from .gitio import BlobReader, Census, read_census, refuse_partial_clone
from .indexdb import IndexReport, configure, create_schema
from .privfs import ensure_private_dir, fsync_dir
from .resources import query_sql

_BATCH = 5000


class _StagingSink:
    """Collect validated records (tuples in staging column order) into staging tables in batches."""

    def __init__(self, connection: apsw.Connection) -> None:
        self._connection = connection
        self._nodes: list[CodeNode] = []
        self._exclusions: list[tuple[str, str]] = []
        self._edges: list[EdgeRecord] = []

    def add_code_node(self, node: CodeNode) -> None:
        self._nodes.append(node)
        if len(self._nodes) >= _BATCH:
            self._flush_nodes()

    def add_exclusion(self, provider_id: str, file_type: str) -> None:
        self._exclusions.append((provider_id, file_type))
        if len(self._exclusions) >= _BATCH:
            self._flush_exclusions()

    def add_edge(self, list_name: str, edge: EdgeRecord) -> None:
        self._edges.append(edge)
        if len(self._edges) >= _BATCH:
            self._flush_edges()

    def _flush_nodes(self) -> None:
        try:
            self._connection.executemany(
                "INSERT INTO stage_nodes VALUES (?, ?, ?, ?, ?, ?)", self._nodes
            )
        except apsw.ConstraintError:
            raise Unreadable("graph.json declares two code nodes with the same id.") from None
        self._nodes.clear()

    def _flush_exclusions(self) -> None:
        self._connection.executemany("INSERT INTO stage_exclusions VALUES (?, ?)", self._exclusions)
        self._exclusions.clear()

    def _flush_edges(self) -> None:
        self._connection.executemany(
            "INSERT INTO stage_edges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", self._edges
        )
        self._edges.clear()

    def flush(self) -> None:
        self._flush_nodes()
        self._flush_exclusions()
        self._flush_edges()


def build_index(generation: Generation, destination: Path) -> IndexReport:
    """Derive ``destination`` from ``generation``; nothing is left behind on failure."""
    started = time.perf_counter()
    checkout = generation.workspace.checkout
    ensure_private_dir(destination.parent, private_from=generation.workspace.root)
    token = uuid.uuid4().hex
    staging_path = destination.with_name(f".{destination.name}.{token}.staging")
    temp_path = destination.with_name(f".{destination.name}.{token}.tmp")
    try:
        with generation.open_verified_artifact() as handle:
            census = _census_for(generation, checkout)
            connection = _open_staging(staging_path, temp_path)
            try:
                with connection:
                    sink = _StagingSink(connection)
                    shape = read_document(
                        artifact.open_graph_member(handle),
                        commit=generation.manifest.commit,
                        provider=generation.manifest.provider,
                        sink=sink,
                    )
                    sink.flush()
                with connection:
                    counts = _write_tables(connection, generation, shape, census, checkout)
            finally:
                connection.close()
        _seal(temp_path)
        os.replace(temp_path, destination)
        fsync_dir(destination.parent)
    except apsw.FullError:
        raise Refusal("The disk filled up while the index was written.", reason="io") from None
    finally:
        for scratch in (staging_path, temp_path, Path(f"{staging_path}-journal"), Path(f"{temp_path}-journal")):
            try:
                os.unlink(scratch)
            except FileNotFoundError:
                pass
    return IndexReport(
        generation=generation.id,
        commit=generation.manifest.commit,
        path=destination,
        counts=counts,
        bytes=os.stat(destination).st_size,
        seconds=time.perf_counter() - started,
    )


def _census_for(generation: Generation, checkout: Path) -> Census:
    try:
        refuse_partial_clone(checkout)
        census = read_census(checkout, generation.manifest.commit)
    except Refusal as refusal:
        raise Unreadable(
            f"The bound commit's census could not be read: {refusal.message}"
        ) from None
    if census.digest() != generation.manifest.census_digest:
        raise Corrupt("The bound commit's tracked files do not match the generation's census digest.")
    return census


def _open_staging(staging_path: Path, temp_path: Path) -> apsw.Connection:
    fd = os.open(temp_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    os.close(fd)
    connection = apsw.Connection(str(staging_path))
    configure(connection)
    connection.execute(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE;"
        "PRAGMA cache_size = -16384;"
    )
    connection.execute(query_sql("staging_schema"))
    connection.execute("ATTACH DATABASE ? AS idx", (str(temp_path),))
    connection.execute("PRAGMA idx.journal_mode = OFF; PRAGMA idx.synchronous = OFF;")
    create_schema(connection, "idx")
    return connection


def _write_tables(
    connection: apsw.Connection,
    generation: Generation,
    shape: DocumentShape,
    census: Census,
    checkout: Path,
) -> dict[str, int]:
    bindings = {"edge_list": shape.edge_list}
    bad_site = connection.execute(query_sql("count_site_errors"), bindings).fetchall()
    if bad_site:
        raise Unreadable(bad_site[0][0])
    connection.execute(query_sql("classify_edges"), bindings)
    for statement in ("insert_nodes", "insert_edges", "insert_adjacency", "insert_undeclared", "insert_exclusions"):
        connection.execute(query_sql(statement), bindings if statement == "insert_edges" else {})
    cited = [row[0] for row in connection.execute(query_sql("select_cited_paths"))]
    lines = _line_counts(census, cited, checkout)
    connection.executemany(
        "INSERT INTO idx.census (path, mode, blob, size, lines) VALUES (?, ?, ?, ?, ?)",
        ((e.path, e.mode, e.blob, e.size, lines.get(e.path)) for e in census.entries),
    )
    counts = _tallies(connection, shape, census, len(lines))
    connection.executemany(
        "INSERT INTO idx.counts (name, value) VALUES (?, ?)", sorted(counts.items())
    )
    manifest = generation.manifest
    connection.execute(
        "INSERT INTO idx.generation VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            manifest.generation, manifest.commit, manifest.tree, manifest.built_at,
            manifest.completeness, manifest.provider.requirement, manifest.graph_digest,
            manifest.graph_bytes, manifest.census_digest, shape.format,
        ),
    )
    return counts


def _line_counts(census: Census, cited: list[str], checkout: Path) -> dict[str, int]:
    """Line counts of every cited path the commit tracks, reading each distinct blob once."""
    by_path = {entry.path: entry for entry in census.entries}
    wanted = [by_path[path] for path in cited if path in by_path]
    by_blob: dict[str, int] = {}
    if wanted:
        with BlobReader(checkout) as blobs:
            for entry in sorted(wanted, key=lambda e: e.blob):
                if entry.blob not in by_blob:
                    by_blob[entry.blob] = blobs.line_count(entry.blob, entry.size)
    return {entry.path: by_blob[entry.blob] for entry in wanted}


def _scalar(connection: apsw.Connection, sql: str) -> int:
    return int(connection.execute(sql).fetchall()[0][0] or 0)


def _tallies(
    connection: apsw.Connection, shape: DocumentShape, census: Census, counted: int
) -> dict[str, int]:
    return {
        "raw_nodes": shape.raw_nodes,
        "raw_edges": shape.raw_edges,
        "code_nodes": _scalar(connection, "SELECT count(*) FROM idx.nodes"),
        "sourceless_nodes": _scalar(connection, "SELECT count(*) FROM idx.nodes WHERE path = ''"),
        "excluded_nodes": _scalar(connection, "SELECT count(*) FROM stage_exclusions"),
        "edges": _scalar(connection, "SELECT count(*) FROM idx.edges"),
        "edge_records": _scalar(connection, "SELECT sum(records) FROM idx.edges"),
        "call_sites": _scalar(connection, "SELECT count(*) FROM idx.edges WHERE site_path <> ''"),
        "incomplete_nodes": _scalar(connection, "SELECT count(*) FROM idx.nodes WHERE incomplete"),
        "undeclared_endpoints": _scalar(connection, "SELECT count(*) FROM idx.undeclared_endpoints"),
        "census_files": len(census.entries),
        "census_skipped": census.skipped,
        "cited_files": counted,
    }


def _seal(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
