"""No hidden cap (issue 27 item 1): ``--max-items`` bounds a section, and a cut section says how
many more it holds and the exact call returning them, a cursor that pins the answer it pages.
Built with the real pinned provider: sixty modules each call ``target`` once."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from cm_graph.base.errors import InvalidInput
from cm_graph.context.budget import DEFAULT_ITEMS
from cm_graph.generation.layout import Workspace

from ..support.contextkit import ask_context, many_callers, readable
from ..support.helpers import make_repo, provider_extract, publish, run_installed

pytestmark = [pytest.mark.provider]

CALLERS = 60


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("paging")
    repo = make_repo(root / "repo", many_callers(CALLERS))
    return repo, provider_extract(repo, root / "out")


@pytest.fixture
def workspace(built: tuple[Path, dict[str, Any]], tmp_path: Path) -> Workspace:
    repo, graph = built
    return publish(repo, tmp_path / "state", graph)


def _page_action(document: dict[str, Any], section: str) -> dict[str, Any]:
    [action] = [a for a in document["next_actions"] if a["arguments"].get("cursor", "").startswith(section + ".")]
    return action


def _all_callers(workspace: Workspace, **options: Any) -> tuple[list[str], int]:
    """Every caller label, following the callers section's page actions to the end; and the pages."""
    document = ask_context(workspace, "usage", "target", **options)
    labels = [item["label"] for item in document["sections"]["callers"]["items"]]
    pages = 0
    while any(a["arguments"].get("cursor", "").startswith("callers.") for a in document["next_actions"]):
        arguments = _page_action(document, "callers")["arguments"]
        document = ask_context(workspace, arguments["intent"], arguments["target"],
                               max_items=arguments.get("max_items"), cursor=arguments["cursor"])
        assert document["page"]["section"] == "callers" and document["status"] == "answered"
        page = [item["label"] for item in document["sections"]["callers"]["items"]]
        assert 0 < len(page) <= document["bounds"]["max_items"]
        labels += page
        pages += 1
    return labels, pages


def test_a_cut_section_says_how_many_more_and_the_exact_call_that_returns_them(workspace: Workspace) -> None:
    document = ask_context(workspace, "usage", "target")
    callers = document["sections"]["callers"]
    assert callers["total"] == CALLERS and callers["shown"] < CALLERS
    more = CALLERS - callers["shown"]
    assert f"callers ({more} more)" in document["answer"]
    action = _page_action(document, "callers")
    assert action["arguments"]["cursor"] == document["pages"]["callers"]
    assert action["tool"] == "code_context"
    assert shlex.split(action["command"]) == ["cm-graph", "context", "usage", "target", "--cursor",
                                              action["arguments"]["cursor"]]
    assert f"{CALLERS} caller(s) in the graph (graph), {callers['shown']} shown" in document["answer"]


def test_following_the_pages_returns_every_caller_once(workspace: Workspace) -> None:
    expected = sorted(f"caller_{i:02d}()" for i in range(CALLERS))
    labels, pages = _all_callers(workspace)
    assert sorted(labels) == expected and len(labels) == CALLERS and pages >= 1
    labels, pages = _all_callers(workspace, max_items=7)
    assert sorted(labels) == expected and pages >= (CALLERS - 7) // 7


def test_max_items_bounds_each_section_and_is_carried_by_the_page_action(workspace: Workspace) -> None:
    # A budget wide enough that the item bound cuts, not the characters.
    document = ask_context(workspace, "usage", "target", max_items=3, max_chars=16000)
    assert document["bounds"]["max_items"] == 3
    assert document["sections"]["callers"]["shown"] == 3 and document["sections"]["callers"]["reason"] == "max_items"
    action = _page_action(document, "callers")
    assert action["arguments"]["max_items"] == 3 and "--max-items 3" in action["command"]
    assert ask_context(workspace, "usage", "target")["bounds"]["max_items"] == DEFAULT_ITEMS
    for bad in (0, 501, True, "5"):
        with pytest.raises(InvalidInput):
            ask_context(workspace, "usage", "target", max_items=bad)


def test_a_cursor_pages_only_the_answer_it_pins(workspace: Workspace, built: tuple[Path, dict[str, Any]]) -> None:
    """The page's own ``max_items`` is its size; another intent or target than the pinned
    answer's is ``cursor_mismatch``, a refresh makes the cursor ``cursor_stale``."""
    cursor = _page_action(ask_context(workspace, "usage", "target", max_items=5), "callers")["arguments"]["cursor"]
    for intent, target, items in (("impact", "target", 5), ("usage", "caller_00", 5), ("tests", "target", None)):
        with pytest.raises(InvalidInput) as refused:
            ask_context(workspace, intent, target, max_items=items, cursor=cursor)
        assert refused.value.reason == "cursor_mismatch", (intent, target, items)
    with pytest.raises(InvalidInput) as malformed:
        ask_context(workspace, "usage", "target", cursor="callers.5")
    assert malformed.value.reason == "invalid"
    repo, graph = built
    publish(repo, workspace.root, graph)  # a new generation: the paged answer is gone
    with pytest.raises(InvalidInput) as stale:
        ask_context(workspace, "usage", "target", max_items=5, cursor=cursor)
    assert stale.value.reason == "cursor_stale"


def test_the_cli_takes_max_items_and_the_cursor_its_next_action_names(workspace: Workspace) -> None:
    where = ("--state-dir", workspace.root)
    first = run_installed("context", "usage", "target", "--max-items", "3", "--max-chars", "16000", "--json", *where,
                          cwd=workspace.checkout)
    assert first.returncode == 0, first.stderr
    action = _page_action(json.loads(first.stdout), "callers")
    page = run_installed(*shlex.split(action["command"])[1:], "--json", *where, cwd=workspace.checkout)
    assert page.returncode == 0, page.stderr
    items = readable(json.loads(page.stdout))["sections"]["callers"]["items"]
    assert [i["label"] for i in items] == [f"caller_{i:02d}()" for i in range(3, 6)]
    other = run_installed("context", "usage", "caller_00", "--cursor", action["arguments"]["cursor"], *where,
                          cwd=workspace.checkout)
    assert other.returncode != 0 and "cursor_mismatch" in other.stderr and "Traceback" not in other.stderr
