"""Every line a caller uses the anchor on is cited (issue 27: a signature change edits each call,
not each caller). The graph records one edge, one site, per caller; a walk reaches a caller once;
so a second call in the same function, or a module-level call in a file the graph links by its
import, was in no section: the mentions left it out (the resolver binds it to the anchor) and the
walk showed only the first site. Real git repository, real SQLite, the resolved layer built with
the index; a hand-written graph with one edge per caller, as the pinned provider writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cm_graph.context.wire import cited
from cm_graph.generation.layout import Workspace

from ..support.contextkit import ask_context, published
from ..support.g0 import edge, node
from ..support.helpers import make_repo

CORE = ("def target(value):\n"            # 1
        "    return value\n\n\n"          # 2-4
        "def public():\n"                 # 5
        "    first = target(1)\n"         # 6
        "    return first + target(2)\n")  # 7
USE = ("from pkg.core import target\n\n"   # 1-2
       "DEFAULT = target(3)\n\n\n"         # 3-5
       "def helper():\n"                  # 6
       "    return target(4)\n")           # 7


def _graph() -> dict[str, Any]:
    return {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("target", "target()", "pkg/core.py", "L1"),
                      node("public", "public()", "pkg/core.py", "L5"), node("use", "use.py", "pkg/use.py", "L1"),
                      node("helper", "helper()", "pkg/use.py", "L6")],
            "edges": [edge("public", "target", "calls", path="pkg/core.py", location="L6"),
                      edge("use", "target", "imports_from", path="pkg/use.py", location="L1"),
                      edge("helper", "target", "calls", path="pkg/use.py", location="L7")]}


def _workspace(tmp_path: Path, state_dir: Path) -> Workspace:
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE}
    return published(make_repo(tmp_path / "repo", files), state_dir, _graph())


def _ask(tmp_path: Path, state_dir: Path, intent: str) -> dict[str, Any]:
    return ask_context(_workspace(tmp_path, state_dir), intent, "target")


def _lines(item: dict[str, Any]) -> list[int]:
    return [item["site"]["line"]] + [more["line"] for more in item.get("also") or []]


def test_a_caller_that_uses_it_twice_is_cited_at_both_lines(tmp_path: Path, state_dir: Path) -> None:
    workspace = _workspace(tmp_path, state_dir)
    document = ask_context(workspace, "usage", "target")
    callers = {item["label"]: item for item in document["sections"]["callers"]["items"]}
    assert _lines(callers["public()"]) == [6, 7]
    assert _lines(callers["helper()"]) == [7]
    assert callers["public()"]["also"] == [{"path": "pkg/core.py", "line": 7}]
    assert document["bounds"]["unverified_citations"] == 0  # confirmed at the bound commit, as its site is
    wire = ask_context(workspace, "usage", "target", wire=True)
    rows = wire["sections"]["callers"]
    [public] = [dict(zip(rows["columns"], row, strict=True)) for row in rows["rows"] if row[0] == "public()"]
    assert public["also"] == [7] and cited(wire)[public["site"]] == "pkg/core.py#L6"  # a line of the site's file


def test_a_module_level_use_in_a_file_the_graph_links_by_its_import_is_cited(tmp_path: Path, state_dir: Path) -> None:
    document = _ask(tmp_path, state_dir, "usage")
    [importer] = document["sections"]["references"]["items"]
    assert importer["label"] == "use.py" and _lines(importer) == [1, 3]
    mentions = document["sections"]["mentions"]
    assert mentions["total"] == 0  # nothing left for the text index: every line is in a section


def test_impact_cites_every_line_of_a_first_hop_caller(tmp_path: Path, state_dir: Path) -> None:
    document = _ask(tmp_path, state_dir, "impact")
    first = {item["label"]: _lines(item) for item in document["sections"]["callers_by_hop"]["items"]
             if item["hop"] == 1}
    assert first["public()"] == [6, 7] and first["use.py"] == [1, 3]


SELF = ("def merge(*dicts):\n"                 # 1
        "    factory = pick(merge)\n"          # 2 a reference to itself (a rename edits it)
        "    return factory(dicts)\n\n\n"      # 3-5
        "def pick(function):\n"                # 6
        "    return function\n")               # 7


def test_a_use_of_the_anchor_inside_itself_is_cited_on_the_anchor(tmp_path: Path, state_dir: Path) -> None:
    """A walk never lists the anchor as its own user, so toolz's `_get_factory(merge, kwargs)`
    inside `merge` was in no section (and left out of the mentions: the resolver binds it)."""
    graph = {"nodes": [node("m", "m.py", "m.py", "L1"), node("merge", "merge()", "m.py", "L1"),
                       node("pick", "pick()", "m.py", "L6")],
             "edges": [edge("merge", "pick", "calls", path="m.py", location="L2")]}
    document = ask_context(published(make_repo(tmp_path / "repo", {"m.py": SELF}), state_dir, graph), "usage", "merge")
    [anchor] = document["anchors"]
    # L3 too: `pick` returns its first argument, so the resolver knows `factory` is `merge`
    assert [document_location(document, cid) for cid in anchor["also"]] == [("m.py", 2), ("m.py", 3)]
    assert f"It uses itself at `L2` [{anchor['also'][0]}]" in document["answer"]


def document_location(document: dict[str, Any], cid: str) -> tuple[str, int | None]:
    [entry] = [entry for entry in document["citations"] if entry["id"] == cid]
    return entry["path"], entry["line"]


def test_a_user_with_more_lines_than_listed_says_how_many_more(tmp_path: Path, state_dir: Path) -> None:
    """toolz's ``curried/__init__.py`` calls ``toolz.curry`` on some 60 module-level lines: the
    lines past ``ALSO_MAX`` are counted and the section says so, never dropped silently."""
    from cm_graph.context.use_lines import ALSO_MAX

    many = "from pkg.core import target\n" + "".join(f"V{n} = target({n})\n" for n in range(ALSO_MAX + 3))
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": many}
    graph = {"nodes": [node("core", "core.py", "pkg/core.py", "L1"), node("target", "target()", "pkg/core.py", "L1"),
                       node("use", "use.py", "pkg/use.py", "L1")],
             "edges": [edge("use", "target", "imports_from", path="pkg/use.py", location="L1")]}
    document = ask_context(published(make_repo(tmp_path / "repo", files), state_dir, graph), "usage", "target",
                           max_chars=100_000)
    section = document["sections"]["references"]
    [importer] = section["items"]
    assert len(importer["also"]) == ALSO_MAX and importer["also_more"] == 3
    assert "and 3 more line(s)" in section["detail"]


def test_a_file_only_the_resolver_links_is_cited_at_every_line(tmp_path: Path, state_dir: Path) -> None:
    """toolz's ``curried/__init__.py``: no graph edge from the file, so ``resolved_callers`` lists it,
    described from the graph's node (the provider's kind, not ``file``): its import and each
    module-level call are one item's lines. The walk reaches the file by its call, not by the
    import, which (beside a use in the same file) is folded and took the call with it."""
    graph = _graph()
    graph["edges"] = [e for e in graph["edges"] if e["source"] != "use"]
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE}
    document = ask_context(published(make_repo(tmp_path / "repo", files), state_dir, graph), "usage", "target")
    [importer] = [i for i in document["sections"]["resolved_callers"]["items"] if i["path"] == "pkg/use.py"]
    # cited at its use (an import beside a use is no news), and at the import too
    assert importer["label"] == "use.py" and _lines(importer) == [3, 1]
