"""Headlines that never read as complete when other evidence shows more (issue 27 item 2): the
callers and tests headlines count every evidence kind the answer holds, each labelled, and say
what kind of use the graph cannot see. Built with the real pinned provider, which links
``render(1)`` and ``core.render(1)`` but not ``pkg.core.render(2)`` nor an attribute read."""

from __future__ import annotations

import pytest

from ..support.contextkit import ask_context
from ..support.helpers import make_repo, provider_extract, publish

pytestmark = [pytest.mark.provider]

FILES = {
    "pkg/__init__.py": "", "pkg/core.py": "def render(x):\n    return x + 1\n",
    "pkg/app.py": "from pkg.core import render\n\n\ndef main():\n    return render(1)\n",
    "pkg/other.py": "import pkg.core\n\n\ndef side():\n    return pkg.core.render(2)\n\n\ndef more():\n"
                    "    return pkg.core.render(3)\n",
    "tests/__init__.py": "",
    "tests/test_ref.py": "import pkg.core\n\n\ndef test_by_reference():\n    fn = pkg.core.render\n"
                         "    assert fn(1) == 2\n",
}
UNSEEN = "instance attributes, dynamic dispatch or registries"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("headlines")
    repo = make_repo(root / "repo", FILES)
    return publish(repo, root / "state", provider_extract(repo, root / "out"))


def test_the_callers_headline_counts_graph_and_textual_uses_each_labelled(workspace) -> None:  # type: ignore[no-untyped-def]
    document = ask_context(workspace, "usage", "render")
    callers, mentions = document["sections"]["callers"], document["sections"]["mentions"]
    assert callers["total"] == 1 and mentions["total"] >= 2  # the graph links main() only
    answer = document["answer"]
    assert "1 of 1" not in answer
    assert f"Used by 1 caller(s) in the graph (graph) and {mentions['total']} more line(s) by name (textual)" in answer
    assert UNSEEN in answer


def test_no_test_reaches_it_is_never_said_bare_when_a_test_uses_it_by_name(workspace) -> None:  # type: ignore[no-untyped-def]
    for intent in ("usage", "tests", "impact"):
        document = ask_context(workspace, intent, "render")
        tests = document["sections"]["tests"]
        assert tests["status"] == "empty", intent
        assert "test(s) use it by name (textual" in tests["detail"], intent
        assert tests["detail"] in document["answer"], intent
        assert "No test reaches it within depth" not in document["answer"], intent
