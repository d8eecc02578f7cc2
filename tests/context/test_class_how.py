"""Issue 32 item 8: ``context how Client`` said a class "calls nothing" while its methods call
plenty. A class's ``calls`` walks from the class and its own methods together, each item naming
the method it was called from, and the prose says "It and its N method(s) call". Built with the
real pinned provider, which records a class's methods as ``method`` edges."""

from __future__ import annotations

import pytest

from ..support.cli import invoke, where
from ..support.contextkit import ask_context
from ..support.helpers import make_repo, provider_extract, publish

pytestmark = [pytest.mark.provider]

FILES = {
    "pkg/__init__.py": "",
    "pkg/wire.py": "def send(data):\n    return data\n\n\ndef receive():\n    return b''\n",
    "pkg/client.py": (
        "from pkg.wire import receive, send\n\n\n"
        "class Client:\n"
        "    def get(self, url):\n        send(url)\n        return self._read()\n\n"
        "    def _read(self):\n        return receive()\n\n\n"
        "class Empty:\n    def noop(self):\n        return None\n\n\n"
        "def helper():\n    return send(1)\n"
    ),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("classhow")
    repo = make_repo(root / "repo", FILES)
    return publish(repo, root / "state", provider_extract(repo, root / "out")), repo, root / "state"


def test_a_class_calls_what_its_methods_call_each_through_its_method(workspace) -> None:  # type: ignore[no-untyped-def]
    document = ask_context(workspace[0], "how", "Client")
    calls = document["sections"]["calls"]
    assert calls["status"] == "ok", calls
    through = {item["label"]: item.get("through") for item in calls["items"]}
    assert through == {"send()": ".get()", "receive()": "._read()"}, calls["items"]
    assert calls["members"] == 2
    assert "It and its 2 method(s) call 2:" in document["answer"]
    assert "(from .get())" in document["answer"]


def test_a_class_whose_methods_call_nothing_says_neither_it_nor_they_do(workspace) -> None:  # type: ignore[no-untyped-def]
    calls = ask_context(workspace[0], "how", "Empty")["sections"]["calls"]
    assert calls["status"] == "empty" and calls["members"] == 1
    assert calls["detail"].startswith("Neither it nor its 1 method(s) call anything within depth 2"), calls


def test_a_function_keeps_its_own_calls_and_no_member_count(workspace) -> None:  # type: ignore[no-untyped-def]
    document = ask_context(workspace[0], "how", "helper")
    calls = document["sections"]["calls"]
    assert [item["label"] for item in calls["items"]] == ["send()"] and "members" not in calls
    assert "through" not in calls["items"][0]
    assert "It calls 1:" in document["answer"]


def test_the_person_s_table_names_the_method_a_call_came_through(workspace) -> None:  # type: ignore[no-untyped-def]
    _, repo, state = workspace
    ran = invoke("context", "how", "Client", *where(repo, state))
    assert ran.exit_code == 0, ran.stderr
    assert "through .get()" in ran.stdout and "through ._read()" in ran.stdout
