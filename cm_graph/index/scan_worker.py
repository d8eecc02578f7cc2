"""The text index's scan in a second process, while the importer parses and writes the graph.

Why a process: the scan is Python (``mentions.scan_packed``) and so is the parse, so a thread
would only share one core with it; the names to look for are known as soon as the document's
nodes end (a fifth of the way into sympy's parse), so a worker started then has the parse and
the adjacency writes to hide behind, on the second core (docs/benchmarks.md#text-index-cost).
The importer's own thread scans from the other end once the graph is written, and the two meet
(``text_index.TextScan``).

The worker is an accelerator, never a source: it scans with the same ``Scanner`` the importer's
thread uses, its answer is taken only for a blob whose object name the census confirms, and any
failure (it could not start, died, was killed, wrote something malformed) only means the
importer scans those blobs itself. So the index's bytes never depend on it.

Lifetime: started with ``python -I`` on this package's own directory, stdin/stdout pipes, stderr
to /dev/null. It arms ``PR_SET_PDEATHSIG(SIGKILL)`` (Linux) and checks that its parent is still
the process that started it, so a killed importer does not leave it running; its one ``git
cat-file`` child reads EOF and exits with it. The importer kills and reaps it on every exit path
(``close``). (Linux sends the parent-death signal when the *thread* that started the worker ends:
a build run on a short-lived thread may lose its worker, which costs only time.)

Protocol: one JSON request line (checkout, commit, labels, paths); then, per path in order, one
JSON line ``[index, object name, lines, mentions]`` followed by the mentions as little-endian
unsigned 64-bit integers, packed as ``mentions.scan_packed`` packs them (a path that is no blob:
no record).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from array import array
from collections.abc import Iterable
from pathlib import Path

from ..base.git import BlobReader, count_lines, git_environment, read_census
from .mentions import MAX_SCANNED_BYTES, Scanner, names_of

_PR_SET_PDEATHSIG = 1
Record = tuple[int, str, int, list[int]]  # (index in the request's paths, object name, lines, packed mentions)


class ScanWorker:
    """The importer's handle on one worker: started with what to scan, then polled for records.

    The worker writes to an unnamed private file (``O_TMPFILE`` where the system has it), not a
    pipe: a pipe would stall it whenever the importer, busy parsing, has not read for a while,
    and its records would cost the parse a thread switch each. The file is gone with the last
    process that holds it, killed or not."""

    def __init__(self, scratch_dir: Path) -> None:
        """Start the worker; it waits for ``request`` (its interpreter starts meanwhile)."""
        self.paths: list[str] = []
        self._child: subprocess.Popen[bytes] | None = None
        self._output = tempfile.TemporaryFile(dir=scratch_dir)  # OSError: the caller goes without
        self._offset = 0
        self._pending = b""
        package_root = str(Path(__file__).resolve().parents[2])
        bootstrap = ("import sys; sys.path.insert(0, sys.argv[1]); "
                     "from cm_graph.index.scan_worker import main; main()")
        try:
            self._child = subprocess.Popen(
                [sys.executable, "-I", "-c", bootstrap, package_root, str(os.getpid())],
                stdin=subprocess.PIPE, stdout=self._output, stderr=subprocess.DEVNULL, env=git_environment(),
            )
        except OSError:
            self._child = None

    def request(self, checkout: Path, commit: str, labels: Iterable[str], paths: list[str]) -> None:
        """What to scan: ``paths`` of ``commit``, for the names of ``labels``."""
        self.paths = [path for path in paths if "\n" not in path]
        request = {"checkout": str(checkout), "commit": commit, "labels": sorted(labels), "paths": self.paths}
        if self._child is None or self._child.stdin is None:
            return
        try:
            self._child.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            self._child.stdin.close()
        except (OSError, ValueError):
            self.stop()

    def poll(self) -> list[Record]:
        """The records the worker has finished writing since the last poll (a malformed one ends
        them: nothing after it is read)."""
        if self._output.closed:
            return []
        fd = self._output.fileno()
        while chunk := os.pread(fd, 1 << 20, self._offset):
            self._offset += len(chunk)
            self._pending += chunk
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

    def stop(self) -> None:
        """Kill and reap the worker (a no-op once it is gone); its records stay readable."""
        child, self._child = self._child, None
        if child is not None:
            if child.poll() is None:
                child.kill()
            child.wait()

    def close(self) -> None:
        self.stop()
        self._output.close()


def main() -> None:
    """The worker's side: arm the parent-death signal, scan what the request names, answer."""
    parent = int(sys.argv[2])
    _die_with_parent()
    if os.getppid() != parent:  # the importer died before the signal was armed
        os._exit(1)
    line = sys.stdin.buffer.readline()
    if not line:  # the importer did not need it after all
        return
    request = json.loads(line)
    os.nice(10)
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


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
