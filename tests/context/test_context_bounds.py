"""code_context at its edges (issue 25, "Tests that must exist"): each test holds one bound or
exclusion a mutation of the code once crossed unseen.

- mentions leave out every same-named definition's own line, not only the anchor's;
- a one-character name is never searched, and never said to be unused;
- a name used on exactly 2,000 lines is listed (the cap is "more than 2,000");
- ``similar`` at its read bound says so and counts what it read;
- the character budget drops items across sections in its stated order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cm_graph.base.jsonio import dumps_wire
from cm_graph.context import composers
from cm_graph.context.budget import DEFAULT_ITEMS, FLOOR, fit
from cm_graph.index.mentions import MAX_KEPT

from ..support.contextkit import ask_context, mention_lines, published
from ..support.g0 import edge, node
from ..support.helpers import inventory_for, make_repo, publish


def test_every_same_named_definitions_own_line_is_left_out_of_the_mentions(tmp_path: Path, state_dir: Path) -> None:
    """Two recursive one-liners named ``run``: each definition's line also calls ``run``, and the
    provider missed both calls. Neither line is a mention of ``a.py::run``: a definition is not a
    use, whichever definition it is. ``c.py``'s ``a.run(3)`` is the resolver's use of ``a.py``'s
    (resolved), and for ``b.py``'s it is left out as bound to another definition of the name."""
    files = {"a.py": "def run(n): return run(n - 1) if n else 0\n",
             "b.py": "def run(n): return run(n - 2) if n > 1 else 1\n",
             "c.py": "import a\n\n\ndef go():\n    return a.run(3)\n"}
    graph = {"nodes": [node("a", "a.py", "a.py", "L1"), node("a_run", "run()", "a.py", "L1"),
                       node("b", "b.py", "b.py", "L1"), node("b_run", "run()", "b.py", "L1"),
                       node("c", "c.py", "c.py", "L1"), node("c_go", "go()", "c.py", "L4")],
             "edges": []}
    workspace = published(make_repo(tmp_path / "repo", files), state_dir, graph)
    for target, other, resolved_sites, elsewhere in (("a.py::run", "b.py", [("c.py", 5)], 0),
                                                     ("b.py::run", "a.py", [], 1)):
        document = ask_context(workspace, "usage", target)
        assert mention_lines(document) == [], target
        found = document["sections"]["resolved_callers"]["items"]
        assert [(i["site"]["path"], i["site"]["line"]) for i in found] == resolved_sites, target
        assert document["sections"]["mentions"]["bound_elsewhere"] == elsewhere, target
        assert f"{other}#L1" not in str(document["citations"])


def test_a_one_character_name_is_not_searched_and_never_said_unused(tmp_path: Path, state_dir: Path) -> None:
    files = {"m.py": "def f():\n    return 1\n\n\ndef g2():\n    return f() + f()\n"}
    graph = {"nodes": [node("m", "m.py", "m.py", "L1"), node("m_f", "f()", "m.py", "L1"),
                       node("m_g2", "g2()", "m.py", "L5")], "edges": []}
    workspace = published(make_repo(tmp_path / "repo", files), state_dir, graph)
    document = ask_context(workspace, "usage", "f")
    mentions = document["sections"]["mentions"]
    assert (mentions["status"], mentions["reason"], mentions["total"]) == ("empty", "no_name_to_search", 0)
    assert "one character" in mentions["detail"] and mentions["detail"] in document["answer"]
    assert "No line of commit" not in document["answer"]
    assert ask_context(workspace, "tests", "f")["sections"]["test_mentions"]["reason"] == "no_name_to_search"


def test_a_name_on_exactly_the_cap_of_lines_is_listed_not_common(tmp_path: Path, state_dir: Path) -> None:
    """Go, which no resolver reads: every call is a mention only."""
    body = "func get() int { return 1 }\n" + "".join(f"var v{n} = get()\n" for n in range(MAX_KEPT))
    repo = make_repo(tmp_path / "repo", {"m.go": body})
    graph = {"nodes": [node("m", "m.go", "m.go", "L1"), node("m_get", "get()", "m.go", "L1")], "edges": []}
    workspace = publish(repo, state_dir, graph, inventory=inventory_for(repo, ["m.go"]))
    document = ask_context(workspace, "usage", "get", max_chars=200_000)
    mentions = document["sections"]["mentions"]
    assert (mentions["status"], mentions["reason"]) == ("truncated", "max_items")
    assert (mentions["shown"], mentions["total"], mentions["calls"]) == (DEFAULT_ITEMS, MAX_KEPT, MAX_KEPT)
    assert mention_lines(document) == [("m.go", 2 + n) for n in range(DEFAULT_ITEMS)]
    assert f"{MAX_KEPT} more line(s) use it by name" in document["answer"]


def _peers(count: int) -> dict[str, Any]:
    """``target()`` and ``count`` peers, each calling the same two callees (Jaccard 1)."""
    nodes = [node("m", "m.py", "m.py", "L1"), node("one", "one()", "m.py", "L1"), node("two", "two()", "m.py", "L2"),
             node("target", "target()", "m.py", "L3")]
    edges = [edge("target", "one", path="m.py", location="L3"), edge("target", "two", path="m.py", location="L3")]
    for n in range(count):
        nodes.append(node(f"peer{n}", f"peer{n}()", "m.py", f"L{4 + n}"))
        edges += [edge(f"peer{n}", "one", path="m.py", location=f"L{4 + n}"),
                  edge(f"peer{n}", "two", path="m.py", location=f"L{4 + n}")]
    return {"nodes": nodes, "edges": edges}


@pytest.mark.parametrize(("peers", "status", "total"), [(3, "ok", 3), (4, "truncated", 3)])
def test_similar_at_its_read_bound_says_so_and_counts_what_it_read(
    tmp_path: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch, peers: int, status: str, total: int,
) -> None:
    """At the real bound (2,000 rows) a graph would need thousands of peers sharing callees that
    are not hubs; the bound is lowered to 3 so three peers are within it and four are not."""
    lines = "".join(f"def f{n}():\n    pass\n" for n in range(10))
    workspace = published(make_repo(tmp_path / "repo", {"m.py": lines}), state_dir, _peers(peers))
    monkeypatch.setattr(composers, "MAX_READ", 3)
    similar = ask_context(workspace, "usage", "target")["sections"]["similar"]
    assert (similar["status"], similar["total"], similar["shown"]) == (status, total, 3)
    assert similar["reason"] == (None if status == "ok" else "read_limit")
    assert [i["label"] for i in similar["items"]] == ["peer0()", "peer1()", "peer2()"]


def test_the_budget_drops_the_last_item_of_the_fullest_section_first_a_tie_to_the_later_section() -> None:
    """``fit`` with a render whose size is its item count: ``k`` drops fit a budget that needs
    them, and the items go b, a (the later of two equal sections first), b, a, then c once all
    hold one, then b, a."""
    start = {"a": 3, "b": 3, "c": 1}

    def render(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        return {"shown": shown, "dropped": dropped, "pad": "x" * (100 * sum(shown.values()))}

    full = len(dumps_wire(render(start, dict.fromkeys(start, 0))))
    order = ["b", "a", "b", "a", "c", "b", "a"]
    for drops in range(len(order) + 1):
        document = fit(dict(start), full - 100 * drops, render)
        gone = {name: order[:drops].count(name) for name in start}
        assert document["dropped"] == gone, drops
        assert document["shown"] == {name: start[name] - gone[name] for name in start}


def test_the_intents_first_sections_are_cut_last_the_others_down_to_the_floor_first() -> None:
    """``fit`` with ``first``: the other sections give up items down to ``FLOOR`` each (the
    fullest first), then the rest of theirs, and only then do the first sections lose any."""
    start = {"callers": 4, "resolved_callers": 2, "tests": 6, "mentions": 4}

    def render(shown: dict[str, int], dropped: dict[str, int]) -> dict[str, Any]:
        return {"shown": shown, "pad": "x" * (100 * sum(shown.values()))}

    full = len(dumps_wire(render(start, dict.fromkeys(start, 0))))
    first = ("callers", "resolved_callers")
    steps = [fit(dict(start), full - 100 * drops, render, first)["shown"] for drops in range(17)]
    assert steps[4] == {"callers": 4, "resolved_callers": 2, "tests": FLOOR, "mentions": FLOOR}
    assert steps[10] == {"callers": 4, "resolved_callers": 2, "tests": 0, "mentions": 0}
    assert steps[12] == {"callers": 2, "resolved_callers": 2, "tests": 0, "mentions": 0}
    assert steps[16] == dict.fromkeys(start, 0)
