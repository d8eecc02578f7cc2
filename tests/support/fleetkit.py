"""A small fleet of real repositories for the fleet tests: two libraries and an application.

``lib`` declares the package ``lib-pkg`` (imported as ``lib_pkg``) and defines ``Client`` (with
a ``fetch`` method), ``helper`` and ``Session.send``; ``other`` declares ``otherlib`` and defines
another ``Client``; ``app`` declares nothing and uses them: ``from lib_pkg.core import Client,
helper`` (the provider's unbound import of ``lib_pkg.core``), a member call on ``Session`` the
provider parked, and a base class ``Base`` it only names. The graphs are written in the pinned
provider's own shapes (ids, labels, relations, metadata) and published as another tool would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .g0 import edge, node
from .helpers import git, inventory_for, make_repo, numbered_lines, publish

LIB_CORE = "\n".join([
    '"""Core."""', "", "", "", "class Client:", '    """A client."""', "", "    def fetch(self):",
    "        return 1", "", "", "def helper():", "    return 2", "", "", "class Session:",
    "    def send(self):", "        return 3", "", "", "class Base:", "    pass", "",
])
APP_MAIN = "\n".join([
    "from lib_pkg.core import Client, helper", "import otherlib", "from lib_pkg.core import (",
    "    Session,", ")", "", "", "class Thing(Base):", "    pass", "", "", "def run(session: Session):",
    "    session.send()", "    return Client(), helper()", "",
])


def graph_document(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    """A provider graph.json holding ``nodes`` and ``edges``."""
    return {"nodes": nodes, "edges": edges, "hyperedges": [], "input_tokens": 0, "output_tokens": 0,
            "extracted_sources": []}


def lib_graph() -> dict[str, Any]:
    path = "src/lib_pkg/core.py"
    return graph_document([
        node("src_lib_pkg_core", "core.py", path, "L1"),
        node("src_lib_pkg_core_client", "Client", path, "L5", _callable=True, _callable_class=True),
        node("src_lib_pkg_core_client_fetch", ".fetch()", path, "L8", _callable=True),
        node("src_lib_pkg_core_helper", "helper()", path, "L12", _callable=True),
        node("src_lib_pkg_core_session", "Session", path, "L16", _callable=True, _callable_class=True),
        node("src_lib_pkg_core_session_send", ".send()", path, "L17", _callable=True),
        node("src_lib_pkg_core_base", "Base", path, "L21"),
        node("src_lib_pkg_core_ghost", "ghost()", path, "L999"),  # a line past the file's end
    ], [
        edge("src_lib_pkg_core", "src_lib_pkg_core_client", "contains", path=path, location="L5"),
        edge("src_lib_pkg_core_client", "src_lib_pkg_core_client_fetch", "method", path=path, location="L8"),
        edge("src_lib_pkg_core_session", "src_lib_pkg_core_session_send", "method", path=path, location="L17"),
    ])


def other_graph() -> dict[str, Any]:
    path = "otherlib/__init__.py"
    return graph_document([
        node("otherlib_init", "__init__.py", path, "L1"),
        node("otherlib_init_client", "Client", path, "L3", _callable=True, _callable_class=True),
    ], [edge("otherlib_init", "otherlib_init_client", "contains", path=path, location="L3")])


def app_graph() -> dict[str, Any]:
    path = "app/main.py"
    parked = [{"callee": "send", "receiver_type": "Session", "lang": "python", "line": "L13"}]
    return graph_document([
        node("app_main", "main.py", path, "L1"),
        node("app_main_thing", "Thing", path, "L8"),
        node("app_main_run", "run()", path, "L12", metadata={"unresolved_calls": parked}),
        node("base", "Base", "", ""),
    ], [
        edge("app_main", "lib_pkg_core", "imports_from", path=path, location="L1"),
        edge("app_main", "otherlib", "imports", path=path, location="L2"),
        edge("app_main", "app_main_run", "contains", path=path, location="L12"),
        edge("app_main_thing", "base", "inherits", path=path, location="L8"),
    ])


def make_fleet_repos(root: Path, state: Path) -> dict[str, Path]:
    """The three checkouts under ``root``, each with a current generation under ``state``."""
    lib = make_repo(root / "lib", {
        "pyproject.toml": '[project]\nname = "lib-pkg"\nversion = "1.0"\n',
        "src/lib_pkg/__init__.py": "", "src/lib_pkg/core.py": LIB_CORE,
    })
    other = make_repo(root / "other", {
        "pyproject.toml": '[project]\nname = "otherlib"\n',
        "otherlib/__init__.py": '"""Other."""\n\nclass Client:\n    pass\n' + numbered_lines(3),
    })
    app = make_repo(root / "app", {"app/__init__.py": "", "app/main.py": APP_MAIN})
    publish_complete(lib, state, lib_graph())
    publish_complete(other, state, other_graph())
    publish_complete(app, state, app_graph())
    return {"lib": lib, "other": other, "app": app}


def publish_complete(repo: Path, state: Path, graph: dict[str, Any]) -> None:
    """Publish ``graph`` with an inventory of every tracked file (pyproject.toml is a provider
    input too), so the generation is complete."""
    publish(repo, state, graph, inventory=inventory_for(repo, git(repo, "ls-files").splitlines()))
