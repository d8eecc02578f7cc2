"""The SQL walk against the pure-Python reference on random graphs (hypothesis)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import open_index
from cm_graph.query.questions import QUESTIONS
from cm_graph.query.traversal import resolve_seeds, walk

from .g0 import G0_FILES, make_g0_repo
from .helpers import publish
from .reference_walk import RefGraph

PATHS = sorted(G0_FILES) + [""]
RELATIONS = ["calls", "imports", "references", "tests", "contains", "inherits", "uses"]


@pytest.fixture(scope="module")
def g0_repo_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One G0 repository for every example (graphs vary, the commit does not), under pytest's
    own temporary root so it is cleaned like every other test's files."""
    return make_g0_repo(tmp_path_factory.mktemp("walk-differential") / "repo")


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(2, 12))
    labels = draw(st.lists(st.sampled_from(["a", "b", "c", "f()", "f(x)", "test_a"]), min_size=count, max_size=count))
    nodes = []
    for index, label in enumerate(labels):
        path = draw(st.sampled_from(PATHS))
        line = draw(st.integers(1, 20))
        nodes.append({
            "id": f"n{index:02d}", "label": label, "file_type": "code",
            "source_file": path, "source_location": f"L{line}" if path else "",
        })
    ids = [n["id"] for n in nodes]
    hub = draw(st.sampled_from(ids))
    edge_count = draw(st.integers(0, 40))
    edges = []
    for _ in range(edge_count):
        source = draw(st.sampled_from(ids + [hub] * 3))
        target = draw(st.sampled_from(ids + [hub] * 3 + ["ghost", "doc"]))
        site = draw(st.sampled_from(["", "example_pkg/loader.py"]))
        edge = {
            "source": source, "target": target,
            "relation": draw(st.sampled_from(RELATIONS)),
            "confidence": draw(st.sampled_from(["EXTRACTED", "INFERRED", "AMBIGUOUS"])),
            "source_file": site,
        }
        if site:
            edge["source_location"] = f"L{draw(st.integers(1, 3))}"
        edges.append(edge)
        if draw(st.booleans()) and draw(st.booleans()):
            edges.append(dict(edge))
    nodes.append({"id": "doc", "label": "README", "file_type": "document", "source_file": "README.md"})
    return {"nodes": nodes, "edges": edges}


def _identity(connection: Any, edge: int) -> tuple[Any, ...]:
    row = connection.execute(
        "SELECT s.provider_id, t.provider_id, e.relation, e.kind, e.confidence, e.site_path, "
        "coalesce(e.site_line, -1) FROM edges e JOIN nodes s ON s.node = e.source "
        "JOIN nodes t ON t.node = e.target WHERE e.edge = ?", (edge,)
    ).fetchall()[0]
    return tuple(row)


def _pid(connection: Any, node: int) -> str:
    return connection.execute("SELECT provider_id FROM nodes WHERE node = ?", (node,)).fetchall()[0][0]


@settings(max_examples=int(os.environ.get("CM_GRAPH_DIFF_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graph=graphs(), depth=st.integers(1, 4), budget=st.integers(1, 12))
def test_sql_walk_matches_reference(g0_repo_once: Path, graph: dict[str, Any], depth: int, budget: int) -> None:
    state = Path(tempfile.mkdtemp(prefix="cm-graph-state-"))
    try:
        workspace = publish(g0_repo_once, state / "state", graph)
        report = ensure_index(workspace)
        reference = RefGraph(graph)
        connection = open_index(report.path)
        try:
            for target in ["a", "f", "f()", "test_a", "example_pkg/config.py", "nothing"]:
                seeds = resolve_seeds(connection, target)
                ref_seeds, ref_overflow = reference.seeds(target)
                assert [_pid(connection, s) for s in seeds.nodes] == ref_seeds
                assert seeds.overflow == ref_overflow
                if not ref_seeds:
                    continue
                for spec in QUESTIONS.values():
                    got = walk(connection, spec, seeds, depth, budget)
                    want = reference.walk(ref_seeds, spec, depth, budget)
                    assert [
                        (s.level, _identity(connection, s.edge), _pid(connection, s.origin),
                         _pid(connection, s.reached), _pid(connection, s.seed))
                        for s in got.steps
                    ] == [(s.level, s.identity, s.origin, s.reached, s.seed) for s in want.steps], spec.name
                    assert got.over_budget == want.over_budget, spec.name
                    assert got.depth_boundary == want.depth_boundary, spec.name
        finally:
            connection.close()
    finally:
        shutil.rmtree(state, ignore_errors=True)
