"""Two anchoring rules no test held (issue 25: each a mutation that survived): a package import
is attributed to the definition in exactly the imported module before any other of the package,
and a parked member call binds only to a receiver type declared in the caller's language family.

Real git checkouts with generations written in the pinned provider's shapes (fleetkit.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cm_graph.fleet.build import open_fleet
from cm_graph.fleet.members import add_member, member_from
from cm_graph.fleet.usages import cross_repo_usages

from ..support.fleetkit import graph_document, publish_complete
from ..support.g0 import edge, node
from ..support.helpers import make_repo

CLASS = "class Client:\n    pass\n"


def _fleet(state: Path, repos: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    for repo, graph in repos.values():
        publish_complete(repo, state, graph)
        add_member(state, "f", member_from(state, connection=None, repo_path=repo, repository=None))


def _items(state: Path, symbol: str, repository: str) -> list[dict[str, Any]]:
    index = open_fleet(state, "f")
    try:
        return list(cross_repo_usages(index, symbol)["usages_by_repository"][repository]["items"])
    finally:
        index.close()


def test_a_package_import_prefers_the_definition_in_exactly_that_module(tmp_path: Path) -> None:
    """``dup-pkg`` defines ``Client`` in two modules. ``from dup_pkg.core import Client`` means the
    one in ``dup_pkg.core`` (never ambiguous: the mutant that drops the exact-module preference
    makes it so); ``from dup_pkg import Client`` names no module that defines it (a re-export), so
    both of the package's definitions are its candidates."""
    state = tmp_path / "state"
    lib = make_repo(tmp_path / "dup", {"pyproject.toml": '[project]\nname = "dup-pkg"\n',
                                       "dup_pkg/__init__.py": "", "dup_pkg/core.py": CLASS, "dup_pkg/util.py": CLASS})
    use = make_repo(tmp_path / "use", {"use.py": "from dup_pkg.core import Client\nfrom dup_pkg import Client\n"})
    _fleet(state, {
        "dup": (lib, graph_document([
            node("dup_pkg_core", "core.py", "dup_pkg/core.py", "L1"),
            node("dup_pkg_core_client", "Client", "dup_pkg/core.py", "L1", _callable=True, _callable_class=True),
            node("dup_pkg_util", "util.py", "dup_pkg/util.py", "L1"),
            node("dup_pkg_util_client", "Client", "dup_pkg/util.py", "L1", _callable=True, _callable_class=True),
        ], [])),
        "use": (use, graph_document([node("use", "use.py", "use.py", "L1")], [
            edge("use", "dup_pkg_core", "imports_from", path="use.py", location="L1"),
            edge("use", "dup_pkg", "imports_from", path="use.py", location="L2"),
        ])),
    })
    exact, reexport = _items(state, "Client", "use")
    assert (exact["citation"], exact["anchor"], exact["definition"]) == (
        "use.py#L1", "package", "dup:dup_pkg/core.py#L1")
    assert "candidates" not in exact
    assert (reexport["citation"], reexport["anchor"], reexport["candidates"]) == (
        "use.py#L2", "ambiguous", ["dup:dup_pkg/core.py#L1", "dup:dup_pkg/util.py#L1"])


def _session(node_prefix: str, path: str) -> list[dict[str, Any]]:
    return [node(node_prefix, "Session", path, "L1", _callable=True, _callable_class=True),
            node(f"{node_prefix}_send", ".send()", path, "L2", _callable=True)]


def _caller(path: str, lang: str, line: str) -> dict[str, Any]:
    parked = [{"callee": "send", "receiver_type": "Session", "lang": lang, "line": line}]
    return graph_document([node("caller_file", path.rsplit("/", 1)[-1], path, "L1"),
                           node("caller_run", "run()", path, "L1", metadata={"unresolved_calls": parked})],
                          [edge("caller_file", "caller_run", "contains", path=path, location="L1")])


def test_a_member_call_binds_only_within_its_language_family(tmp_path: Path) -> None:
    """``both`` declares a ``Session`` with ``send()`` in Python and again in Java. A Python call on
    a ``Session`` binds to the Python one and a Java call to the Java one: in its family the type is
    declared once. Ignoring the family, either in the type's single-definition guard or in the
    methods it binds to, makes both calls ambiguous (the mutants this test was written against)."""
    state = tmp_path / "state"
    both = make_repo(tmp_path / "both", {"both/session.py": "class Session:\n    def send(self):\n        pass\n",
                                         "src/Session.java": "class Session {\n  void send() {}\n}\n"})
    py = make_repo(tmp_path / "py", {"py/run.py": "def run(session):\n    session.send()\n"})
    jvm = make_repo(tmp_path / "jvm", {"src/App.java": "class App {\n  void run(Session s) {\n    s.send();\n"
                                                        "  }\n}\n"})
    _fleet(state, {
        "both": (both, graph_document([*_session("py_session", "both/session.py"),
                                       *_session("java_session", "src/Session.java")], [
            edge("py_session", "py_session_send", "method", path="both/session.py", location="L2"),
            edge("java_session", "java_session_send", "method", path="src/Session.java", location="L2"),
        ])),
        "py": (py, _caller("py/run.py", "python", "L2")),
        "jvm": (jvm, _caller("src/App.java", "java", "L3")),
    })
    [python_call] = _items(state, "send", "py")
    assert (python_call["anchor"], python_call["via"], python_call.get("definition")) == (
        "receiver_type", "call on Session", "both:both/session.py#L2"), python_call
    [java_call] = _items(state, "send", "jvm")
    assert (java_call["anchor"], java_call.get("definition")) == (
        "receiver_type", "both:src/Session.java#L2"), java_call
