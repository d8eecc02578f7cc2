"""The pinned provider on real code, end to end, with nothing made up.

The source of an installed pure-Python package (``rich``, a hard dependency of cm-graph, so it is
always there) is committed into a temp git repository, the real ``graphify extract . --code-only
--no-cluster`` runs inside it, its ``graphify-out/`` is moved out of the checkout, and the output
is published and indexed both through the library and through the installed ``cm-graph`` command.
Every count the index reports is recomputed here from the same ``graph.json`` with plain
``json.load``, and every line count from the committed blobs with ``git show``.

The provider runs once per module (a few seconds); the whole file stays well under a minute.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cm_graph.generation.layout import Workspace
from cm_graph.generation.manifest import Manifest
from cm_graph.index.ensure import ensure_index
from cm_graph.index.format import IndexReport, open_index
from cm_graph.index.graphmodel import REVIEWED_VERSIONS
from cm_graph.provider.publish import publish_provider_output

from ..support.helpers import FIXED_BUILT_AT, commit_all, git, make_repo, provider_extract

SOURCE_PACKAGE = "rich"


def _cm_graph_command() -> list[str]:
    beside = Path(sys.executable).parent / "cm-graph"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("cm-graph")
    if found:
        return [found]
    pytest.fail("cm-graph is importable but its console script is not installed (pip install -e .)")


pytestmark = [pytest.mark.provider]


@dataclass(frozen=True)
class ProviderRun:
    base: Path  # the module's temp directory; nothing under it may leak into an index
    repo: Path
    out: Path  # graphify-out/, moved out of the checkout
    graph: dict[str, Any]
    home: Path


@dataclass(frozen=True)
class Published:
    workspace: Workspace
    manifest: Manifest
    report: IndexReport


def _copy_package_source(name: str, destination: Path) -> None:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not a package"
    source = Path(next(iter(spec.submodule_search_locations)))
    shutil.copytree(
        source, destination, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo")
    )


@pytest.fixture(scope="module")
def provider_run(tmp_path_factory: pytest.TempPathFactory) -> ProviderRun:
    base = tmp_path_factory.mktemp("provider")
    repo = make_repo(base / "repo", {"README.md": "A copy of a real package for the provider.\n"})
    _copy_package_source(SOURCE_PACKAGE, repo / SOURCE_PACKAGE)
    commit_all(repo, f"vendor {SOURCE_PACKAGE}")
    out = base / "graphify-out"
    graph = provider_extract(repo, out)
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    home = base / "graphify-out-home"
    return ProviderRun(base=base, repo=repo, out=out, graph=graph, home=home)


@pytest.fixture(scope="module")
def published(provider_run: ProviderRun) -> Published:
    workspace = Workspace.locate(provider_run.repo, provider_run.base / "state")
    manifest, _coverage = publish_provider_output(
        workspace, provider_run.out, built_at=FIXED_BUILT_AT
    )
    report = ensure_index(workspace)
    assert report.reused, "the index is derived (and graph.json validated) before publishing"
    return Published(workspace=workspace, manifest=manifest, report=report)


@pytest.fixture
def index(published: Published) -> Iterator[Any]:
    connection = open_index(published.report.path)
    try:
        yield connection
    finally:
        connection.close()


def _location(value: Any) -> int | None:
    return None if value in (None, "") else int(value[1:])


def expected_counts(graph: dict[str, Any], tracked: set[str]) -> dict[str, int]:
    """Every tally the importer reports, computed independently from the plain JSON."""
    nodes = graph["nodes"]
    edges = graph["edges"]
    code_records = [n for n in nodes if n["file_type"] == "code"]
    code = {n["id"] for n in code_records}
    assert len(code) == len(code_records), "the provider declared a code node twice"
    other = {n["id"] for n in nodes if n["file_type"] != "code"}
    kept: set[tuple[Any, ...]] = set()
    kept_records = 0
    undeclared: set[tuple[str, str]] = set()
    for e in edges:
        source, target = e["source"], e["target"]
        if source in code and target in code:
            kept_records += 1
            kept.add((
                source, target, e["relation"], e["confidence"],
                e.get("source_file") or "", e.get("source_location") or None,
            ))
        if source in code and target not in code and target not in other:
            undeclared.add((source, target))
        if target in code and source not in code and source not in other:
            undeclared.add((target, source))
    cited = {n["source_file"] for n in code_records if n.get("source_file")}
    cited |= {identity[4] for identity in kept if identity[4]}
    return {
        "raw_nodes": len(nodes),
        "raw_edges": len(edges),
        "code_nodes": len(code),
        "sourceless_nodes": sum(1 for n in code_records if not n.get("source_file")),
        "excluded_nodes": len(nodes) - len(code_records),
        "edges": len(kept),
        "edge_records": kept_records,
        "call_sites": sum(1 for identity in kept if identity[4]),
        "undeclared_endpoints": len(undeclared),
        "incomplete_nodes": len({node for node, _missing in undeclared}),
        # No file of the copied package has a name a citation cannot carry (see the odd-names
        # test below for those), so every code record is traversable.
        "untraversable_nodes": 0,
        "untraversable_call_sites": 0,
        "census_files": len(tracked),
        "census_skipped": 0,
        "cited_files": len(cited & tracked),
    }


def _tracked(repo: Path) -> set[str]:
    return set(git(repo, "ls-files").splitlines())


def _committed_lines(repo: Path, path: str) -> int:
    data = subprocess.run(
        ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, check=True
    ).stdout
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def test_provider_output_is_real_and_substantial(provider_run: ProviderRun) -> None:
    graph = provider_run.graph
    assert len(graph["nodes"]) > 500 and len(graph["edges"]) > 1000
    code = {n["id"] for n in graph["nodes"] if n["file_type"] == "code"}
    # The output exercises every path the importer has: pruned non-code nodes, undeclared
    # endpoints (imports of names outside the copy), sourceless stubs, duplicate records.
    assert any(n["file_type"] != "code" for n in graph["nodes"])
    assert any(e["source"] not in code or e["target"] not in code for e in graph["edges"])
    # The provider records the absolute paths it read; the index must not carry them.
    assert str(provider_run.repo) in json.dumps(graph)


def test_counts_match_an_independent_reading_of_graph_json(
    provider_run: ProviderRun, published: Published, index: Any
) -> None:
    tracked = _tracked(provider_run.repo)
    expected = expected_counts(provider_run.graph, tracked)
    counts = published.report.counts
    assert {name: value for name, value in counts.items() if not name.startswith("resolved_")} == expected
    stored = dict(index.execute("SELECT name, value FROM counts").fetchall())
    assert stored == counts
    # The resolved layer reads every tracked Python file a code node names, and meets every
    # symbol and test node the provider wrote there with a definition (docs/resolver.md).
    python = {n["source_file"] for n in provider_run.graph["nodes"]
              if n.get("file_type") == "code" and str(n.get("source_file", "")).endswith(".py")} & tracked
    assert counts["resolved_files"] == len(python) and counts["resolved_unparsable_files"] == 0
    assert counts["resolved_nodes"] > 0 and counts["resolved_nodes_with_definitions"] == counts["resolved_nodes"]
    rows = {
        "code_nodes": "SELECT count(*) FROM nodes",
        "edges": "SELECT count(*) FROM edges",
        "undeclared_endpoints": "SELECT count(*) FROM undeclared_endpoints",
        "incomplete_nodes": "SELECT count(*) FROM nodes WHERE incomplete",
        "census_files": "SELECT count(*) FROM census",
    }
    for name, sql in rows.items():
        assert index.execute(sql).fetchall()[0][0] == expected[name], name
    excluded = {n["id"] for n in provider_run.graph["nodes"] if n["file_type"] != "code"}
    distinct = index.execute("SELECT count(DISTINCT provider_id) FROM exclusions").fetchall()
    assert distinct[0][0] == len(excluded)


def test_nodes_keep_the_providers_ids_paths_and_lines(
    provider_run: ProviderRun, index: Any
) -> None:
    stored = {
        row[0]: (row[1], row[2], row[3])
        for row in index.execute("SELECT provider_id, label, path, line FROM nodes")
    }
    expected = {
        n["id"]: (
            n["label"],
            n.get("source_file") or "",
            _location(n.get("source_location")) if n.get("source_file") else None,
        )
        for n in provider_run.graph["nodes"]
        if n["file_type"] == "code"
    }
    assert stored == expected


def test_generation_is_complete_and_bound_to_head(
    provider_run: ProviderRun, published: Published, index: Any
) -> None:
    head = git(provider_run.repo, "rev-parse", "HEAD")
    assert published.manifest.completeness == "complete"
    assert published.manifest.commit == head
    assert published.manifest.provider.requirement == f"graphifyy=={REVIEWED_VERSIONS[0]}"
    row = index.execute(
        "SELECT commit_id, completeness, document_format FROM generation"
    ).fetchall()
    assert row == [(head, "complete", "raw_extraction")]


def test_census_lines_equal_the_committed_files(provider_run: ProviderRun, index: Any) -> None:
    cited = [
        row[0]
        for row in index.execute(
            "SELECT path FROM nodes WHERE path <> '' UNION SELECT site_path FROM edges "
            "WHERE site_path <> '' ORDER BY 1"
        )
    ]
    assert cited, "the index cites no file"
    census = dict(index.execute("SELECT path, lines FROM census").fetchall())
    for path in cited:
        assert census[path] == _committed_lines(provider_run.repo, path), path
    uncited = set(census) - set(cited)
    assert all(census[path] is None for path in uncited)
    assert "README.md" in uncited


def test_index_holds_no_absolute_temp_path(provider_run: ProviderRun, index: Any) -> None:
    needles = {str(provider_run.base), os.path.realpath(provider_run.base)}
    tables = [
        row[0]
        for row in index.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")
    ]
    assert {"nodes", "edges", "census", "generation", "undeclared_endpoints"} <= set(tables)
    scanned = 0
    for table in tables:
        for row in index.execute(f'SELECT * FROM "{table}"'):
            for value in row:
                if isinstance(value, str | bytes):
                    text = value if isinstance(value, str) else value.decode(errors="replace")
                    scanned += 1
                    assert not any(needle in text for needle in needles), (table, text)
    assert scanned > 1000


def _run_cli(args: list[str], home: Path) -> tuple[int, dict[str, Any], str]:
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run(
        [*_cm_graph_command(), *args], env=env, capture_output=True, timeout=120
    )
    return done.returncode, json.loads(done.stdout), done.stderr.decode(errors="replace")


def test_installed_cli_builds_and_indexes(provider_run: ProviderRun) -> None:
    state = provider_run.base / "cli-state"
    expected = expected_counts(provider_run.graph, _tracked(provider_run.repo))
    head = git(provider_run.repo, "rev-parse", "HEAD")
    common = ["--repo-path", str(provider_run.repo), "--state-dir", str(state), "--json"]
    code, built, stderr = _run_cli(
        ["build", "--from-graph", str(provider_run.out), *common], provider_run.home
    )
    assert code == 0, stderr
    assert built["status"] == "published" and built["usable"] is True
    assert built["completeness"] == "complete"
    assert built["source_revision"] == head
    assert built["code_nodes"] == expected["code_nodes"]
    assert built["edges"] == expected["edges"]
    assert built["tracked_files"] == expected["census_files"]
    assert built["graph_bytes"] > 0 and built["index_bytes"] > 0
    code, indexed, stderr = _run_cli(["index", *common], provider_run.home)
    assert code == 0, stderr
    assert indexed["status"] == "reused"
    assert indexed["generation"] == built["generation"]
    assert {name: indexed[name] for name in expected} == expected
    code, rebuilt, stderr = _run_cli(["index", "--rebuild", *common], provider_run.home)
    assert code == 0, stderr
    assert rebuilt["status"] == "indexed"
    assert {name: rebuilt[name] for name in expected} == expected
    # Each build reports how its resolved layer meets the provider's nodes (docs/resolver.md).
    assert rebuilt["resolved_nodes_matched"] == 1.0
    assert rebuilt["resolved_definitions_matched"] == round(
        rebuilt["resolved_definitions_on_nodes"] / rebuilt["resolved_definitions"], 4
    )
    assert 0.9 <= rebuilt["resolved_definitions_matched"] <= 1.0
    assert git(provider_run.repo, "status", "--porcelain", "--untracked-files=all") == ""


# Odd but legal file names (issue 12, item 3): each is a name git tracks and the provider reads,
# but no `path#L<n>` citation can carry it. The records are untraversable; the graph is usable.
ODD_SOURCES = {
    "odd/a#b.py": "from pkg.core import helper\n\ndef odd_hash():\n    return helper()\n",
    "odd/tab\tname.py": "from pkg.core import helper\n\ndef odd_tab():\n    return helper()\n",
    "odd/new\nline.py": "def odd_newline():\n    return 2\n",
    "odd/esc\x1bname.py": "def odd_esc():\n    return 3\n",
    "odd/del\x7fname.py": "def odd_del():\n    return 4\n",
    "odd/nel\x85name.py": "def odd_nel():\n    return 5\n",
}
PLAIN_SOURCES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def helper():\n    return 1\n\ndef main():\n    return helper() + odd_hash()\n",
    "pkg/other.py": "def leaf():\n    return 1\n\ndef lone():\n    return leaf()\n",
}


def test_odd_but_legal_file_names_leave_the_graph_usable(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {**PLAIN_SOURCES, **ODD_SOURCES})
    home = tmp_path / "home"
    home.mkdir()
    where = ["--repo-path", str(repo), "--state-dir", str(tmp_path / "state")]
    code, built, stderr = _run_cli(["build", *where, "--json"], home)
    assert code == 0, (built, stderr)
    assert built["status"] == "published" and built["usable"] is True
    assert built["completeness"] == "complete"
    code, status, stderr = _run_cli(["status", *where, "--json"], home)
    assert (code, status["state"], status["usable"]) == (0, "current", True), stderr
    assert status["search"] == "available"
    code, indexed, stderr = _run_cli(["index", *where, "--json"], home)
    assert code == 0 and indexed["untraversable_nodes"] >= 2 * len(ODD_SOURCES), stderr  # file + function each

    code, auth, stderr = _run_cli([
        "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", *where,
    ], home)
    assert code == 0, stderr
    (tmp_path / "auth.json").write_text(json.dumps(auth))
    answers = {}
    for target in ("main()", "lone()"):
        packet = tmp_path / f"{target[:-2]}.json"
        code, summary, stderr = _run_cli([
            "query", "--question", "dependency", "--target", target, "--authorization",
            str(tmp_path / "auth.json"), "--packet-out", str(packet), *where, "--json",
        ], home)
        assert (code, summary["status"]) == (0, "available"), (summary, stderr)
        answers[target] = (summary, packet.read_text(encoding="utf-8"))
    # main() calls odd_hash() in odd/a#b.py: the walk does not pass it and says so.
    summary, packet = answers["main()"]
    assert "provider_warning" in summary["omissions"]
    assert "odd/" not in packet and "odd_hash" not in packet and "pkg/core.py#L" in packet
    # lone() touches nothing odd: an ordinary, complete answer.
    summary, packet = answers["lone()"]
    assert summary["omissions"] == [] and summary["completeness"] == "complete"
