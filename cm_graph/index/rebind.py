"""Derive a same-tree generation's index by rebinding the reused generation's index.

A same-tree refresh publishes the reused generation's graph.bin byte for byte (same digest),
for a commit with the same tree and census digest. Every table the importer writes is a
function of graph.json and the census (the blobs' line counts included), except ``generation``,
the one row naming the generation, its commit and its build time. So the new index is the
reused one with that row rewritten: the verified file is copied (hashed against its seal in
the same read), the row is deleted and inserted again by the importer's own statement, and the
SQLite header's change counter and its "version valid for" number (offsets 24 and 92), which
count the write transactions a file has seen, are set back to the copied file's: a fresh
derivation of the new generation runs the same statements in the same transactions as the
reused one's did. A file last written by another SQLite release is not rebound (its pages need
not be what this release writes). The result is byte-identical to a fresh ``build_index`` (tested), and sealed
like any derived index. Whenever a precondition does not hold the caller derives from scratch.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import apsw

from ..base.privfs import ensure_private_dir, fsync_dir
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..generation.scratch import scratch_owner
from ..generation.store import Generation
from .format import APPLICATION_ID, SCHEMA_VERSION, IndexReport, configure, index_write_refusal
from .seal import copy_if_sealed, write_seal

# Header fields a write transaction moves (https://sqlite.org/fileformat.html#the_database_header).
_CHANGE_COUNTER = slice(24, 28)
_VERSION_VALID_FOR = slice(92, 96)
_WRITTEN_BY = slice(96, 100)  # SQLITE_VERSION_NUMBER of the library that last wrote the file
_HEADER_BYTES = 100

# What the new generation must share with the reused one for the rest of the index to hold.
_SHARED = ("tree", "census_digest", "graph_digest", "graph_bytes", "completeness", "provider")


def rebind_index(reused: Generation, staged: Generation, destination: Path) -> IndexReport | None:
    """Write ``staged``'s index at ``destination`` from ``reused``'s; None (nothing written)
    when ``reused`` has no index this can start from."""
    if any(getattr(reused.manifest, name) != getattr(staged.manifest, name) for name in _SHARED):
        return None
    started = time.perf_counter()
    source = reused.workspace.index_path(reused.id)
    try:
        ensure_private_dir(destination.parent, private_from=staged.workspace.root)
        with scratch_owner(staged.workspace) as token:
            temp = destination.with_name(f".{destination.name}.{token}.tmp")
            try:
                counts = _rebound_copy(reused, source, staged, temp)
                if counts is None:
                    return None
                os.replace(temp, destination)
                fsync_dir(destination.parent)
                write_seal(staged, destination, token=token)
            finally:
                for path in (temp, Path(f"{temp}-journal")):
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
    except (apsw.FullError, OSError) as error:
        raise index_write_refusal(error) from None
    return IndexReport(
        generation=staged.id, commit=staged.manifest.commit, path=destination, counts=counts,
        bytes=os.stat(destination).st_size, seconds=time.perf_counter() - started,
    )


def _rebound_copy(reused: Generation, source: Path, staged: Generation, temp: Path) -> dict[str, int] | None:
    """Copy the verified index to ``temp`` and rebind it; its counts, or None if it cannot be."""
    fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        if not copy_if_sealed(reused, source, fd):
            return None
        header = os.pread(fd, _HEADER_BYTES, 0)
    finally:
        os.close(fd)
    if len(header) < _HEADER_BYTES or header[_WRITTEN_BY] != _library_version():
        return None  # written by another SQLite: its pages need not be what this one writes
    counts = _rewrite_generation_row(reused, staged, temp)
    if counts is None:
        return None
    fd = os.open(temp, os.O_RDWR | os.O_NOFOLLOW)
    try:
        os.pwrite(fd, header[_CHANGE_COUNTER], _CHANGE_COUNTER.start)
        os.pwrite(fd, header[_VERSION_VALID_FOR], _VERSION_VALID_FOR.start)
        os.fsync(fd)
    finally:
        os.close(fd)
    return counts


def _library_version() -> bytes:
    major, minor, patch = (int(part) for part in apsw.sqlite_lib_version().split(".")[:3])
    return (major * 1_000_000 + minor * 1_000 + patch).to_bytes(4, "big")


def _rewrite_generation_row(reused: Generation, staged: Generation, path: Path) -> dict[str, int] | None:
    from .importer import generation_row

    connection = apsw.Connection(":memory:")
    try:
        configure(connection)
        connection.execute("ATTACH DATABASE ? AS idx", (str(path),))
        connection.execute("PRAGMA idx.journal_mode = OFF")
        connection.execute("PRAGMA idx.synchronous = OFF")
        if (
            connection.execute("PRAGMA idx.application_id").fetchall() != [(APPLICATION_ID,)]
            or connection.execute("PRAGMA idx.user_version").fetchall() != [(SCHEMA_VERSION,)]
        ):
            return None
        rows = fetch_rows(connection.execute("SELECT generation, document_format FROM idx.generation"),
                          tuple[str, str])
        if len(rows) != 1 or rows[0][0] != reused.id:
            return None
        with connection:
            connection.execute("DELETE FROM idx.generation")
            connection.execute(query_sql("insert_generation"), generation_row(staged, rows[0][1]))
        return dict(fetch_rows(connection.execute("SELECT name, value FROM idx.counts"), tuple[str, int]))
    except apsw.FullError:
        raise
    except apsw.Error:
        return None
    finally:
        connection.close()
