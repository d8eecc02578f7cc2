"""Hub answers bounded in work (issue 31, item 2): an answer reads each hop of its walks once.

A resolved section walks its graph twin's walk again to tell what lies beyond it, and
``tests_to_run`` walks three hops where ``tests`` walks two; on a hub each of those hops reads up
to ``MAX_READ`` adjacency rows. The walks share the answer's hop reads (``walks.hop_rows``), so
no hop statement runs twice with the same bindings in one answer, while the answer stays what it
was: its totals are the graph's own count (a SQL ``COUNT`` over the edges, below the read bound),
and the answer fits its budget.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from cm_graph.base.jsonio import dumps_wire
from cm_graph.base.sqlfiles import query_sql
from cm_graph.context.budget import DEFAULT_CHARS
from cm_graph.context.compose import compose
from cm_graph.context.walks import MAX_READ
from cm_graph.generation.status import require_current
from cm_graph.index.ensure import open_index_for

from ..support.contextkit import ask_context, published
from ..support.g0 import edge, node
from ..support.helpers import make_repo

CALLERS = MAX_READ - 200  # thousands of callers, all within the read bound: each total is exact
TESTS = 40
# The statements that read a hop's rows (a hub's thousands); the anchor's own resolved definitions
# (``resolved_definitions_of``, one primary-key row) are looked up by several sections and not counted.
HOP_STATEMENTS = {query_sql(name): name for name in ("neighbours", "resolved_users")}


def _hub() -> tuple[dict[str, str], dict[str, Any]]:
    """``pkg/hub.py``'s ``hub()`` called by ``CALLERS`` functions of ``pkg/many.py``, the first
    ``TESTS`` of which a test each calls: real Python, so the resolver reads it too."""
    many = "from pkg.hub import hub\n" + "".join(f"def caller_{i:05d}():\n    return hub()\n" for i in range(CALLERS))
    tests = "from pkg.many import *\n" + "".join(f"def test_{i:05d}():\n    assert caller_{i:05d}()\n"
                                                 for i in range(TESTS))
    files = {"pkg/__init__.py": "", "pkg/hub.py": "def hub():\n    return 1\n", "pkg/many.py": many,
             "tests/test_many.py": tests}
    nodes = [node("hub", "hub()", "pkg/hub.py", "L1")]
    edges = []
    for i in range(CALLERS):
        nodes.append(node(f"c{i:05d}", f"caller_{i:05d}()", "pkg/many.py", f"L{2 + 2 * i}"))
        edges.append(edge(f"c{i:05d}", "hub", "calls", path="pkg/many.py", location=f"L{3 + 2 * i}"))
    for i in range(TESTS):
        nodes.append(node(f"t{i:05d}", f"test_{i:05d}()", "tests/test_many.py", f"L{2 + 2 * i}"))
        edges.append(edge(f"t{i:05d}", f"c{i:05d}", "calls", path="tests/test_many.py", location=f"L{3 + 2 * i}"))
    return files, {"nodes": nodes, "edges": edges}


def test_a_hub_answer_reads_each_hop_once_and_keeps_its_totals_exact(tmp_path: Path, state_dir: Path) -> None:
    files, graph = _hub()
    workspace = published(make_repo(tmp_path / "repo", files), state_dir, graph)
    ask_context(workspace, "usage", "hub")  # derives the index
    generation = require_current(workspace)
    connection = open_index_for(generation)
    hub = connection.execute("SELECT node FROM nodes WHERE label = 'hub()'").fetchall()[0][0]
    callers = connection.execute(
        "SELECT count(DISTINCT source) FROM edges WHERE target = ? AND relation = 'calls'", (hub,)).fetchall()[0][0]
    assert callers == CALLERS
    graph_facts = {"generation": generation.id, "commit": generation.manifest.commit,
                   "tree": generation.manifest.tree, "provider": "graphifyy==0.9.58",
                   "built_at": generation.manifest.built_at}
    reads: Counter[tuple[str, str]] = Counter()

    def trace(cursor: Any, statement: str, bindings: Any) -> bool:
        if statement in HOP_STATEMENTS:
            reads[(HOP_STATEMENTS[statement], repr(sorted(bindings.items())))] += 1
        return True

    connection.set_exec_trace(trace)
    for intent in ("usage", "impact", "tests"):
        reads.clear()
        document = compose(connection, intent, "hub", graph_facts, {"state": "current"}, DEFAULT_CHARS)
        again = [read for read, times in reads.items() if times > 1]
        assert reads and not again, (intent, again)
        assert len(dumps_wire(document)) <= DEFAULT_CHARS, intent
        sections = document["sections"]
        first = sections["callers"] if intent == "usage" else sections["callers_by_hop"] if intent == "impact" \
            else None
        if first is not None:  # every caller counted, a few shown, none said to be a lower bound
            assert first["total"] == CALLERS + (TESTS if intent == "impact" else 0), intent
            assert first["reason"] in ("max_items", "max_chars"), intent
            assert 0 < first["shown"] < first["total"], intent
        assert sections["tests"]["total"] == TESTS, intent
