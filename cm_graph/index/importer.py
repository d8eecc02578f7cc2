"""The one-time importer: a verified generation in, one deterministic SQLite index out.

Stage 1 streams ``graph.json`` out of the artifact into scratch tables (bounded memory, batched
inserts); for a large graph a resolver thread looks the staged edges' endpoints up as they are
committed (``resolver``). Stage 2 classifies edge endpoints, numbers nodes and edges by rank and
writes the sorted tables and adjacency into a temp sibling of the index. Stage 3 counts lines of
every blob a citation can name, from the bound commit through one ``git cat-file --batch``, and
scans them for the text index (``text_index``: a large graph's scan starts in a worker process as
soon as the nodes end), while SQLite writes the adjacency; the census is read while stage 2 sorts.
Stage 4 writes the resolved layer (``resolved_index``: every reference of the Python files the
nodes name, bound to its definition; a large graph's starts in a second worker process as soon
as the nodes end) and binds its definitions to the graph's nodes. The statements write the index
in one fixed order, so threads and processes change when work happens, never the file's bytes.
Only a complete file is renamed into place; every failure removes all scratch files.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Generic, TypeVar

import apsw

from ..base.errors import Corrupt, Refusal, Unreadable
from ..base.git import Census, read_census, refuse_partial_clone
from ..base.privfs import ensure_private_dir, fsync_dir
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..generation import artifact
from ..generation.scratch import scratch_owner
from ..generation.store import Generation
from . import resolver
from .format import IndexReport, configure, create_schema, index_write_refusal
from .graph_document import CodeNode, DocumentShape, EdgeRecord, read_document
from .mentions import module_names
from .resolved_index import Resolution, write_resolved
from .resolver import EndpointResolver
from .text_index import TextScan, write_text_index

_BY_EDGE_LIST = ("insert_rationale", "insert_external_references")  # statements bound to :edge_list
MAX_RATIONALE_CHARS = 300  # a rationale's text in the index (the provider's label is longer)
_BATCH = 5000
# From the first _OVERLAP_FROM staged edges on, they are committed (and handed to the resolver)
# every _COMMIT_EDGES, and every _COMMIT_EDGES_LATER once there are _COMMIT_LATER_FROM (see
# _StagingSink): short intervals keep the resolver close behind the parse, and fewer commits
# cost less on a graph large enough that its resolver never catches up anyway.
_OVERLAP_FROM = 2 * _BATCH
_COMMIT_EDGES = _BATCH
_COMMIT_LATER_FROM = 10 * _BATCH
_COMMIT_EDGES_LATER = 5 * _BATCH


def _commit_interval(staged: int) -> int:
    return _COMMIT_EDGES if staged < _COMMIT_LATER_FROM else _COMMIT_EDGES_LATER
# SQLite's default 2 MB page cache for the staging file: a larger one saves little (16 MiB: a
# few percent) and grows the peak RSS by its size.
_STAGING_CACHE = -2000
_T = TypeVar("_T")


class _Background(Generic[_T]):
    """Run ``work`` on a thread while the caller goes on; ``result`` joins and re-raises.

    The importer's background work is ``git`` children (the census, the cited blobs' line
    counts): their pipes release the GIL, and so does SQLite while a statement runs, so on a
    machine with two cores the waiting on git hides behind parsing and sorting. Callers decide
    which error wins when both sides fail, so refusals come in the order a sequential build
    raised them.
    """

    def __init__(self, work: Callable[[], _T]) -> None:
        self._work = work
        self._value: _T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cm-graph-import", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as error:  # handed to the caller by result()
            self._error = error

    def result(self) -> _T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]

    def wait(self) -> None:
        """Join without raising (the caller is already failing for an earlier reason)."""
        self._thread.join()


class _StagingSink:
    """Collect validated records (tuples in staging column order) into staging tables in batches.

    Past the first ``_OVERLAP_FROM`` edges it commits every few batches once the nodes have ended
    (an edge came after them; the nodes list is one array and its key cannot repeat), and an
    ``EndpointResolver`` looks up what is committed while the rest is read. A smaller graph is
    committed once, at the end: for it the commits would cost more than the overlap saves.
    """

    def __init__(
        self, connection: apsw.Connection, scratch: _Scratch, nodes_ended: Callable[[set[str], set[str]], None]
    ) -> None:
        self._connection = connection
        self._scratch = scratch
        # What the text scan needs as soon as the nodes end (the first edge, or the end).
        self._nodes_ended: Callable[[set[str], set[str]], None] | None = nodes_ended
        self._labels: set[str] = set()
        self._paths: set[str] = set()
        self.resolver: EndpointResolver | None = None
        self._nodes: list[CodeNode] = []
        self._exclusions: list[tuple[str, str]] = []
        self._rationale: list[tuple[str, str, int, str, int]] = []
        self._untraversable: list[tuple[str]] = []
        self._member_calls: list[tuple[str, str, str, str, int]] = []
        self._edges: list[EdgeRecord] = []
        self._nodes_seen = False
        self._nodes_committed = False
        self._staged_edges = 0
        self._duplicate: Unreadable | None = None
        self._overlap = True
        connection.execute("BEGIN")

    def add_code_node(self, node: CodeNode) -> None:
        self._nodes_seen = True
        self._nodes.append(node)
        if node[5] != "file":
            self._labels.add(node[1])
        if node[3]:
            self._paths.add(node[3])
        if len(self._nodes) >= _BATCH:
            self._flush_nodes()

    def add_exclusion(self, provider_id: str, file_type: str) -> None:
        self._nodes_seen = True
        self._exclusions.append((provider_id, file_type))
        if len(self._exclusions) >= _BATCH:
            self._flush_exclusions()

    def add_rationale(self, provider_id: str, path: str, line: int, text: str) -> None:
        """A rationale node (already staged as an exclusion) with a citable location: its text,
        whitespace collapsed and bounded, for the ``rationale`` table."""
        self._nodes_seen = True
        collapsed = " ".join(text.split())
        truncated = len(collapsed) > MAX_RATIONALE_CHARS
        self._rationale.append((provider_id, path, line, collapsed[:MAX_RATIONALE_CHARS], int(truncated)))
        if len(self._rationale) >= _BATCH:
            self._flush_exclusions()

    def add_untraversable(self, provider_id: str) -> None:
        """A code node whose path no citation can carry: staged by id only (never indexed), so
        its edges are pruned and its neighbours know they border it."""
        self._nodes_seen = True
        self._untraversable.append((provider_id,))
        if len(self._untraversable) >= _BATCH:
            self._flush_untraversable()

    def add_member_call(self, provider_id: str, callee: str, receiver_type: str, language: str, line: int) -> None:
        """A member call the provider parked on a code node (its receiver type is declared
        nowhere in this build): kept as an external reference for the fleet."""
        self._member_calls.append((provider_id, callee, receiver_type, language, line))
        if len(self._member_calls) >= _BATCH:
            self._flush_untraversable()

    def add_edge(self, list_name: str, edge: EdgeRecord) -> None:
        if self._nodes_ended is not None:
            self._end_nodes()
        self._edges.append(edge)
        staged = self._staged_edges + len(self._edges)
        if self._overlap and self._nodes_seen and staged >= _OVERLAP_FROM and staged % _commit_interval(staged) == 0:
            self._flush_edges()
            self._commit()
        elif len(self._edges) >= _BATCH:
            self._flush_edges()

    def _commit(self) -> None:
        """Commit what is staged and hand it to the resolver (started by the first commit)."""
        if not self._nodes_committed:
            try:
                self._flush_nodes()
            except Unreadable as duplicate:
                # A sequential import met this batch at its final flush, after the whole
                # document was checked; it is raised there (finish), so refusals keep their order.
                self._duplicate = duplicate
            self._flush_exclusions()
            self._flush_untraversable()
            self._nodes_committed = True
        self._connection.execute("COMMIT")
        if self.resolver is None:
            # WAL lets the resolver's connection read committed batches while more are written
            # (main only: never the index's file). A file system without WAL support keeps the
            # old mode, and then everything is resolved at the end.
            mode = self._connection.execute("PRAGMA main.journal_mode = WAL").fetchall()
            self._connection.execute("BEGIN")
            if mode != [("wal",)]:
                self._overlap = False
                return
            self.resolver = EndpointResolver(self._scratch.staging, self._scratch.resolved, self._staged_edges)
        else:
            self._connection.execute("BEGIN")
            self.resolver.edges_staged(self._staged_edges)

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
        self._connection.executemany("INSERT INTO stage_rationale VALUES (?, ?, ?, ?, ?)", self._rationale)
        self._rationale.clear()

    def _flush_untraversable(self) -> None:
        self._connection.executemany("INSERT INTO stage_untraversable VALUES (?)", self._untraversable)
        self._untraversable.clear()
        self._connection.executemany("INSERT INTO stage_member_calls VALUES (?, ?, ?, ?, ?)", self._member_calls)
        self._member_calls.clear()

    def _flush_edges(self) -> None:
        self._connection.executemany(
            "INSERT INTO stage_edges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self._edges
        )
        self._staged_edges += len(self._edges)
        self._edges.clear()

    def _end_nodes(self) -> None:
        ended, self._nodes_ended = self._nodes_ended, None
        if ended is not None:
            ended(self._labels | module_names(self._paths), self._paths)

    def finish(self) -> int:
        """Stage what is left and commit; the number of staged edges."""
        self._end_nodes()
        if self._duplicate is not None:
            raise self._duplicate
        self._flush_nodes()
        self._flush_exclusions()
        self._flush_untraversable()
        self._flush_edges()
        self._connection.execute("COMMIT")
        return self._staged_edges


class _Scratch:
    """The scratch files of one build, beside the index: the staging database (with its WAL and
    shared-memory files) and the resolver's database."""

    def __init__(self, destination: Path, token: str) -> None:
        self.staging = destination.with_name(f".{destination.name}.{token}.staging")
        self.resolved = destination.with_name(f".{destination.name}.{token}.resolved")

    def files(self) -> tuple[Path, ...]:
        suffixes = ("", "-journal", "-wal", "-shm")
        return tuple(Path(f"{path}{suffix}") for path in (self.staging, self.resolved) for suffix in suffixes)


def build_index(
    generation: Generation, destination: Path, *, trust_artifact_seal: bool = True, seal: bool = True
) -> IndexReport:
    """Derive ``destination`` from ``generation`` and seal it; nothing is left behind on failure.

    Scratch names carry this derivation's owner token (``scratch``), so a concurrent build's
    cleanup or sweep never removes them, and a killed derivation's are swept by the next command.
    ``trust_artifact_seal`` is for callers that verified graph.bin themselves just before (a
    publish, ``status``, ``cm-graph index``); a question deriving a missing index passes False.
    ``seal`` is False only for the audit's throw-away re-derivation.
    """
    started = time.perf_counter()
    try:
        ensure_private_dir(destination.parent, private_from=generation.workspace.root)
        with scratch_owner(generation.workspace) as token:
            return _build_owned(generation, destination, token, started, trust_artifact_seal, seal)
    except OSError as error:  # the owner record itself could not be made (or removed)
        raise index_write_refusal(error) from None


def _build_owned(
    generation: Generation, destination: Path, token: str, started: float, trust_artifact_seal: bool, seal: bool
) -> IndexReport:
    """``build_index``'s steps, with ``token`` naming this derivation's scratch."""
    from .seal import write_seal

    scratch = _Scratch(destination, token)
    temp_path = destination.with_name(f".{destination.name}.{token}.tmp")
    try:
        with generation.open_verified_artifact(trust_seal=trust_artifact_seal) as handle:
            counts = _stage_and_write(generation, handle, scratch, temp_path)
        _seal(temp_path)
        os.replace(temp_path, destination)
        fsync_dir(destination.parent)
        if seal:
            write_seal(generation, destination, token=token)
        size = os.stat(destination).st_size
    except (apsw.FullError, OSError) as error:
        raise index_write_refusal(error) from None
    finally:
        for path in (*scratch.files(), temp_path, Path(f"{temp_path}-journal")):
            try:
                os.unlink(path)
            except OSError:
                pass
    return IndexReport(
        generation=generation.id,
        commit=generation.manifest.commit,
        path=destination,
        counts=counts,
        bytes=size,
        seconds=time.perf_counter() - started,
    )


def _stage_and_write(
    generation: Generation, handle: BinaryIO, scratch: _Scratch, temp_path: Path
) -> dict[str, int]:
    """Stage the document (resolving a large graph's edges beside it), then write the index
    tables while git reads the census.

    The census is read while SQLite sorts (both release the GIL; during the parse it would only
    contend for it). A sequential build read it first, so its refusal still wins over any other.
    """
    checkout = generation.workspace.checkout
    try:
        connection = _open_staging(scratch, temp_path)
    except Exception:
        _census_for(generation, checkout)
        raise
    sink: _StagingSink | None = None
    text_scan = TextScan(generation.manifest.graph_bytes, temp_path.parent)  # never raises
    resolution = Resolution(generation.manifest.graph_bytes, temp_path.parent)  # never raises

    def nodes_ended(labels: set[str], paths: set[str]) -> None:
        text_scan.start(checkout, generation.manifest.commit, labels, paths)
        resolution.start(checkout, generation.manifest.commit, paths)

    try:
        try:
            sink = _StagingSink(connection, scratch, nodes_ended)
            shape = read_document(
                artifact.open_graph_member(handle),
                commit=generation.manifest.commit,
                provider=generation.manifest.provider,
                sink=sink,
            )
            staged = sink.finish()
        except BaseException as error:
            if sink is not None and sink.resolver is not None:
                sink.resolver.abandon()
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            if isinstance(error, Exception):
                _census_for(generation, checkout)
            raise
        census = _Background(lambda: _census_for(generation, checkout))
        try:
            resolved = sink.resolver.stop() if sink.resolver is not None else None
            resolver.attach(connection, scratch.resolved)
            with connection:
                if resolved is None:
                    resolver.prepare(connection)
                    resolved = 0
                if resolved < staged:
                    resolver.resolve(connection, resolved + 1, staged)
                counts = _write_tables(connection, generation, shape, census, checkout, text_scan, resolution)
            return counts  # after the commit (a return inside the block reads, to a checker, as maybe swallowed)
        except Exception:
            census.wait()
            census.result()
            raise
    finally:
        text_scan.close()
        resolution.close()
        connection.close()


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


def _open_staging(scratch: _Scratch, temp_path: Path) -> apsw.Connection:
    for path in (temp_path, scratch.resolved):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)
    connection = apsw.Connection(str(scratch.staging))
    configure(connection)
    # Scratch files need no journal or fsync (a failed build deletes them); a large graph's
    # staging file turns to WAL mode for the resolver (_StagingSink), and nothing is ever
    # checkpointed back. 8 KiB pages halve the staging file's page operations (larger ones grow
    # SQLite's sorter buffers). Foreign keys are not checked while building: every node number
    # an index row carries is a rank of a staged node, so the references hold by construction,
    # and checking costs two lookups per edge. The index's own page size is fixed by
    # create_schema.
    # (One statement per call: apsw stops a multi-statement string at the first row a PRAGMA
    # returns, and journal_mode returns one, so what followed it was never applied.)
    connection.config(apsw.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
    for pragma in (
        "PRAGMA main.page_size = 8192",
        "PRAGMA main.journal_mode = OFF",
        "PRAGMA main.wal_autocheckpoint = 0",
        "PRAGMA main.synchronous = OFF",
        f"PRAGMA main.cache_size = {_STAGING_CACHE}",
        "PRAGMA temp_store = FILE",
        "PRAGMA foreign_keys = OFF",
    ):
        connection.execute(pragma)
    with connection:  # one transaction for the scratch schema (the index's own DDL is untouched)
        connection.execute(query_sql("staging_schema"))
    connection.execute("ATTACH DATABASE ? AS idx", (str(temp_path),))
    connection.execute("PRAGMA idx.journal_mode = OFF")
    connection.execute("PRAGMA idx.synchronous = OFF")  # the sealed file is fsynced once, by _seal
    create_schema(connection, "idx")
    return connection


def _write_tables(
    connection: apsw.Connection,
    generation: Generation,
    shape: DocumentShape,
    census_work: _Background[Census],
    checkout: Path,
    text_scan: TextScan,
    resolution: Resolution,
) -> dict[str, int]:
    bindings = {"edge_list": shape.edge_list}
    if connection.execute(query_sql("find_untraversable_duplicates")).fetchall():
        raise Unreadable("graph.json declares two code nodes with the same id.")
    bad_site = fetch_rows(connection.execute(query_sql("count_site_errors"), bindings), tuple[str])
    if bad_site:
        raise Unreadable(bad_site[0][0])
    connection.execute(query_sql("classify_edges"), bindings)
    connection.execute(query_sql("classify_untraversable"), bindings)
    # The bulk rows' CHECKed columns (node and edge kinds, confidences, directions, the
    # incomplete flag) hold only words from graphmodel's fixed vocabularies or 0/1, written by
    # this reader, so evaluating the CHECKs per row (a third of the edge insert) proves nothing;
    # they are on again for the rows that come from the manifest and the census.
    connection.execute("PRAGMA ignore_check_constraints = ON")
    for statement in ("insert_nodes", "insert_edges"):
        connection.execute(query_sql(statement), bindings if statement == "insert_edges" else {})
    cited = [row[0] for row in connection.execute(query_sql("select_cited_paths"))]
    census = census_work.result()
    # Count lines (and scan them for the text index) while SQLite writes the adjacency (the
    # statements write in the same order as ever, so the file's bytes do not change); a failed
    # statement is still the error raised. With a scan worker, this thread scans the files the
    # worker has not reached once the statements are done (during them it would only slow them).
    labels = sorted({label for (label,) in connection.execute(query_sql("select_defined_labels"))}
                    | module_names(path for (path,) in connection.execute(query_sql("select_node_paths"))))
    line_work = None if text_scan.has_worker else _Background(lambda: text_scan.read(census, cited, checkout, labels))
    try:
        for statement in (
            "insert_adjacency", "insert_undeclared", "insert_untraversable_borders", "insert_exclusions",
            "insert_rationale", "insert_external_references",
        ):
            connection.execute(query_sql(statement), bindings if statement in _BY_EDGE_LIST else {})
    except Exception:
        if line_work is not None:
            line_work.wait()
        raise
    finally:
        connection.execute("PRAGMA ignore_check_constraints = OFF")
    lines, mentions = line_work.result() if line_work is not None else text_scan.read(census, cited, checkout, labels)
    connection.executemany(
        "INSERT INTO idx.census (path, mode, blob, size, lines) VALUES (?, ?, ?, ?, ?)",
        ((e.path, e.mode, e.blob, e.size, lines.get(e.path)) for e in census.entries),
    )
    write_text_index(connection, mentions)
    counts = _tallies(connection, shape, census, sum(1 for path in cited if path in lines))
    counts.update(write_resolved(connection, resolution.layer(census, checkout)))
    connection.executemany(
        "INSERT INTO idx.counts (name, value) VALUES (?, ?)", sorted(counts.items())
    )
    connection.execute(query_sql("insert_generation"), generation_row(generation, shape.format))
    return counts


def generation_row(generation: Generation, document_format: str) -> dict[str, object]:
    """The bindings of ``insert_generation``: what the index says about the generation it serves."""
    manifest = generation.manifest
    return {
        "generation": manifest.generation, "commit_id": manifest.commit, "tree_id": manifest.tree,
        "built_at": manifest.built_at, "completeness": manifest.completeness,
        "provider": manifest.provider.requirement, "graph_digest": manifest.graph_digest,
        "graph_bytes": manifest.graph_bytes, "census_digest": manifest.census_digest,
        "document_format": document_format,
    }


def _tallies(
    connection: apsw.Connection, shape: DocumentShape, census: Census, counted: int
) -> dict[str, int]:
    (
        code_nodes, sourceless_nodes, incomplete_nodes, edges, edge_records, call_sites,
        undeclared_endpoints, excluded_nodes, untraversable_nodes, untraversable_call_sites,
    ) = fetch_rows(connection.execute(query_sql("tally_index"), {"edge_list": shape.edge_list}), tuple[int, ...])[0]
    return {
        "raw_nodes": shape.raw_nodes,
        "raw_edges": shape.raw_edges,
        "code_nodes": code_nodes,
        "sourceless_nodes": sourceless_nodes,
        "excluded_nodes": excluded_nodes,
        "edges": edges,
        "edge_records": edge_records,
        "call_sites": call_sites,
        "incomplete_nodes": incomplete_nodes,
        "undeclared_endpoints": undeclared_endpoints,
        "untraversable_nodes": untraversable_nodes,
        "untraversable_call_sites": untraversable_call_sites,
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
