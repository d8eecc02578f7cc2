"""The index keeps what a member names but does not define: the fleet's raw material.

The pinned provider leaves an import it could not bind as an edge to an id it never declares
(urllib3_poolmanager for ``from urllib3.poolmanager import ...``) and parks a member call whose
receiver type is declared nowhere on the caller node (metadata.unresolved_calls). Both are kept
in ``external_references`` with a citable site; malformed parked entries are skipped, never a
refusal, and the table's bytes do not depend on the provider's record order.
"""

from __future__ import annotations

from pathlib import Path

from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import open_index

from ..support.g0 import edge, node
from ..support.helpers import make_repo, numbered_lines, publish

FILES = {"app/client.py": numbered_lines(30), "app/__init__.py": numbered_lines(2)}


def _graph(reverse: bool = False) -> dict:
    parked = [
        {"callee": "urlopen", "receiver_type": "PoolManager", "lang": "python", "line": "L21"},
        {"callee": "broken", "receiver_type": ["not", "text"], "lang": "python", "line": "L3"},
        {"callee": "noline", "receiver_type": "X", "lang": "python"},
    ]
    nodes = [
        node("app_client", "client.py", "app/client.py", "L1"),
        node("app_client_fetch", "fetch()", "app/client.py", "L20", metadata={"unresolved_calls": parked}),
        node("app_init", "__init__.py", "app/__init__.py", "L1"),
    ]
    edges = [
        edge("app_client", "urllib3_poolmanager", "imports_from", path="app/client.py", location="L3"),
        edge("app_client", "os", "imports", path="app/client.py", location="L2"),
        edge("app_client", "app_client_fetch", "contains", path="app/client.py", location="L20"),
        edge("app_init", "app_client", "imports_from", path="app/__init__.py", location="L1"),
        edge("app_client_fetch", "nowhere", "calls", path="app/client.py", location="L22"),
    ]
    if reverse:
        nodes.reverse()
        edges.reverse()
    return {"nodes": nodes, "edges": edges, "hyperedges": [], "input_tokens": 0, "output_tokens": 0,
            "extracted_sources": []}


def _rows(repo: Path, state: Path, *, reverse: bool = False, raw: bool = False) -> list[tuple]:
    """The table as stored (``raw``: by node number, in file order) or named by provider id."""
    report = ensure_index(publish(repo, state, _graph(reverse)))
    connection = open_index(report.path)
    sql = ("SELECT * FROM external_references" if raw else
           "SELECT n.provider_id, r.kind, r.target, r.receiver_type, r.language, r.site_path, r.site_line "
           "FROM external_references AS r JOIN nodes AS n USING (node) ORDER BY 1, 2, 3")
    rows = connection.execute(sql).fetchall()
    connection.close()
    return rows


def test_unbound_imports_and_parked_member_calls_are_kept_with_their_sites(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    rows = _rows(repo, tmp_path / "state")
    assert rows == [
        ("app_client", "import", "os", "", "", "app/client.py", 2),
        ("app_client", "import", "urllib3_poolmanager", "", "", "app/client.py", 3),
        ("app_client_fetch", "member_call", "urlopen", "PoolManager", "python", "app/client.py", 21),
    ]  # a bound import (app_init -> app_client) and an unbound call are not imports of a name


def test_the_table_does_not_depend_on_the_providers_order(tmp_path: Path) -> None:
    first = make_repo(tmp_path / "a" / "repo", FILES)
    second = make_repo(tmp_path / "b" / "repo", FILES)
    ours = _rows(first, tmp_path / "a" / "state", raw=True)
    assert _rows(second, tmp_path / "b" / "state", reverse=True, raw=True) == ours
