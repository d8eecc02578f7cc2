"""The reference's common fixture G0: four files of numbered lines and five code nodes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .helpers import make_repo, numbered_lines

G0_FILES = {
    "example_pkg/config.py": numbered_lines(40),
    "example_pkg/loader.py": numbered_lines(50),
    "example_pkg/report.py": numbered_lines(20),
    "tests/test_config.py": numbered_lines(30),
}


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


G0_GRAPH: dict[str, Any] = {
    "nodes": [
        node("n-config", "parse_config", "example_pkg/config.py", "L12"),
        node("n-load", "load", "example_pkg/loader.py", "L40"),
        node("n-report", "render", "example_pkg/report.py", "L5"),
        node("n-test", "test_parse_config", "tests/test_config.py", "L8"),
        node("n-config-file", "config.py", "example_pkg/config.py", "L1"),
    ],
    "edges": [
        edge("n-load", "n-config", "calls", "EXTRACTED"),
        edge("n-report", "n-load", "calls", "INFERRED"),
        edge("n-test", "n-config", "tests", "EXTRACTED"),
        edge("n-config-file", "n-config", "contains", "EXTRACTED"),
    ],
    "hyperedges": [],
    "input_tokens": 0,
    "output_tokens": 0,
    "extracted_sources": [],
}


def g0_graph() -> dict[str, Any]:
    return copy.deepcopy(G0_GRAPH)


def make_g0_repo(root: Path) -> Path:
    return make_repo(root, G0_FILES)
