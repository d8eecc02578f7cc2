"""A same-tree generation's index, rebound from the reused generation's, is the index a fresh
derivation writes: the same bytes, sealed like any derived index (``cm_graph/index/rebind.py``).

Two generations of one graph.bin, bound to two commits of one tree (an empty commit between
them), published through the ordinary path; the second's index is derived both ways and
compared byte for byte, for a small graph and for one large enough that the importer commits
its staged edges in batches (the resolver's WAL path).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest

from cm_graph.base.git import read_census, resolve_revision
from cm_graph.generation.layout import Workspace
from cm_graph.generation.manifest import PINNED_PROVIDER
from cm_graph.generation.store import Generation, build_lock_for, read_current, read_generation
from cm_graph.index.importer import build_index
from cm_graph.index.rebind import rebind_index
from cm_graph.index.seal import index_is_sealed, write_seal
from cm_graph.provider.publish import publish_provider_output
from cm_graph.provider.sametree import publish_same_tree

from ..support.files import sha256
from ..support.g0 import edge, g0_graph, node
from ..support.helpers import code_paths, commit_all, git, inventory_for, make_repo, numbered_lines, write_output


def large_graph() -> tuple[dict[str, str], dict]:
    """Forty modules, 2,000 symbols and 24,000 call edges (past the importer's batch commits)."""
    files = {f"pkg/m{i:02d}.py": numbered_lines(60) for i in range(40)}
    nodes = [node(f"s{i}", f"f{i}", f"pkg/m{i % 40:02d}.py", f"L{1 + i % 50}") for i in range(2000)]
    edges = [
        edge(f"s{i}", f"s{(i * 7 + k) % 2000}", "calls", "EXTRACTED", f"pkg/m{i % 40:02d}.py", f"L{1 + k}")
        for i in range(2000) for k in range(12)
    ]
    return files, {"nodes": nodes, "edges": edges, "hyperedges": [], "extracted_sources": []}


def two_same_tree_generations(tmp_path: Path, files: dict[str, str], graph: dict) -> tuple[Generation, Generation]:
    repo = make_repo(tmp_path / "repo", files)
    out = tmp_path / "out"
    write_output(out, graph, inventory_for(repo, code_paths(repo)))
    workspace = Workspace.locate(repo, tmp_path / "state")
    first, _ = publish_provider_output(workspace, out, built_at=datetime(2026, 1, 1, tzinfo=UTC))
    commit_all(repo, "an empty commit: same tree")
    second, _ = publish_provider_output(
        workspace, out, keep_previous=True, built_at=datetime(2026, 6, 1, 8, 30, tzinfo=UTC)
    )
    assert (first.tree, first.graph_digest) == (second.tree, second.graph_digest) and first.commit != second.commit
    return read_generation(workspace, first.generation), read_generation(workspace, second.generation)


@pytest.mark.parametrize("shape", ["small", "large"])
def test_rebound_index_is_byte_identical_to_a_fresh_derivation(tmp_path: Path, shape: str) -> None:
    if shape == "small":
        from ..support.g0 import G0_FILES

        files, graph = G0_FILES, g0_graph()
    else:
        files, graph = large_graph()
    reused, staged = two_same_tree_generations(tmp_path, files, graph)
    fresh = tmp_path / "fresh.sqlite"
    build_index(staged, fresh, seal=False)

    rebound_path = tmp_path / "rebound.sqlite"
    report = rebind_index(reused, staged, rebound_path)
    assert report is not None, "the reused generation's sealed index serves the rebind"
    assert rebound_path.read_bytes() == fresh.read_bytes()
    assert sha256(rebound_path) != sha256(reused.workspace.index_path(reused.id)), "its generation row is new"
    assert index_is_sealed(staged, rebound_path, full=True)
    with apsw.Connection(str(rebound_path), flags=apsw.SQLITE_OPEN_READONLY) as connection:
        (row,) = connection.execute("SELECT generation, commit_id, built_at FROM generation").fetchall()
    assert row == (staged.id, staged.manifest.commit, staged.manifest.built_at)
    assert report.counts["code_nodes"] == len(graph["nodes"])


def test_rebind_refuses_what_it_cannot_serve(tmp_path: Path) -> None:
    from ..support.g0 import G0_FILES

    reused, staged = two_same_tree_generations(tmp_path, G0_FILES, g0_graph())
    index = reused.workspace.index_path(reused.id)
    # An index whose bytes are not its seal's is never copied from (the caller derives afresh).
    original = index.read_bytes()
    index.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
    assert rebind_index(reused, staged, tmp_path / "x.sqlite") is None
    assert not (tmp_path / "x.sqlite").exists()
    # Nor one last written by another SQLite release (sealed, so only the release differs).
    index.write_bytes(original[:96] + (3_000_000).to_bytes(4, "big") + original[100:])
    write_seal(reused, index)
    assert rebind_index(reused, staged, tmp_path / "x.sqlite") is None
    index.write_bytes(original)
    write_seal(reused, index)
    assert rebind_index(reused, staged, tmp_path / "ok.sqlite") is not None
    (tmp_path / "ok.sqlite").unlink()
    # Nor is a generation of another graph.
    other = Generation(staged.workspace, staged.manifest._replace(graph_digest="0" * 64), staged.location)
    assert rebind_index(reused, other, tmp_path / "y.sqlite") is None
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".sqlite"] == []


def test_same_tree_publish_indexes_by_rebinding(tmp_path: Path) -> None:
    from ..support.g0 import G0_FILES

    repo = make_repo(tmp_path / "repo", G0_FILES)
    out = tmp_path / "out"
    write_output(out, g0_graph(), inventory_for(repo, code_paths(repo)))
    workspace = Workspace.locate(repo, tmp_path / "state")
    publish_provider_output(workspace, out)
    source = read_current(workspace)
    record = dict(source.build_record() or {}, origin="provider_run")
    commit_all(repo, "an empty commit: same tree")
    bound = resolve_revision(repo, "HEAD")
    census = read_census(repo, bound.commit)
    with build_lock_for(workspace):
        manifest, _ = publish_same_tree(
            workspace, source, record, bound=bound, census=census, pin=PINNED_PROVIDER, keep_previous=False
        )
    published = read_current(workspace)
    assert published.id == manifest.generation != source.id
    index = workspace.index_path(published.id)
    assert index_is_sealed(published, index, full=True)
    fresh = tmp_path / "fresh.sqlite"
    build_index(published, fresh, seal=False)
    assert index.read_bytes() == fresh.read_bytes()
    assert json.loads((published.directory / "build.json").read_bytes())["origin"] == "same_tree"
    assert git(repo, "rev-parse", "HEAD") == published.manifest.commit
