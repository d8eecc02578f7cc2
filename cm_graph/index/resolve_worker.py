"""The reference resolver in a second process, while the importer parses and writes the graph.

Why: the resolver is Python like the parse, and it needs only the blobs of the files the graph
names, which are known as soon as the document's nodes end; started then, it has the rest of the
parse and the table writes to hide behind, on the second core. ``worker.WorkerProcess`` starts,
bounds and ends the process; ``resolved_index.Resolution`` decides whether to start one.

Its answer is taken only when it resolved exactly the blobs the census names for the requested
paths (path for path, object name for object name); otherwise the importer resolves them itself,
with the same ``resolve_blobs``, so the rows never depend on which process made them.

Protocol: one JSON request line (checkout, commit, paths); when done, one JSON line listing
``[path, object name]`` of every file it read, then the layer's JSON (``ResolvedLayer.to_json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..base.git import read_census
from .pyresolve import read_python_blobs
from .resolved import ResolvedLayer
from .resolvers import resolve_blobs
from .worker import WorkerProcess, serve


class ResolveWorker(WorkerProcess):
    """The importer's handle on one resolver worker."""

    def __init__(self, scratch_dir: Path) -> None:
        super().__init__(scratch_dir, "cm_graph.index.resolve_worker")

    def request(self, checkout: Path, commit: str, paths: list[str]) -> None:
        self.send({"checkout": str(checkout), "commit": commit, "paths": paths})

    def layer(self, blobs: dict[str, str]) -> ResolvedLayer | None:
        """Wait for the worker; its layer if it resolved exactly ``blobs`` (path: object name),
        else None (it failed, was killed, or read other blobs)."""
        status = self.wait()
        data = self.read_new()
        self.close()
        if status != 0:
            return None
        header, _, body = data.partition(b"\n")
        try:
            answered = json.loads(header)
            if not isinstance(answered, list) or {str(p): str(b) for p, b in answered} != blobs:
                return None
            return ResolvedLayer.from_json(body)
        except (ValueError, TypeError):
            return None


def main() -> None:
    """The worker's side: resolve the request's paths of its commit, answer once."""
    request = serve()
    if request is None:
        return
    checkout = Path(request["checkout"])
    census = {entry.path: entry for entry in read_census(checkout, request["commit"]).entries}
    entries = [census[path] for path in request["paths"] if path in census]
    layer = resolve_blobs(read_python_blobs(checkout, entries))
    out = open(1, "wb", closefd=False)  # fd 1: the unnamed file the importer gave
    out.write(json.dumps([[entry.path, entry.blob] for entry in entries]).encode("utf-8") + b"\n")
    out.write(layer.to_json())
    out.flush()
