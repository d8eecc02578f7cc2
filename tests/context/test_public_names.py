"""Public names resolve (issue 27 item 10, issue 32 item 7): a target spelled by its public import
path resolves through the package's re-export (``httpx.Client`` is ``httpx/_client.py``'s
``Client``), and an unresolved answer on a stale graph says the name may be newer than the
bound commit and offers ``cm-graph refresh``. Built with the real pinned provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..support.contextkit import ask_context
from ..support.helpers import commit_all, make_repo, provider_extract, publish, write_files

pytestmark = [pytest.mark.provider]

FILES = {
    "httpx/__init__.py": 'from ._client import Client\n\n__all__ = ["Client"]\n',
    "httpx/_client.py": "class Client:\n    def get(self):\n        return 1\n",
    "httpx/_private.py": "class Hidden:\n    pass\n",
    "app.py": "import httpx\n\n\ndef main():\n    return httpx.Client().get()\n",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("public")
    repo = make_repo(root / "repo", FILES)
    return repo, publish(repo, root / "state", provider_extract(repo, root / "out"))


def test_a_public_import_path_resolves_through_the_packages_re_export(built) -> None:  # type: ignore[no-untyped-def]
    _, workspace = built
    document = ask_context(workspace, "usage", "httpx.Client")
    assert document["status"] == "answered", document["answer"]
    assert (document["anchors"][0]["path"], document["anchors"][0]["line"]) == ("httpx/_client.py", 1)
    assert "re-export" in document["answer"] and "httpx/__init__.py" in document["answer"]
    hidden = ask_context(workspace, "usage", "httpx.Hidden")  # defined in the package, never re-exported
    assert hidden["status"] == "unresolved"


def test_an_unresolved_name_on_a_stale_graph_offers_refresh(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    workspace = publish(repo, tmp_path / "state", provider_extract(repo, tmp_path / "out"))
    current = ask_context(workspace, "usage", "brand_new")
    assert current["status"] == "unresolved" and "newer than" not in current["answer"]
    write_files(repo, {"extra.py": "def brand_new():\n    return 2\n"})
    commit_all(repo, "add brand_new")
    stale = ask_context(workspace, "usage", "brand_new")
    assert stale["freshness"]["state"] == "stale" and stale["status"] == "unresolved"
    assert "may be newer than the bound commit" in stale["answer"]
    assert stale["next_actions"][0]["command"] == "cm-graph refresh"
