"""The text index's scan in a second process, while the importer parses and writes the graph.

Why: the names to look for are known as soon as the document's nodes end (a fifth of the way
into sympy's parse), so a worker started then has the parse and the adjacency writes to hide
behind, on the second core (docs/benchmarks.md#text-index-cost). The importer's own thread scans
from the other end once the graph is written, and the two meet (``text_index.TextScan``). It
scans with the same ``Scanner`` the importer's thread uses, and its answer is taken only for a
blob whose object name the census confirms. How the process is started, bounded and ended is
``worker.WorkerProcess``'s.

Protocol: one JSON request line (checkout, commit, labels, paths); then, per path in order, one
JSON line ``[index, object name, lines, mentions]`` followed by the mentions as little-endian
unsigned 64-bit integers, packed as ``mentions.scan_packed`` packs them (a path that is no blob:
no record).
"""

from __future__ import annotations

import json
import sys
from array import array
from collections.abc import Iterable
from pathlib import Path

from ..base.git import BlobReader, count_lines, read_census
from .mentions import MAX_SCANNED_BYTES, Scanner, names_of
from .worker import WorkerProcess, serve

Record = tuple[int, str, int, list[int]]  # (index in the request's paths, object name, lines, packed mentions)


class ScanWorker(WorkerProcess):
    """The importer's handle on one scan worker: started with the build, asked what to scan when
    the nodes end, then polled for records."""

    def __init__(self, scratch_dir: Path) -> None:
        super().__init__(scratch_dir, "cm_graph.index.scan_worker")
        self.paths: list[str] = []
        self._pending = b""

    def request(self, checkout: Path, commit: str, labels: Iterable[str], paths: list[str]) -> None:
        """What to scan: ``paths`` of ``commit``, for the names of ``labels``."""
        self.paths = [path for path in paths if "\n" not in path]
        self.send({"checkout": str(checkout), "commit": commit, "labels": sorted(labels), "paths": self.paths})

    def poll(self) -> list[Record]:
        """The records the worker has finished writing since the last poll (a malformed one ends
        them: nothing after it is read)."""
        self._pending += self.read_new()
        records: list[Record] = []
        while (cut := self._pending.find(b"\n")) >= 0:
            try:
                index, blob, lines, many = json.loads(self._pending[:cut])
            except ValueError:
                self._pending = b""
                break
            end = cut + 1 + 8 * many
            if len(self._pending) < end:
                break
            raw = array("Q")
            raw.frombytes(self._pending[cut + 1:end])
            self._pending = self._pending[end:]
            if sys.byteorder == "big":
                raw.byteswap()
            if not (isinstance(index, int) and 0 <= index < len(self.paths)):
                break
            records.append((index, str(blob), int(lines), raw.tolist()))
        return records


def main() -> None:
    """The worker's side: scan what the request names, answer."""
    request = serve()
    if request is None:
        return
    scanner = Scanner(names_of(request["labels"]))
    paths = request["paths"]
    out = open(1, "wb", closefd=False)  # fd 1: the unnamed file the importer gave
    census = {entry.path: entry for entry in read_census(Path(request["checkout"]), request["commit"]).entries}
    wanted = [(index, census[path]) for index, path in enumerate(paths) if path in census]
    distinct = list({entry.blob: entry.size for _, entry in wanted}.items())
    done: dict[str, tuple[int, array[int]]] = {}
    with BlobReader(Path(request["checkout"])) as blobs:
        contents = blobs.each(distinct)
        for index, entry in wanted:
            if entry.blob not in done:  # the first path of each blob: its content comes next
                content = next(contents)
                if entry.size > MAX_SCANNED_BYTES:
                    done[entry.blob] = (count_lines(content), array("Q"))
                else:
                    data = b"".join(content)
                    done[entry.blob] = (count_lines((data,)), array("Q", scanner.scan(entry.path, data)))
            lines, found = done[entry.blob]
            if sys.byteorder == "big":
                found = array("Q", found)
                found.byteswap()
            out.write(json.dumps([index, entry.blob, lines, len(found)]).encode("ascii") + b"\n" + found.tobytes())
            out.flush()
