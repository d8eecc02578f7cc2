"""Why a resolved section is unavailable, said for the anchor's own file (issue 28, honest answers).

An anchor the resolver has no definition of used to get one sentence whatever the cause, "reads
Python, JavaScript and TypeScript files only", also for a Python file it could not parse and for
a layer its resolver failed on. Each cause now has its own reason and sentence, and a fault of one
language's resolver costs that language's files only (injected here: the resolvers are our own
code; git, SQLite and the files are real).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import pytest

from cm_graph.context.compose import silence
from cm_graph.generation.store import read_current
from cm_graph.index import resolvers

from ..support.contextkit import ask_context
from ..support.g0 import edge, node
from ..support.helpers import inventory_for, make_repo, publish

RESOLVED = ("resolved_callers", "resolved_tests")
FILES = {"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    return 1\n\n\ndef use():\n    return helper()\n",
         "web/cart.ts": "export function total(): number {\n  return 1\n}\n\nexport const twice = () => total() * 2\n"}


def _graph() -> dict[str, Any]:
    return {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("helper", "helper()", "pkg/core.py", "L1"),
                      node("use", "use()", "pkg/core.py", "L5"), node("cart", "cart.ts", "web/cart.ts", "L1"),
                      node("total", "total()", "web/cart.ts", "L1"), node("twice", "twice()", "web/cart.ts", "L5")],
            "edges": [edge("use", "helper", "calls", path="pkg/core.py", location="L6")]}


def _published(tmp_path: Path, state_dir: Path, files: dict[str, str], graph: dict[str, Any]) -> Any:
    repo = make_repo(tmp_path / "repo", files)
    return publish(repo, state_dir, graph, inventory=inventory_for(repo, sorted(files)))


def _statuses(workspace: Any) -> dict[str, str]:
    index = workspace.index_path(read_current(workspace).id)
    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return dict(connection.execute("SELECT path, status FROM resolved_files"))
    finally:
        connection.close()


def _unavailable(document: dict[str, Any]) -> set[str]:
    """The reasons of the resolved sections that are unavailable (the wire leaves their sentence
    out: the prose names each with its reason)."""
    return {document["sections"][name]["reason"] for name in RESOLVED
            if document["sections"][name]["status"] == "unavailable"}


def _sentence(workspace: Any, target: str) -> str:
    """The sentence the composer wrote for that reason, before the wire (``compose.silence``)."""
    index = workspace.index_path(read_current(workspace).id)
    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        path = connection.execute("SELECT path FROM nodes WHERE label = ?", (target + "()",)).fetchone()[0]
        return silence(connection, {"path": path})[1]
    finally:
        connection.close()


def test_a_fault_of_one_languages_resolver_costs_only_that_languages_files(
        tmp_path: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(blobs: Any) -> Any:
        raise RecursionError("a resolver bug meeting some file")

    monkeypatch.setattr(resolvers, "resolve_javascript", broken)
    workspace = _published(tmp_path, state_dir, FILES, _graph())
    python = ask_context(workspace, "usage", "helper")  # derives the index in this process
    assert _statuses(workspace) == {"pkg/core.py": "resolved", "web/cart.ts": "failed"}
    assert python["sections"]["resolved_callers"]["status"] != "unavailable"
    typescript = ask_context(workspace, "usage", "total")
    assert _unavailable(typescript) == {"resolver_failed"}
    detail = _sentence(workspace, "total")
    assert "JavaScript/TypeScript resolver failed" in detail and "web/cart.ts" in detail, detail
    assert "resolved_callers (resolver_failed)" in typescript["answer"]


def test_an_unparsable_python_file_is_named_as_such_not_as_a_language_no_resolver_reads(
        tmp_path: Path, state_dir: Path) -> None:
    files = {**FILES, "pkg/core.py": "def helper(:\n    return 1\n"}
    graph = {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("helper", "helper()", "pkg/core.py", "L1")],
             "edges": []}
    workspace = _published(tmp_path, state_dir, files, graph)
    document = ask_context(workspace, "usage", "helper")
    assert _unavailable(document) == {"file_unparsable"}
    assert "resolved_callers (file_unparsable)" in document["answer"]
    assert _sentence(workspace, "helper") == "The resolver could not parse pkg/core.py (not Python 3.11 syntax)."


def test_a_language_no_resolver_reads_is_still_said_with_its_file(tmp_path: Path, state_dir: Path) -> None:
    files = {"core.go": "package core\nfunc helper() int {\n  return 1\n}\n"}
    graph = {"nodes": [node("core", "core.go", "core.go", "L1"), node("helper", "helper()", "core.go", "L2")],
             "edges": []}
    workspace = _published(tmp_path, state_dir, files, graph)
    assert _unavailable(ask_context(workspace, "usage", "helper")) == {"not_resolved"}
    assert "did not read core.go" in _sentence(workspace, "helper")
