"""A helper process of the importer: started with the build, handed one request, read from a file.

Both of the importer's workers (the text scan, ``scan_worker``; the reference resolver,
``resolve_worker``) are this process with another ``main``. Why a process: their work is Python,
like the parse of graph.json, so only a second process runs beside it on a second core.

A worker is an accelerator, never a source: whatever it answers is checked by its caller against
the census, and any failure (it could not start, died, was killed, wrote something malformed)
only means the importer does that work itself. So the index's bytes never depend on it.

Lifetime: started with ``python -I`` on this package's own directory, stdin a pipe, stdout an
unnamed private file (``O_TMPFILE`` where the system has it), stderr /dev/null, and the scrubbed
environment git gets (``git_environment``). It arms ``PR_SET_PDEATHSIG(SIGKILL)`` (Linux) and
checks that its parent is still the process that started it, so a killed importer does not leave
it running; its ``git cat-file`` child reads EOF and exits with it. The importer kills and reaps
it on every exit path (``close``). (Linux sends the parent-death signal when the *thread* that
started the worker ends: a build run on a short-lived thread may lose its worker, which costs
only time.) The output is a file, not a pipe: a pipe would stall the worker whenever the
importer, busy parsing, has not read for a while.

Protocol: one JSON request line on stdin; what the worker writes to stdout is its own format.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..base.git import git_environment

_PR_SET_PDEATHSIG = 1


class WorkerProcess:
    """The importer's handle on one worker running ``module``'s ``main``."""

    def __init__(self, scratch_dir: Path, module: str) -> None:
        """Start the worker; it waits for ``send`` (its interpreter starts meanwhile). OSError: no
        room for its output file (the caller goes without a worker)."""
        self._child: subprocess.Popen[bytes] | None = None
        self._output = tempfile.TemporaryFile(dir=scratch_dir)
        self._offset = 0
        package_root = str(Path(__file__).resolve().parents[2])
        bootstrap = f"import sys; sys.path.insert(0, sys.argv[1]); from {module} import main; main()"
        try:
            self._child = subprocess.Popen(
                [sys.executable, "-I", "-c", bootstrap, package_root, str(os.getpid())],
                stdin=subprocess.PIPE, stdout=self._output, stderr=subprocess.DEVNULL, env=git_environment(),
            )
        except OSError:
            self._child = None

    def send(self, request: dict[str, Any]) -> None:
        """Hand the worker its one request (a worker that cannot take it is stopped)."""
        if self._child is None or self._child.stdin is None:
            return
        try:
            self._child.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            self._child.stdin.close()
        except (OSError, ValueError):
            self.stop()

    def read_new(self) -> bytes:
        """What the worker wrote since the last call."""
        if self._output.closed:
            return b""
        fd = self._output.fileno()
        chunks = []
        while chunk := os.pread(fd, 1 << 20, self._offset):
            self._offset += len(chunk)
            chunks.append(chunk)
        return b"".join(chunks)

    def wait(self) -> int | None:
        """Wait for the worker to end; its exit status (None when it never started)."""
        if self._child is None:
            return None
        return self._child.wait()

    def stop(self) -> None:
        """Kill and reap the worker (a no-op once it is gone); what it wrote stays readable."""
        child, self._child = self._child, None
        if child is not None:
            if child.poll() is None:
                child.kill()
            child.wait()

    def close(self) -> None:
        self.stop()
        self._output.close()


def serve() -> dict[str, Any] | None:
    """The worker's side, first: arm the parent-death signal, check the parent, read the request
    (None: the importer did not need this worker after all)."""
    parent = int(sys.argv[2])
    _die_with_parent()
    if os.getppid() != parent:  # the importer died before the signal was armed
        os._exit(1)
    line = sys.stdin.buffer.readline()
    if not line:
        return None
    request = json.loads(line)
    os.nice(10)
    return dict(request)


def _die_with_parent() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
