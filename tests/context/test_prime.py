"""Issue 30 item 2: ``prime``, the code area a task names, on a repository the pinned provider built.

Task texts are written as a person writes them; what is asserted is which spellings became anchors
(code spellings, never common English), that an ambiguous or unknown spelling is reported with
its candidates rather than picked, that every citation names a line the bound commit has (checked
with git), that the answer fits its budget by whole items and says what was cut, and that the
same task gives the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from cm_graph.base.errors import InvalidInput
from cm_graph.base.jsonio import dumps_wire
from cm_graph.context.prime import prime
from cm_graph.context.resolve import resolve
from cm_graph.context.wire import cited, section_items
from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import require_current
from cm_graph.index.ensure import open_index_for

from ..support.helpers import git, make_repo, provider_extract, run_installed, write_files

SESSION = '''"""A tiny HTTP-ish session."""


class Session:
    def send(self, request, retries=3):
        result = None
        for _ in range(retries):
            result = transmit(request)
        return result

    def request(self, url):
        return self.send(url)


def transmit(request):
    return request
'''
CONFIG = '''def parse_config(text):
    return dict(line.split("=", 1) for line in text.splitlines())


def load_settings(path):
    return parse_config(read(path))


def read(path):
    with open(path) as handle:
        return handle.read()
'''
OTHER = '''def send(message):
    return message


def transmit(message):
    return send(message)
'''
TESTS = '''from pkg.config import parse_config
from pkg.session import Session


def test_request():
    assert Session().request("u") == "u"


def test_parse_config():
    assert parse_config("a=1") == {"a": "1"}
'''

pytestmark = [pytest.mark.provider]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    base = tmp_path_factory.mktemp("prime")
    repo = make_repo(base / "repo", {"pkg/__init__.py": "", "pkg/session.py": SESSION, "pkg/config.py": CONFIG,
                                     "pkg/other.py": OTHER, "tests/test_pkg.py": TESTS})
    out = base / "graphify-out"
    provider_extract(repo, out)
    state = base / "state"
    done = run_installed("build", "--from-graph", out, "--state-dir", state, cwd=repo)
    assert done.returncode == 0, done.stderr
    return Workspace.locate(repo, state)


def spellings_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["spelling"]: row for row in section_items(document["spellings"])}


def anchors_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in section_items(document["anchors"], cited(document))}


def labels(document: dict[str, Any], section: str) -> list[str]:
    return [item["label"] for item in section_items(document["sections"][section], cited(document))]


def assert_cited_at_commit(workspace: Workspace, document: dict[str, Any]) -> None:
    commit = document["graph"]["commit"]
    assert cited(document)
    for cite in cited(document).values():
        path, _, line = cite.partition("#L")
        text = git(workspace.checkout, "show", f"{commit}:{path}")
        assert not line or 1 <= int(line) <= len(text.splitlines()), cite


def test_a_backticked_method_is_the_anchor_and_common_words_are_never_tried(built: Workspace) -> None:
    document = prime(built, "Fix the off-by-one in `Session.send` when retries are exhausted")
    assert document["status"] == "answered" and document["schema"] == "cm_graph.prime.v2"
    spellings = spellings_of(document)
    assert spellings["Session.send"]["status"] == "anchor"
    assert not {"Fix", "the", "off", "by", "one", "when", "are", "exhausted"} & set(spellings)
    assert spellings["retries"]["from"] == "word" and spellings["retries"]["status"] != "anchor"
    [anchor] = anchors_of(document).values()
    assert (anchor["label"], anchor["path"], anchor["line"]) == (".send()", "pkg/session.py", 5)
    assert ".request()" in labels(document, "a1.callers")
    assert "transmit()" in labels(document, "a1.calls")
    assert "common English" in document["answer"] and "retries" in document["answer"]
    assert_cited_at_commit(built, document)


def test_a_rename_task_anchors_the_old_name_and_reports_the_new_one_as_not_found(built: Workspace) -> None:
    document = prime(built, "rename parse_config to load_config and update callers")
    spellings = spellings_of(document)
    assert spellings["parse_config"]["status"] == "anchor"
    assert spellings["load_config"]["status"] == "unresolved"
    assert "load_settings()" in labels(document, "a1.callers")
    assert "`load_config` names no symbol or path in this graph" in document["answer"]
    tests = section_items(document["sections"]["a1.tests"], cited(document))
    assert "test_parse_config()" in [item["label"] for item in tests], document["sections"]["a1.tests"]
    assert_cited_at_commit(built, document)


def test_an_ambiguous_name_is_never_picked_and_each_candidate_resolves(built: Workspace) -> None:
    document = prime(built, "Why does `transmit` drop the message?")
    row = spellings_of(document)["transmit"]
    assert row["status"] == "ambiguous" and row["total"] >= 2 and "anchor" not in row
    assert document["status"] == "unresolved" and section_items(document["anchors"]) == []
    connection = open_index_for(require_current(built))
    try:
        assert all(resolve(connection, candidate).status == "resolved" for candidate in row["candidates"])
    finally:
        connection.close()
    # A plain word names a definition only as its exact label: "send" is no `send()`.
    assert spellings_of(prime(built, "the session should send less"))["send"]["status"] != "anchor"
    assert spellings_of(prime(built, "the session should `send` less"))["send"]["status"] == "anchor"


def test_paths_from_the_text_and_from_files_anchor_on_the_file(built: Workspace) -> None:
    document = prime(built, "config.py reads the whole file; also look at Session", files=["pkg/other.py"])
    spellings = spellings_of(document)
    assert spellings["config.py"] == {**spellings["config.py"], "status": "anchor", "target": "pkg/config.py"}
    assert spellings["pkg/other.py"]["from"] == "files" and spellings["pkg/other.py"]["status"] == "anchor"
    assert spellings["Session"]["status"] == "anchor"  # a word that is exactly one class's label
    anchors = anchors_of(document)
    assert [a["kind"] for a in anchors.values()][:2] == ["file", "file"]
    assert "parse_config()" in labels(document, "a1.defines")
    assert prime(built, "look at nowhere/else.py")["status"] == "unresolved"


def test_the_budget_drops_whole_items_says_so_and_the_bytes_repeat(built: Workspace) -> None:
    task = "`Session`, `Session.send`, `parse_config`, `load_settings` and `pkg/config.py` all change"
    roomy = prime(built, task, max_chars=40_000)
    tight = prime(built, task, max_chars=3000)
    assert len(dumps_wire(tight)) <= 3000 < len(dumps_wire(roomy))
    assert tight["bounds"]["truncated"] is True
    assert "Cut to fit" in tight["answer"] or tight["bounds"]["anchors_dropped"]
    assert any(a.get("tool") == "code_context" for a in tight["next_actions"])
    # Every item shown is one of the roomy answer's, whole.
    for name, section in tight["sections"].items():
        whole = section_items(roomy["sections"][name], cited(roomy))
        for item in section_items(section, cited(tight)):
            assert any(item["label"] == other["label"] and item.get("path") == other.get("path") for other in whole)
    assert dumps_wire(prime(built, task, max_chars=3000)) == dumps_wire(tight)
    with pytest.raises(InvalidInput):
        prime(built, task, max_chars=1000)


def test_changes_anchor_on_the_definitions_a_worktree_diff_touches(built: Workspace) -> None:
    config = built.checkout / "pkg" / "config.py"
    before = config.read_text()
    write_files(built.checkout, {"pkg/config.py": before.replace('split("=", 1)', 'split("=", 1)[::-1]')})
    try:
        document = prime(built, "tidy up what I changed", changes=True)
    finally:
        config.write_text(before)
    assert document["diff"]["files"] == 1 and document["diff"]["index_side"] == "old"
    row = spellings_of(document)["pkg/config.py::parse_config"]
    assert row["from"] == "changes" and row["status"] == "anchor"
    assert "load_settings()" in labels(document, f"{row['anchor']}.callers")


def test_the_installed_command_prints_the_same_answer_and_exits_unresolved_on_no_anchor(built: Workspace) -> None:
    task = "rename parse_config to load_config and update callers"
    shown = run_installed("context", "prime", task, "--json", "--state-dir", built.root, cwd=built.checkout)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == json.loads(dumps_wire(prime(built, task)))
    person = run_installed("context", "prime", task, "--state-dir", built.root, cwd=built.checkout)
    assert person.returncode == 0 and "parse_config" in person.stdout and "load_config" in person.stdout
    none = run_installed("context", "prime", "make it faster", "--state-dir", built.root, cwd=built.checkout)
    assert none.returncode != 0 and "unresolved" in none.stderr
