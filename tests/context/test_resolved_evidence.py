"""The resolved evidence in code_context (issue 28 item 4): a third evidence kind beside the
graph's and the text index's, each item labelled, never merged silently. Real git repositories,
real SQLite, the resolved layer built with the index; hand-written graphs that lack what a reader
of the code can see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cm_graph.context.section_table import BY_NAME, SECTIONS

from ..support.contextkit import ask_context, published
from ..support.g0 import edge, node
from ..support.helpers import inventory_for, make_repo, publish

CORE = "def target():\n    return 1\n\n\ndef public():\n    return target()\n"
USE = ("from pkg.core import public, target\n\n\n"
       "def factory():\n"
       "    class Local:\n"
       "        def run(self):\n"
       "            return target()\n"
       "    return Local\n\n\n"
       "def entry():\n"
       "    return public()\n")
TESTS = "from pkg.use import entry\n\n\ndef test_entry():\n    assert entry() == 1\n"


def _graph() -> dict[str, Any]:
    """The provider's view: the call inside core.py only; no node for the class inside factory()."""
    return {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("target", "target()", "pkg/core.py", "L1"),
                      node("public", "public()", "pkg/core.py", "L5"), node("use", "use.py", "pkg/use.py", "L1"),
                      node("factory", "factory()", "pkg/use.py", "L4"), node("entry", "entry()", "pkg/use.py", "L11"),
                      node("t", "test_use.py", "tests/test_use.py", "L1"),
                      node("test_entry", "test_entry()", "tests/test_use.py", "L4")],
            "edges": [edge("public", "target", "calls", path="pkg/core.py", location="L6")]}


def _workspace(tmp_path: Path, state_dir: Path) -> Any:
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE, "tests/test_use.py": TESTS}
    return published(make_repo(tmp_path / "repo", files), state_dir, _graph())


def test_each_resolved_row_declares_the_graph_rows_whose_relation_words_it_walks() -> None:
    """``used_relations`` says a resolved row walks its twins' words (``relations_of``) and the
    resolver's roles: that is true only if its walk's words are exactly theirs."""
    resolved = [row for row in SECTIONS if row.beside]
    assert {row.name for row in resolved} == {"resolved_callers", "resolved_by_hop", "resolved_tests",
                                              "resolved_calls"}
    for row in resolved:
        assert row.walk is not None and row.roles and "override" not in row.roles
        words = {word for twin in row.beside for word in BY_NAME[twin].walk.relations}  # type: ignore[union-attr]
        assert set(row.walk.relations) == words, row.name
        twin = BY_NAME[row.beside[0]].walk
        assert twin is not None and twin.direction == row.walk.direction, row.name
        # the users' walks go as deep as their twins; what it calls is its own calls (hop 1), the
        # graph's hop 2 being context a resolver walk would only repeat
        assert row.walk.depth == (twin.depth if row.of_users else 1), row.name
        assert set(row.intents) <= {intent for twin in row.beside for intent in BY_NAME[twin].intents}, row.name


def test_a_definition_the_provider_has_no_node_for_is_a_resolved_use_labelled_so(
        tmp_path: Path, state_dir: Path) -> None:
    """``Local.run`` is defined inside ``factory()``: the provider made no node of it (its gap),
    the resolver keeps it, and its call of ``target()`` is listed with ``graph_node: false``."""
    document = ask_context(_workspace(tmp_path, state_dir), "usage", "target")
    section = document["sections"]["resolved_callers"]
    found = section["items"]
    assert [(i["label"], i["path"], i["line"], i["site"]["line"], i.get("graph_node"), i["relation"])
            for i in found] == [(".run()", "pkg/use.py", 6, 7, False, "call")]
    assert section["imports_folded"] == 1  # use.py's import: its file's use is listed
    # where it is, so a rename's agent edits it too (the item list does not carry it)
    assert "not listed as items: pkg/use.py L1." in section["detail"]
    assert {i["evidence"] for i in found} == {"resolved"}
    callers = document["sections"]["callers"]["items"]
    assert [(i["label"], i["confidence"]) for i in callers] == [("public()", "extracted")]


def test_a_resolved_caller_seeds_the_next_hop_and_every_step_says_its_evidence(
        tmp_path: Path, state_dir: Path) -> None:
    """impact of ``target``: the graph reaches ``public()`` only; the resolver's ``entry()`` (it
    calls ``public()``) is hop 2 and ``test_entry()`` (it calls ``entry()``) hop 3, reached
    through a graph step then resolved ones. The tests intent walks two hops: ``public``'s names
    the chain; ``target``'s says, as no test is within them, that none beyond the graph's is."""
    workspace = _workspace(tmp_path, state_dir)
    impact = ask_context(workspace, "impact", "target")
    assert [(i["label"], i["hop"]) for i in impact["sections"]["callers_by_hop"]["items"]] == [("public()", 1)]
    reach = impact["sections"]["resolved_by_hop"]["items"]
    assert [(i["label"], i["hop"], i["group"], i["via"]) for i in reach] == [
        (".run()", 1, "will_break", "target()"), ("entry()", 2, "likely", "public()"),
        ("test_entry()", 3, "may_need_testing", "entry()")]
    assert impact["sections"]["resolved_by_hop"]["imports_folded"] == 2  # use.py's, test_use.py's
    detail = impact["sections"]["resolved_by_hop"]["detail"]
    assert "not listed as items: pkg/use.py L1, tests/test_use.py L1." in detail
    assert {i["evidence"] for i in reach} == {"resolved"}
    far = ask_context(workspace, "tests", "target")["sections"]["resolved_tests"]
    assert (far["status"], far["reason"]) == ("empty", "no_resolved_test")
    tests = ask_context(workspace, "tests", "public")
    assert tests["sections"]["tests"]["status"] == "empty"
    [reached] = tests["sections"]["resolved_tests"]["items"]
    assert (reached["label"], reached["hop"], reached["reaching"]) == (
        "test_entry()", 2, ["test_entry()", "call (resolved) entry()", "call (resolved) public()"])


def test_an_anchor_the_resolver_does_not_read_has_its_resolved_sections_unavailable(
        tmp_path: Path, state_dir: Path) -> None:
    """Go is a language no resolver reads (JavaScript and TypeScript are read: test_resolved_javascript)."""
    files = {"core.go": "package core\nfunc helper() int {\n  return 1\n}\n",
             "use.go": "package core\nvar y = helper\nvar x = helper()\n"}
    graph = {"nodes": [node("core", "core.go", "core.go", "L1"), node("helper", "helper()", "core.go", "L2"),
                       node("use", "use.go", "use.go", "L1")], "edges": []}
    repo = make_repo(tmp_path / "repo", files)
    document = ask_context(publish(repo, state_dir, graph, inventory=inventory_for(repo, sorted(files))),
                           "usage", "helper")
    for name in ("resolved_callers", "resolved_tests"):
        section = document["sections"][name]
        assert (section["status"], section["reason"]) == ("unavailable", "not_resolved"), name
    assert "resolved_callers" not in document["used_relations"]  # it ran no walk
    assert [i["line"] for i in document["sections"]["mentions"]["items"]] == [2, 3]
    assert "Neither graph nor resolver" not in document["answer"]  # the resolver saw nothing here
