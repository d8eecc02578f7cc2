"""Resolve staged edge endpoints to node numbers, beside the parse when the graph is large.

An edge's ends are provider ids; the index needs node numbers (ranks of the code nodes' ids), and
the undeclared-endpoint check needs to know which ends are code nodes at all. Both are lookups of
every staged edge in the code nodes, which are complete once the nodes list has ended. The
provider writes its nodes before its edges, so for a large graph the importer commits what it
has staged every few batches (switching the staging file to WAL mode) and an ``EndpointResolver``
ranks the nodes and resolves each committed batch into its own scratch file, on a thread with
its own connection. SQLite releases the GIL while a statement runs, so on a machine with two
cores the lookups happen beside the parse instead of after it. Whatever is left (all of a small
graph, the last batches of a large one) is resolved by the importer's own connection at the end,
with the same statements (``prepare``, ``resolve``).

The results depend only on the staged rows, never on timing: node_rank numbers nodes exactly as
insert_nodes numbers idx.nodes, and resolved keeps each edge's staged rowid (document order).
"""

from __future__ import annotations

import threading
from pathlib import Path

import apsw

from ..base.sqlfiles import query_sql
from .format import configure


def attach(connection: apsw.Connection, resolved_path: Path) -> None:
    """Attach the resolver's scratch file as ``res`` (no journal: a failed build deletes it)."""
    connection.execute("ATTACH DATABASE ? AS res", (str(resolved_path),))
    connection.execute("PRAGMA res.journal_mode = OFF")
    connection.execute("PRAGMA res.synchronous = OFF")


def prepare(connection: apsw.Connection) -> None:
    """Create the scratch tables in ``res`` and rank the staged code nodes."""
    connection.execute(query_sql("resolve_schema"))
    connection.execute(query_sql("rank_nodes"))


def resolve(connection: apsw.Connection, first: int, last: int) -> None:
    """Resolve the ends of staged edges ``first..last`` (rowids)."""
    connection.execute(query_sql("resolve_edges"), {"first": first, "last": last})


class EndpointResolver:
    """A thread with its own connection that resolves committed batches as they are announced.

    Start it once every code node is committed, with the number of edges committed so far; it
    reads the staging file (in WAL mode, so the importer can go on writing) and writes only
    ``res``. ``stop`` lets it finish the batch in hand and says how many edges are resolved.
    """

    def __init__(self, staging_path: Path, resolved_path: Path, staged: int) -> None:
        self._staging_path = staging_path
        self._resolved_path = resolved_path
        self._changed = threading.Condition()
        self._staged = staged
        self._resolved = 0
        self._stopping = False
        self._abandoned = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cm-graph-resolve", daemon=True)
        self._thread.start()

    def edges_staged(self, count: int) -> None:
        """Staged edges 1..count are committed."""
        with self._changed:
            self._staged = count
            self._changed.notify()

    def stop(self) -> int:
        """Finish the batch in hand and stop; how many edges are resolved (rowids 1..n)."""
        with self._changed:
            self._stopping = True
            self._changed.notify()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._resolved

    def abandon(self) -> None:
        """Stop after the current statement; the import is failing for another reason."""
        with self._changed:
            self._abandoned = True
            self._changed.notify()
        self._thread.join()

    def _run(self) -> None:
        try:
            connection = apsw.Connection(str(self._staging_path), flags=apsw.SQLITE_OPEN_READWRITE)
        except BaseException as error:  # handed over by stop()
            self._error = error
            return
        try:
            configure(connection)
            connection.config(apsw.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
            attach(connection, self._resolved_path)
            with connection:
                prepare(connection)
            self._work(connection)
        except BaseException as error:  # handed over by stop()
            self._error = error
        finally:
            connection.close()

    def _work(self, connection: apsw.Connection) -> None:
        # Once stopped it takes no new batch: the importer's connection, its cache warm, resolves
        # the rest faster than this one would.
        while True:
            with self._changed:
                while not (self._abandoned or self._stopping or self._staged > self._resolved):
                    self._changed.wait()
                if self._abandoned or self._stopping:
                    return
                first, last = self._resolved + 1, self._staged
            with connection:
                resolve(connection, first, last)
            with self._changed:
                self._resolved = last
