"""The importer's stage 3: line counts of every cited blob, and the text index of their lines.

Each distinct blob is read once (through ``git cat-file --batch``) and scanned for the names the
graph defines (``mentions``). On a large graph a worker process (``scan_worker``), started as
soon as the document's nodes end, scans the files from the first; once the graph's tables are
written this thread scans from the last, and they stop where they meet. A worker's answer is
taken for a blob whose object name the census confirms; whatever nobody scanned is scanned
here. The rows are the same whichever process scanned a blob, or whether there was a worker.
"""

from __future__ import annotations

from pathlib import Path

import apsw

from ..base.git import BlobReader, Census, CensusEntry, count_lines
from .dynamic_uses import is_text_file
from .mentions import MAX_SCANNED_BYTES, MentionTable, Scanner, names_of
from .scan_worker import ScanWorker

# A smaller graph's code is scanned in the importer's own thread: a worker costs more than it
# saves there (its interpreter start is about 40 ms of CPU). A larger one's worker is started
# with the build, so its interpreter is up when the nodes end.
WORKER_FROM_GRAPH_BYTES = 4 * 1024 * 1024
# A template or config file larger than this is data (a fixture, a dump), not read for names.
MAX_TEXT_FILE_BYTES = 512 * 1024


class TextScan:
    """One build's scan: a worker for a large graph, asked (``start``) when the nodes end;
    ``read`` once, then ``close``."""

    def __init__(self, graph_bytes: int, scratch_dir: Path) -> None:
        self._worker: ScanWorker | None = None
        self._labels: frozenset[str] = frozenset()
        if graph_bytes >= WORKER_FROM_GRAPH_BYTES:
            try:
                self._worker = ScanWorker(scratch_dir)
            except OSError:  # no room for its output file: this thread scans everything
                pass

    @property
    def has_worker(self) -> bool:
        return self._worker is not None

    def start(self, checkout: Path, commit: str, labels: set[str], paths: set[str]) -> None:
        """What the parse knows when the nodes end: the symbol and test labels, the node paths."""
        if self._worker is not None:
            self._labels = frozenset(labels)
            self._worker.request(checkout, commit, labels, sorted(paths))

    def read(
        self, census: Census, cited: list[str], checkout: Path, labels: list[str]
    ) -> tuple[dict[str, int], MentionTable]:
        """Line counts of every cited path the commit tracks, and the text index of their lines
        (``labels``: every symbol and test label the index holds)."""
        names = names_of(labels)
        by_path = {entry.path: entry for entry in census.entries}
        # The cited code, and the template and config files no node names (their dynamic uses),
        # in path order.
        cited_set = set(cited)
        wanted = sorted([*(by_path[path] for path in cited if path in by_path),
                         *(entry for entry in census.entries if entry.path not in cited_set
                           and entry.size <= MAX_TEXT_FILE_BYTES and is_text_file(entry.path))],
                        key=lambda entry: entry.path)
        answers = _WorkerAnswers(self._worker if self._labels == frozenset(labels) else None)
        here = _LocalScan(checkout, names)
        try:
            answers.absorb()
            for entry in reversed(wanted):  # from the last file, until this meets the worker
                if answers.reached(entry.path):
                    break
                here.scan(entry)
                answers.absorb()
            answers.stop()
            self.close()
            lines: dict[str, int] = {}
            table = MentionTable(names)
            for entry in wanted:
                count, found = answers.get(entry) or here.scan(entry)
                lines[entry.path] = count
                table.add_file(entry.path, found)
        finally:
            here.close()
        return lines, table

    def close(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()


class _WorkerAnswers:
    """What a worker (if any) has answered so far, by path."""

    def __init__(self, worker: ScanWorker | None) -> None:
        self._worker = worker
        self._position = {path: index for index, path in enumerate(worker.paths)} if worker is not None else {}
        self._by_path: dict[str, tuple[str, int, list[int]]] = {}
        self._done_upto = -1  # the last record's index: the worker writes them in its paths' order

    def absorb(self) -> None:
        if self._worker is not None:
            for index, blob, lines, found in self._worker.poll():
                self._by_path[self._worker.paths[index]] = (blob, lines, found)
                self._done_upto = index

    def reached(self, path: str) -> bool:
        """Whether the worker has answered for ``path`` or gone past it."""
        at = self._position.get(path)
        return at is not None and at <= self._done_upto

    def stop(self) -> None:
        """Stop the worker and take what it finished."""
        if self._worker is not None:
            self._worker.stop()
            self.absorb()

    def get(self, entry: CensusEntry) -> tuple[int, list[int]] | None:
        """(lines, packed mentions) of ``entry`` if the worker scanned that very blob."""
        got = self._by_path.get(entry.path)
        return (got[1], got[2]) if got is not None and got[0] == entry.blob else None


class _LocalScan:
    """Blobs scanned in this process, each distinct one once, remembered by path."""

    def __init__(self, checkout: Path, names: list[str]) -> None:
        self._checkout = checkout
        self._names = names
        self._scanner: Scanner | None = None
        self._blobs: BlobReader | None = None
        self._by_path: dict[str, tuple[int, list[int]]] = {}
        self._by_blob: dict[str, tuple[int, list[int]]] = {}

    def scan(self, entry: CensusEntry) -> tuple[int, list[int]]:
        """(lines, packed mentions) of one census entry's blob."""
        done = self._by_path.get(entry.path) or self._by_blob.get(entry.blob)
        if done is None:
            self._blobs = self._blobs or BlobReader(self._checkout)
            if entry.size > MAX_SCANNED_BYTES:  # counted in chunks, never scanned
                done = (count_lines(self._blobs.chunks(entry.blob, entry.size)), [])
            else:
                self._scanner = self._scanner or Scanner(self._names)
                data = b"".join(self._blobs.chunks(entry.blob, entry.size))
                done = (count_lines((data,)), self._scanner.scan(entry.path, data))
            self._by_blob[entry.blob] = done
        self._by_path[entry.path] = done
        return done

    def close(self) -> None:
        if self._blobs is not None:
            self._blobs.close()


def write_text_index(connection: apsw.Connection, mentions: MentionTable) -> None:
    """The text index's two tables, each in its primary-key order (so in one fixed order).

    Like the bulk graph rows, the CHECKed column (``kept``) holds only the 0/1 written by
    ``MentionTable``, so the CHECKs are not evaluated per row; the bytes are the same."""
    connection.execute("PRAGMA ignore_check_constraints = ON")
    try:
        connection.executemany("INSERT INTO idx.text_files (file, path) VALUES (?, ?)",
                               enumerate(mentions.paths, start=1))
        connection.executemany("INSERT INTO idx.mention_names (name, total, kept, postings) VALUES (?, ?, ?, ?)",
                               mentions.name_rows())
    finally:
        connection.execute("PRAGMA ignore_check_constraints = OFF")
