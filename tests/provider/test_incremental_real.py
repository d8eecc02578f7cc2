"""Why a one-file refresh runs the provider's cold path (issue 31 item 5), pinned edge by edge.

With the real provider on a small real package, one commit A and a one-file commit B:

- the provider's incremental run at B (A's ``graphify-out/`` left in the tree) lacks the
  changed module's symbol ``imports``, its ``calls`` into an unchanged module and its INFERRED
  ``uses``, and keeps a type-reference stub under its bare id where a cold build salts it by
  file: the passes that make them (``_augment_symbol_resolution_edges``,
  ``_resolve_cross_file_imports``, ``_disambiguate_colliding_node_ids``) look only at the files
  being extracted, not at the unchanged corpus;
- even a cold build is not local: B edits only ``pkg/api.py``, yet an edge *owned by the
  unchanged* ``pkg/adapters.py`` changes its target, because a stub's id is salted only when a
  second file references the same name. So the unchanged files' cross-file records cannot be
  carried over from A either.

A provider release that changes either fact fails here, and docs/lifecycle.md ("One-file
refresh (issue 31 item 5)") must then be revisited.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..support.helpers import write_files
from .test_refresh_real import _provider_run

pytestmark = [pytest.mark.provider]

BEFORE = {
    "pkg/__init__.py": b"",
    "pkg/models.py": b"class Response:\n    def json(self):\n        return {}\n",
    "pkg/adapters.py": b"def send(pool: PoolManager) -> None:\n    return None\n",
    "pkg/api.py": b"from .models import Response\n\n\ndef get():\n    return Response()\n",
}
CHANGED = "pkg/api.py"
AFTER = {**BEFORE, CHANGED: BEFORE[CHANGED] + b"\n\ndef head(pool: PoolManager) -> None:\n    return None\n"}


def cross_file(graph: dict) -> set[tuple[str, str, str, str]]:
    """(source, relation, target, source_file) of every edge but the per-file structure."""
    return {
        (edge["source"], edge["relation"], edge["target"], edge["source_file"])
        for edge in graph["edges"] if edge["relation"] not in ("contains", "method")
    }


def test_incremental_run_misses_cross_file_edges_and_a_cold_build_is_not_local(tmp_path: Path) -> None:
    tree = tmp_path / "incremental" / "tree"
    write_files(tree, BEFORE)
    cold_before = cross_file(_provider_run(tree))
    write_files(tree, {CHANGED: AFTER[CHANGED]})
    incremental = cross_file(_provider_run(tree))
    cold_tree = tmp_path / "cold" / "tree"
    write_files(cold_tree, AFTER)
    cold_after = cross_file(_provider_run(cold_tree))

    resolved_against_the_corpus = {
        ("pkg_api", "imports", "pkg_models_response", CHANGED),
        ("pkg_api_get", "calls", "pkg_models_response", CHANGED),
        ("pkg_api_get", "uses", "pkg_models_response", CHANGED),
    }
    assert resolved_against_the_corpus <= cold_before
    assert resolved_against_the_corpus <= cold_after
    assert not resolved_against_the_corpus & incremental, "only the changed file was resolved"

    # The changed file's stub: bare in the incremental batch (no second file), salted cold.
    assert ("pkg_api_head", "references", "poolmanager", CHANGED) in incremental
    assert ("pkg_api_head", "references", "pkg_api_py_poolmanager", CHANGED) in cold_after

    # An unchanged file's edge, cold A against cold B: moved by the edit of another file.
    unchanged = "pkg/adapters.py"
    assert ("pkg_adapters_send", "references", "poolmanager", unchanged) in cold_before
    assert ("pkg_adapters_send", "references", "pkg_adapters_py_poolmanager", unchanged) in cold_after
    assert {e for e in cold_before if e[3] == unchanged} != {e for e in cold_after if e[3] == unchanged}
