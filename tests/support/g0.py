"""The reference's common fixture G0 (``query-and-packet.md`` §3): four files of numbered lines
and five code nodes, read from ``fixtures/g0/`` (``repo/`` holds the files a G0 checkout commits,
``graph.json`` the provider output published over it), so a reader can open what the tests use.
``node`` and ``edge`` write one more record in the same shape, for the tests that vary G0."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from .helpers import make_repo

G0_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "g0"


def read_fixture_files(root: Path) -> dict[str, str]:
    """Every file under ``root``, by its path relative to ``root`` (sorted, ``/``-separated)."""
    files = sorted(path for path in root.rglob("*") if path.is_file() and "__pycache__" not in path.parts)
    return {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8") for path in files}


G0_FILES = read_fixture_files(G0_FIXTURE / "repo")
G0_GRAPH: dict[str, Any] = json.loads((G0_FIXTURE / "graph.json").read_text(encoding="utf-8"))


def node(
    node_id: str, label: str, path: str, location: str | None, file_type: str = "code", **extra: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {"id": node_id, "label": label, "file_type": file_type, "source_file": path}
    if location is not None:
        record["source_location"] = location
    record.update(extra)
    return record


def edge(
    source: str,
    target: str,
    relation: str = "calls",
    confidence: str = "EXTRACTED",
    path: str = "",
    location: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "source": source, "target": target, "relation": relation,
        "confidence": confidence, "source_file": path,
    }
    if location is not None:
        record["source_location"] = location
    record.update(extra)
    return record


def g0_graph() -> dict[str, Any]:
    return copy.deepcopy(G0_GRAPH)


def g0_with_two_loads() -> dict[str, Any]:
    """G0 with a second definition of ``load`` (in report.py, calling parse_config): ``load`` is
    ambiguous for code_context, which names both and picks neither."""
    graph = g0_graph()
    graph["nodes"].append(node("n-load-2", "load", "example_pkg/report.py", "L9"))
    graph["edges"].append(edge("n-load-2", "n-config"))  # a definition of its own, not a binding
    return graph


def make_g0_repo(root: Path) -> Path:
    return make_repo(root, G0_FILES)
