"""code_context on the real pinned provider: 0.9.58 emits rationale nodes in code-only mode, and
``how`` quotes them, cited and verified, through the installed command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.contextkit import readable
from ..support.helpers import make_repo, provider_extract, run_installed

pytestmark = [pytest.mark.provider]

MODULE = '''"""Loads configuration for the example."""


class Loader:
    """Reads a file once and caches it."""

    def load(self, path):
        # NOTE: read twice because the cache is cold on first use
        return read(path)


def read(path):
    # WHY: keep the reader pure so it can be tested
    return path
'''


def test_how_quotes_the_providers_docstrings_and_note_comments(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/loader.py": MODULE})
    out = tmp_path / "graphify-out"
    graph = provider_extract(repo, out)
    assert {n["file_type"] for n in graph["nodes"]} >= {"code", "rationale"}
    assert any(e["relation"] == "rationale_for" for e in graph["edges"])
    state = tmp_path / "state"
    built = run_installed("build", "--from-graph", out, "--state-dir", state, cwd=repo)
    assert built.returncode == 0, built.stderr
    klass = run_installed("context", "how", "Loader", "--json", "--state-dir", state, cwd=repo)
    assert klass.returncode == 0, klass.stderr
    document = readable(json.loads(klass.stdout))
    assert [i["text"] for i in document["sections"]["rationale"]["items"]] == ["Reads a file once and caches it."]
    module = readable(json.loads(run_installed("context", "how", "pkg/loader.py", "--json", "--state-dir", state,
                                               cwd=repo).stdout))
    texts = [(i["text"], i["line"]) for i in module["sections"]["rationale"]["items"]]
    assert ("# NOTE: read twice because the cache is cold on first use", 8) in texts
    assert ("# WHY: keep the reader pure so it can be tested", 13) in texts
    cited = {c["id"]: c for c in module["citations"]}
    quoted = module["sections"]["rationale"]["items"]
    assert all((cited[i["cite"]]["path"], cited[i["cite"]]["line"]) == (i["path"], i["line"]) for i in quoted)
    if "Loads configuration" not in " ".join(t for t, _ in texts):
        pytest.fail(f"the module docstring was not kept: {texts}")
