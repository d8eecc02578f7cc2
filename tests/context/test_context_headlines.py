"""Headlines that never read as complete when other evidence shows more (issue 27 item 2): the
callers and tests headlines count every evidence kind the answer holds, each labelled, and say
what kind of use the graph cannot see. Built with the real pinned provider, which links
``render(1)`` and ``core.render(1)`` but not ``pkg.core.render(2)`` nor an attribute read; the
resolver binds those (issue 28 item 4), so the headlines count them as resolved, each kind
labelled, and say what neither can see."""

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
UNSEEN = "values of unknown type, dynamic dispatch or registries"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("headlines")
    repo = make_repo(root / "repo", FILES)
    return publish(repo, root / "state", provider_extract(repo, root / "out"))


def test_the_callers_headline_counts_graph_and_resolved_uses_each_labelled(workspace) -> None:  # type: ignore[no-untyped-def]
    document = ask_context(workspace, "usage", "render")
    callers, found = document["sections"]["callers"], document["sections"]["resolved_callers"]
    assert callers["total"] == 1  # the graph links main() only
    assert [(i["label"], i["relation"]) for i in found["items"]] == [
        ("side()", "call"), ("more()", "call"), ("test_by_reference()", "reference")]
    answer = document["answer"]
    assert "1 of 1" not in answer
    assert ("Used by 1 caller(s) in the graph (graph) and 3 more use(s) resolved from the code (resolved, see "
            "resolved_callers)") in answer
    assert UNSEEN in answer


def test_no_test_reaches_it_is_never_said_bare_when_a_resolved_test_reaches_it(workspace) -> None:  # type: ignore[no-untyped-def]
    for intent in ("usage", "tests", "impact"):
        document = ask_context(workspace, intent, "render")
        tests = document["sections"]["tests"]
        assert tests["status"] == "empty", intent
        assert [i["label"] for i in document["sections"]["resolved_tests"]["items"]] == ["test_by_reference()"]
        assert "but 1 test(s) reaching it resolved from the code (resolved, see resolved_tests)" in tests["detail"]
        assert tests["detail"] in document["answer"], intent
        assert "No test reaches it within depth" not in document["answer"], intent
