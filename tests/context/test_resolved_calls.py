"""What a definition calls, beyond the graph's ``calls`` (issue 27: a "how does X work" answer
that read as complete while it missed every call on an instance). The resolver binds a call on a
value whose type it knows; a call on a value of unknown type is named by the definitions that
carry the name, labelled a match by name, and the section says its list may be incomplete. Real
git repository, real SQLite, the resolved layer built with the index; a hand-written graph that,
as the pinned provider does, records only the plain function call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..support.contextkit import ask_context, published
from ..support.g0 import edge, node
from ..support.helpers import make_repo

CORE = ("class Store:\n"                   # 1
        "    def save(self, value):\n"     # 2
        "        return value\n\n\n"       # 3-5
        "def helper():\n"                  # 6
        "    return 1\n\n\n"               # 7-9
        "def flush(sink):\n"               # 10
        "    return sink.drain()\n\n\n"    # 11-13
        "class Sink:\n"                    # 14
        "    def drain(self):\n"           # 15
        "        return 0\n\n\n"           # 16-18
        "def run(sink):\n"                 # 19
        "    store = Store()\n"            # 20
        "    store.save(helper())\n"       # 21
        "    return sink.drain()\n")       # 22


def _graph() -> dict[str, Any]:
    return {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("Store", "Store", "pkg/core.py", "L1"),
                      node("save", ".save()", "pkg/core.py", "L2"), node("helper", "helper()", "pkg/core.py", "L6"),
                      node("flush", "flush()", "pkg/core.py", "L10"), node("Sink", "Sink", "pkg/core.py", "L14"),
                      node("drain", ".drain()", "pkg/core.py", "L15"), node("run", "run()", "pkg/core.py", "L19")],
            "edges": [edge("Store", "save", "method", path="pkg/core.py", location="L2"),
                      edge("Sink", "drain", "method", path="pkg/core.py", location="L15"),
                      edge("run", "Store", "calls", path="pkg/core.py", location="L20"),
                      edge("run", "helper", "calls", path="pkg/core.py", location="L21")]}


def _how(tmp_path: Path, state_dir: Path, target: str) -> dict[str, Any]:
    workspace = published(make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": CORE}), state_dir,
                          _graph())
    return ask_context(workspace, "how", target)


def test_a_call_on_a_typed_local_is_a_resolved_callee_the_graph_lacks(tmp_path: Path, state_dir: Path) -> None:
    document = _how(tmp_path, state_dir, "run")
    assert [i["label"] for i in document["sections"]["calls"]["items"]] == ["Store", "helper()"]
    section = document["sections"]["resolved_calls"]
    found = [(i["label"], i["evidence"], i["relation"], i["site"]["line"], i["path"], i["line"])
             for i in section["items"]]
    assert ("Store" not in {f[0] for f in found}) and (".__init__()" not in {f[0] for f in found})
    assert (".save()", "resolved", "call", 21, "pkg/core.py", 2) in found
    # `sink` has no known type: `drain` is named by its one definition, as a match by name
    assert (".drain()", "textual", "call (receiver type unknown)", 22, "pkg/core.py", 15) in found
    assert section["unknown_receivers"] == 1 and "may be incomplete" in section["detail"]
    assert "Beyond the graph, it calls 2 more" in document["answer"]


def test_a_function_the_resolver_finds_nothing_more_in_says_so(tmp_path: Path, state_dir: Path) -> None:
    section = _how(tmp_path, state_dir, "helper")["sections"]["resolved_calls"]
    assert (section["status"], section["reason"]) == ("empty", "no_resolved_call")


DISPATCH = ("class Step:\n"                        # 1
            "    def run(self):\n"                 # 2
            "        return 0\n\n\n"               # 3-5
            "class Loud(Step):\n"                  # 6
            "    def run(self):\n"                 # 7
            "        return 1\n\n\n"               # 8-10
            "def go(step: Step):\n"                # 11
            "    return step.run()\n")             # 12


def test_a_call_of_a_base_method_may_run_each_override(tmp_path: Path, state_dir: Path) -> None:
    """markdown's ``for prep in self.preprocessors: prep.run(lines)`` binds to ``Preprocessor.run``,
    and what runs is one of its subclasses' ``run``: each is listed, labelled as a dispatch."""
    graph = {"nodes": [node("m", "m.py", "m.py", "L1"), node("Step", "Step", "m.py", "L1"),
                       node("Step.run", ".run()", "m.py", "L2"), node("Loud", "Loud", "m.py", "L6"),
                       node("Loud.run", ".run()", "m.py", "L7"), node("go", "go()", "m.py", "L11")],
             "edges": [edge("Step", "Step.run", "method", path="m.py", location="L2"),
                       edge("Loud", "Loud.run", "method", path="m.py", location="L7"),
                       edge("Loud", "Step", "inherits", path="m.py", location="L6")]}
    document = ask_context(published(make_repo(tmp_path / "repo", {"m.py": DISPATCH}), state_dir, graph), "how", "go")
    found = [(i["line"], i["relation"], i["evidence"], i["site"]["line"])
             for i in document["sections"]["resolved_calls"]["items"]]
    assert found == [(2, "call", "resolved", 12), (7, "may dispatch to (override)", "resolved", 12)]
    assert "(in m.py, may run: it overrides .run())" in document["answer"]
