"""The pinned provider's scope, proven on the real provider (issue 13, items 1-5).

Each test commits a tiny real repository, runs ``cm-graph build`` (the real
``graphifyy==0.9.58`` in its sandbox) and checks both sides: what the provider really emitted
(its inventory and graph, read back from the published ``graph.bin``) and what cm-graph says
about every input it did not emit (scope exclusion by rule, ``empty``, or ``missing``), in the
build summary, the persisted build record, ``status --json`` and ``doctor``.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current

from ..support.g0 import g0_graph
from ..support.helpers import commit_all, git, make_repo, write_output
from .test_lifecycle import cli, where

OK = "def ok():\n    return 1\n"
# Inputs the provider never dispatches, by its own rules, with the rule cm-graph must name.
OUT_OF_SCOPE = {
    "dist/x.py": "skipped_dir:dist",
    "build/y.py": "skipped_dir:build",
    "target/t.py": "skipped_dir:target",
    "node_modules/z.js": "skipped_dir:node_modules",
    "pkg/ignored.py": "graphifyignore",
    "web/package-lock.json": "skipped_file",
    # Over the provider's 2,000,000-byte manifest cap ("manifest too large to index").
    "big/pyproject.toml": "size_limit",
    # Its secret-file heuristic.
    "config/credentials.json": "sensitive",
    "tools/.env.py": "sensitive",
}


def _members(workspace: Workspace) -> dict[str, Any]:
    """The provider's own output as published: its inventory and graph.json."""
    generation = read_current(workspace)
    with tarfile.open(fileobj=io.BytesIO(generation.artifact_path.read_bytes())) as tar:
        return {
            member.name: json.load(tar.extractfile(member))  # type: ignore[arg-type]
            for member in tar.getmembers()
        }


def _sources(graph: dict[str, Any]) -> set[str]:
    return {node.get("source_file") for node in graph["nodes"]}


@pytest.mark.provider
def test_scope_exclusions_empty_inputs_and_tracked_ignored_files(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {path: OK for path in OUT_OF_SCOPE}
    files["web/package-lock.json"] = "{}\n"
    files["config/credentials.json"] = '{"user": "x"}\n'
    files["big/pyproject.toml"] = "[project]\nname = 'big'\n" + "# padding\n" * 200_000
    files.update({
        "pkg/ok.py": OK,
        ".graphifyignore": "pkg/ignored.py\n",
        # ujson's shape: the project's own .gitignore lists a directory whose files are tracked.
        ".gitignore": "lib/\n",
        # A pyproject.toml without [project]: read by the provider, no graph content by its rule.
        "pyproject.toml": "[tool.black]\nline-length = 100\n",
        "sub/go.mod": "go 1.21\n",
    })
    repo = make_repo(tmp_path / "repo", files)
    (repo / "lib").mkdir()
    (repo / "lib" / "core.c").write_text("int JSON_EncodeObject(void) { return 0; }\n")
    git(repo, "add", "-f", "lib/core.c")
    commit_all(repo, "tracked but gitignored")
    state = tmp_path / "state"

    built = cli("build", *where(repo, state), "--json")
    assert built.code == 0, built.err
    out = built.out
    assert out["completeness"] == "complete" and out["usable"] is True
    assert "partial_because" not in out and "uncovered_inputs" not in out
    expected_counts: dict[str, int] = {}
    for rule in OUT_OF_SCOPE.values():
        expected_counts[rule] = expected_counts.get(rule, 0) + 1
    assert out["scope_exclusions"] == dict(sorted(expected_counts.items()))
    assert out["empty_inputs"] == 2

    # The provider's side: it really emitted none of the out-of-scope inputs, nothing for the
    # two empty manifests, and the tracked lib/core.c did reach it.
    workspace = Workspace.locate(repo, state)
    members = _members(workspace)
    inventory, graph = members["manifest.json"], members["graph.json"]
    for path in [*OUT_OF_SCOPE, "pyproject.toml", "sub/go.mod"]:
        assert path not in inventory and path not in _sources(graph), path
    assert {"pkg/ok.py", "lib/core.c"} <= set(inventory) and "lib/core.c" in _sources(graph)
    assert "JSON_EncodeObject" in cli("ask", "symbol", "JSON_EncodeObject", *where(repo, state)).out

    # Persisted: the build record, and so status --json and doctor, say the same.
    record = read_current(workspace).build_record()
    assert record is not None
    coverage = record["coverage"]
    assert coverage["scope_exclusions"] == out["scope_exclusions"]
    assert {item["path"]: item["rule"] for item in coverage["scope_excluded"]} == OUT_OF_SCOPE
    assert sorted(coverage["empty"]) == ["pyproject.toml", "sub/go.mod"]
    status = cli("status", *where(repo, state), "--json")
    assert status.code == 0 and status.out["state"] == "current"
    assert status.out["cm_graph"]["coverage"]["scope_exclusions"] == out["scope_exclusions"]
    doctor = cli("doctor", *where(repo, state), "--json")
    check = {c["check"]: c for c in doctor.out["checks"]}["coverage"]
    # Nine of its eleven code files are out of scope: most of the code is unread, which the
    # coverage check says (issue 27 item 5) while the build stays complete.
    assert check["status"] == "warn" and "skipped_dir:dist: 1" in check["message"]
    assert "2 empty inputs" in check["message"] and "never read" in check["message"]


@pytest.mark.provider
def test_a_file_the_provider_fails_on_stays_missing_with_a_next_action(tmp_path: Path) -> None:
    # Invalid TOML: the provider's manifest extractor errors ("manifest parse error"), which is
    # not its empty rule; Terraform: dispatched, but the pinned install lacks its grammar.
    repo = make_repo(tmp_path / "repo", {
        "pkg/ok.py": OK, "pyproject.toml": "[project\nname = 'x'\n", "infra/main.tf": 'variable "a" {}\n',
    })
    state = tmp_path / "state"
    built = cli("build", *where(repo, state), "--json")
    assert built.code == 1 and built.out["completeness"] == "partial"
    assert built.out["partial_because"] == ["2 code inputs are missing"]
    reasons = {item["path"]: item for item in built.out["uncovered_inputs"]}
    assert set(reasons) == {"pyproject.toml", "infra/main.tf"}
    for path, item in reasons.items():
        assert item["reason"] == "missing"
        assert f"--exclude {path}" in item["next_action"] and "refresh" not in item["next_action"]
    assert built.out["empty_inputs"] == 0

    status = cli("status", *where(repo, state), "--json")
    assert status.code == 1 and status.out["state"] == "partial"
    assert "missing: 2" in status.out["detail"]
    assert status.out["cm_graph"]["coverage"]["uncovered_inputs"] == built.out["uncovered_inputs"]
    assert status.out["next_action"] == built.out["uncovered_inputs"][0]["next_action"]
    doctor = cli("doctor", *where(repo, state), "--json")
    check = {c["check"]: c for c in doctor.out["checks"]}["coverage"]
    assert check["status"] == "warn" and "missing: 2" in check["message"]

    # The operator's choice: leave them out knowingly. Recorded, not materialised, complete.
    excluded = cli(
        "refresh", *where(repo, state), "--exclude", "pyproject.toml", "--exclude", "infra/", "--json"
    )
    assert excluded.code == 0, excluded.err
    assert excluded.out["completeness"] == "complete"
    assert excluded.out["exclude"] == ["pyproject.toml", "infra/"]
    assert excluded.out["scope_exclusions"] == {"operator_exclude": 2}
    status = cli("status", *where(repo, state), "--json")
    assert status.code == 0 and status.out["cm_graph"]["coverage"]["exclude"] == ["pyproject.toml", "infra/"]


@pytest.mark.provider
def test_different_exclusions_give_generations_that_differ(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/ok.py": OK, "vendor/dep.py": "def dep():\n    return 2\n"})
    state = tmp_path / "state"
    assert cli("build", *where(repo, state), "--json").code == 0
    workspace = Workspace.locate(repo, state)
    first = read_current(workspace)
    assert "vendor/dep.py" in _members(workspace)["manifest.json"]
    assert cli("refresh", *where(repo, state), "--exclude", "vendor/*", "--keep-previous", "--json").code == 0
    second = read_current(workspace)
    assert "vendor/dep.py" not in _members(workspace)["manifest.json"]
    assert first.manifest.graph_digest != second.manifest.graph_digest
    assert (first.build_record() or {})["coverage"]["exclude"] == []
    assert (second.build_record() or {})["coverage"]["exclude"] == ["vendor/*"]
    diff = cli("diff", first.id, second.id, *where(repo, state), "--json")
    assert diff.code == 0, diff.err
    assert diff.out["exclude"] == {"old": [], "new": ["vendor/*"]}
    audited = cli("audit", *where(repo, state), "--json")
    assert audited.code == 0 and audited.out["exclude"] == ["vendor/*"]


def test_a_bad_exclude_glob_is_a_usage_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/ok.py": OK})
    bad = cli("build", *where(repo, tmp_path / "state"), "--exclude", "/abs", "--json")
    assert bad.code == 2 and "relative" in bad.err and not (tmp_path / "state").exists()


def test_without_an_inventory_the_next_action_is_a_refresh(tmp_path: Path, g0_repo: Path) -> None:
    # No provider run here: an output without its inventory (and without a detection cache)
    # cannot say what the provider read, so the remedy is a refresh, not editing the files.
    out = write_output(tmp_path / "graphify-out", g0_graph())
    built = cli("build", "--from-graph", str(out), *where(g0_repo, tmp_path / "state"), "--json")
    assert built.code == 1 and built.out["completeness"] == "partial"
    assert built.out["uncovered_inputs"]
    for item in built.out["uncovered_inputs"]:
        assert item["reason"] == "missing" and "cm-graph refresh" in item["next_action"]
