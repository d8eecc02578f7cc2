"""Reproducibility audits: `cm-graph audit`, `diff`, `export` and `score`, end to end.

Everything is real: git repositories in temp dirs (and a `git clone` of one elsewhere), generations
published through the same code the CLI uses, SQLite index files on disk, the typer app. The
`diff` tests (and one reproducibility case) run the pinned Graphify provider through
`cm-graph build` / `cm-graph refresh --keep-previous` on a small package of our own, over three
commits; the rest use the reference fixture G0 so they need no provider.

What is checked:

* an index re-derived from a copied generation under another state root, for a clone at another
  path, is byte-identical (sha256) to the original;
* `audit` passes on a fresh index and names the differing table, with sample rows, when one byte
  of a stored page was flipped, a line count was changed or two edges' targets were swapped; it
  leaves no temp file behind;
* `diff` lists exactly what changed between two real commits (a function added, one moved to
  another file, a call deleted; then a function moved within its file), by generation ids, by
  revisions and by index files, and its JSON is stable;
* `export` is canonical (byte-identical indexes give byte-identical dumps) and loadable;
* `score` rates a fresh packet 1.0/matching, a packet after a cited file was deleted stale and
  lower, and refuses out-of-scope citations (grammar and symlinks) and contradictory claims.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw
import pytest
from typer.testing import Result

from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import ARTIFACT_NAME
from cm_graph.index.format import INDEX_TABLES

from ..support.cases import Checkout as Case
from ..support.cli import WIDE, assert_one_line_refusal, invoke
from ..support.files import mode, sha256
from ..support.g0 import g0_graph
from ..support.helpers import commit_all, git, make_repo, publish, write_files

# --------------------------------------------------------------------------- helpers


def run(*args: Any, env: dict[str, str] | None = None) -> Result:
    """Invoke the app with wide tables (audit reports are read row by row)."""
    return invoke(*args, env=env or WIDE)


def run_json(*args: Any, code: int = 0) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == code, (result.stdout, result.stderr)
    return json.loads(result.stdout)


@pytest.fixture
def g0(g0_repo: Path, state_dir: Path) -> Case:
    """G0 published as the current generation, and its index derived."""
    publish(g0_repo, state_dir, g0_graph())
    case = Case(g0_repo, state_dir)
    assert run_json("index", *case.where())["status"] == "indexed"
    return case


def rebuild_elsewhere(source: Case, generation: str, base: Path) -> Case:
    """Clone the checkout to another path, copy the generation into another state root (0700
    directories, 0600 files, as the layout requires), make it current there and derive its index."""
    clone = base / "another" / "machine" / "checkout"
    clone.parent.mkdir(parents=True)
    git(clone.parent, "clone", "-q", "--no-hardlinks", str(source.repo), str(clone))
    state = base / "other-layout" / "cm-graph-state"
    state.parent.mkdir(parents=True)
    target = Workspace.locate(clone, state)
    for directory in (target.root, target.graph_dir, target.directory, target.generations_dir):
        os.mkdir(directory, 0o700)
    shutil.copytree(source.workspace.generation_dir(generation), target.generation_dir(generation))
    fd = os.open(target.current_pointer, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(f"{generation}\n".encode("ascii"))
    copied = target.generation_dir(generation)
    assert mode(copied) == 0o700
    assert {mode(copied / name) for name in os.listdir(copied)} == {0o600}
    case = Case(clone, state)
    built = run_json("index", *case.where())
    assert (built["status"], built["generation"]) == ("indexed", generation)
    return case


# --------------------------------------------------------------------------- the provider's history

PACKAGE_V1: dict[str, str] = {
    "pkg/__init__.py": '"""A tiny package."""\n',
    "pkg/util.py": (
        "def clean(text):\n"
        "    return text.strip()\n"
        "\n"
        "\n"
        "def shout(text):\n"
        "    return text.upper()\n"
    ),
    "pkg/core.py": (
        "from pkg.util import clean, shout\n"
        "\n"
        "\n"
        "def parse(text):\n"
        '    return clean(text).split(",")\n'
        "\n"
        "\n"
        "def run(text):\n"
        "    items = parse(text)\n"
        "    return [shout(item) for item in items]\n"
    ),
    "pkg/cli.py": (
        "from pkg.core import run\n"
        "\n"
        "\n"
        "def main(argv):\n"
        "    return run(argv[0])\n"
    ),
}
# Commit 2 moves both util.py functions one line down (same file, same ids).
PACKAGE_V2: dict[str, str] = {"pkg/util.py": "# Text helpers.\n" + PACKAGE_V1["pkg/util.py"]}
# Commit 3 moves shout() to core.py, deletes the call main() -> run(), and adds usage().
PACKAGE_V3: dict[str, str] = {
    "pkg/util.py": "# Text helpers.\ndef clean(text):\n    return text.strip()\n",
    "pkg/core.py": (
        PACKAGE_V1["pkg/core.py"].replace("import clean, shout", "import clean")
        + "\n\ndef shout(text):\n    return text.upper()\n"
    ),
    "pkg/cli.py": (
        "from pkg.core import run\n"
        "\n"
        "\n"
        "def main(argv):\n"
        "    return argv[0]\n"
        "\n"
        "\n"
        "def usage():\n"
        '    return "usage: cli TEXT"\n'
    ),
}


@dataclass(frozen=True)
class History:
    case: Case
    generations: list[str]  # one per commit, oldest first
    commits: list[str]

    def index(self, number: int) -> Path:
        return self.case.workspace.index_path(self.generations[number])


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    """Three commits of a small package, each built by the real provider; all generations kept."""
    base = tmp_path_factory.mktemp("history")
    case = Case(make_repo(base / "repo", {**PACKAGE_V1}), base / "state")
    generations = [run_json("build", *case.where())["generation"]]
    commits = [git(case.repo, "rev-parse", "HEAD")]
    for files, message in ((PACKAGE_V2, "comment util"), (PACKAGE_V3, "move shout, drop a call, add usage")):
        write_files(case.repo, {**files})
        commits.append(commit_all(case.repo, message))
        refreshed = run_json("refresh", "--keep-previous", *case.where())
        assert refreshed["usable"] and refreshed["completeness"] == "complete"
        generations.append(refreshed["generation"])
    assert len(set(generations)) == 3
    return History(case, generations, commits)


# --------------------------------------------------------------------------- reproducibility


@pytest.mark.parametrize("source", ["g0", pytest.param("provider", marks=pytest.mark.provider)])
def test_index_rebuilt_elsewhere_is_byte_identical(
    source: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if source == "g0":
        original: Case = request.getfixturevalue("g0")
        generation = original.generation
    else:
        chronicle: History = request.getfixturevalue("history")
        original, generation = chronicle.case, chronicle.generations[-1]
    elsewhere = rebuild_elsewhere(original, generation, tmp_path / "elsewhere")
    first = original.workspace.index_path(generation)
    second = elsewhere.workspace.index_path(generation)
    # Nothing of the layout is shared: another checkout path, state root and workspace id.
    assert elsewhere.workspace.checkout != original.workspace.checkout
    assert elsewhere.workspace.root != original.workspace.root
    assert elsewhere.workspace.directory.name != original.workspace.directory.name
    assert first != second and first.name == second.name
    assert sha256(first) == sha256(second)
    audited = run_json("audit", *elsewhere.where())
    assert audited["status"] == "pass" and audited["stored_sha256"] == sha256(first)


# --------------------------------------------------------------------------- audit


def leftovers(case: Case) -> list[str]:
    """Anything in the indexes dir but the index, its seal and the artifact's verification seal."""
    expected = {f"{case.generation}.sqlite", f"{case.generation}.sqlite.seal", f"{case.generation}.seal"}
    return sorted(set(os.listdir(case.workspace.indexes_dir)) - expected)


def test_audit_passes_on_a_fresh_index(g0: Case) -> None:
    report = run_json("audit", *g0.where())
    assert report["schema"] == "cm_graph.audit.v1" and report["status"] == "pass"
    assert report["generation"] == g0.generation
    assert [(c["check"], c["status"]) for c in report["checks"]] == [
        ("artifact", "pass"), ("census", "pass"), ("seal", "pass"), ("index", "pass"),
    ]
    assert report["identical"] is True
    assert report["stored_sha256"] == report["rebuilt_sha256"] == sha256(g0.index)
    assert "tables" not in report
    table = run("audit", "--generation", g0.generation, *g0.where())
    assert table.exit_code == 0 and table.stderr == ""
    assert table.stdout.startswith(f"cm-graph audit {g0.generation}: pass")
    assert leftovers(g0) == []


def leaf_pages(index: Path, table: str) -> list[tuple[int, int]]:
    """Byte ranges of ``table``'s leaf pages, from SQLite's own page map (dbstat)."""
    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        size = connection.execute("PRAGMA page_size").fetchall()[0][0]
        pages = connection.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (table,)
        ).fetchall()
    finally:
        connection.close()
    assert pages, table
    size = int(size)  # type: ignore[arg-type]
    return [((int(page) - 1) * size, int(page) * size) for (page,) in pages]  # type: ignore[arg-type]


def flip_case_of(index: Path, table: str, needle: bytes) -> None:
    """Flip one bit (ASCII case) of the first ``needle`` inside ``table``'s data pages, in place."""
    data = index.read_bytes()
    offsets = [data.find(needle, start, end) for start, end in leaf_pages(index, table)]
    offset = next(found for found in offsets if found >= 0)
    with open(index, "r+b") as handle:  # same inode: still 0600, one link
        handle.seek(offset)
        handle.write(bytes([data[offset] ^ 0x20]))


def execute(index: Path, *statements: tuple[str, tuple[Any, ...]]) -> None:
    connection = apsw.Connection(str(index))
    try:
        with connection:
            for sql, bindings in statements:
                connection.execute(sql, bindings)
    finally:
        connection.close()


def flip_label_byte(index: Path) -> None:
    flip_case_of(index, "nodes", b"render")


def flip_census_byte(index: Path) -> None:
    flip_case_of(index, "census", b"example_pkg/report.py")


def add_a_line(index: Path) -> None:
    execute(index, ("UPDATE census SET lines = lines + 1 WHERE path = ?", ("example_pkg/config.py",)))


def swap_two_targets(index: Path) -> None:
    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        edges = connection.execute("SELECT edge, target FROM edges ORDER BY edge").fetchall()
    finally:
        connection.close()
    (first, first_target), (second, second_target) = next(
        (a, b) for a in edges for b in edges if a[1] != b[1]
    )
    execute(
        index,
        ("UPDATE edges SET target = ? WHERE edge = ?", (second_target, first)),
        ("UPDATE edges SET target = ? WHERE edge = ?", (first_target, second)),
    )


def changed_cell(column: int, stored: Any, rebuilt: Any) -> Any:
    """The sample rows differ in exactly ``column``, which holds ``stored`` vs ``rebuilt``."""

    def check(stored_rows: list[list[Any]], rebuilt_rows: list[list[Any]]) -> None:
        [stored_row], [rebuilt_row] = stored_rows, rebuilt_rows
        assert (stored_row[column], rebuilt_row[column]) == (stored, rebuilt)
        assert stored_row[:column] + stored_row[column + 1:] == rebuilt_row[:column] + rebuilt_row[column + 1:]

    return check


def targets_swapped(stored_rows: list[list[Any]], rebuilt_rows: list[list[Any]]) -> None:
    """Edges are (edge, source, target, ...): the same two edges, each with the other's target."""
    stored = {row[0]: row for row in stored_rows}
    rebuilt = {row[0]: row for row in rebuilt_rows}
    first, second = sorted(stored)
    assert sorted(rebuilt) == [first, second]
    assert (stored[first][2], stored[second][2]) == (rebuilt[second][2], rebuilt[first][2])
    assert stored[first][3:] == rebuilt[first][3:] and stored[second][3:] == rebuilt[second][3:]


# nodes: (node, provider_id, label, callable_base, path, line, kind, incomplete)
# census: (path, mode, blob, size, lines)
TAMPERING = {
    # name: (tamper, the table named, rows only in the stored index, how the samples differ)
    "flipped-label-byte": (flip_label_byte, "nodes", 1, changed_cell(2, "Render", "render")),
    "flipped-census-byte": (
        flip_census_byte, "census", 1, changed_cell(0, "Example_pkg/report.py", "example_pkg/report.py"),
    ),
    "changed-line-count": (add_a_line, "census", 1, changed_cell(4, 41, 40)),
    "swapped-edge": (swap_two_targets, "edges", 2, targets_swapped),
}


@pytest.mark.parametrize("name", list(TAMPERING))
def test_audit_detects_and_explains_tampering(g0: Case, name: str) -> None:
    tamper, table, changed, samples_differ = TAMPERING[name]
    before = sha256(g0.index)
    tamper(g0.index)
    assert sha256(g0.index) != before
    assert leftovers(g0) == []

    report = run_json("audit", *g0.where(), code=1)
    assert report["status"] == "fail" and report["identical"] is False
    assert report["stored_sha256"] == sha256(g0.index) != report["rebuilt_sha256"] == before
    index_check = report["checks"][-1]
    assert {"check": "seal", "status": "fail", "message": (
        "The stored index does not match its derivation seal; run `cm-graph index --rebuild`."
    )} in report["checks"]
    assert index_check == {
        "check": "index", "status": "fail",
        "message": f"The stored index differs from a fresh derivation in: {table}.",
    }
    differing = {t["table"]: t for t in report["tables"] if t["only_in_stored"] or t["only_in_rebuilt"]}
    assert list(differing) == [table]
    entry = differing[table]
    assert entry["only_in_stored"] == entry["only_in_rebuilt"] == changed
    assert len(entry["stored_samples"]) == len(entry["rebuilt_samples"]) == changed
    samples_differ(entry["stored_samples"], entry["rebuilt_samples"])
    assert leftovers(g0) == []

    table_output = run("audit", *g0.where())
    assert table_output.exit_code == 1
    assert f"cm-graph audit {g0.generation}: fail" in table_output.stdout
    assert f"{table}: {changed} rows only in the stored index, {changed} only in the fresh derivation" in (
        table_output.stdout
    )
    assert "  stored: [" in table_output.stdout and "  rebuilt: [" in table_output.stdout
    assert leftovers(g0) == []
    assert sha256(g0.index) != before  # the audit reports; it never repairs


def test_audit_fails_on_a_tampered_artifact_and_a_missing_index(g0: Case) -> None:
    g0.index.unlink()
    report = run_json("audit", *g0.where(), code=1)
    assert report["checks"][-1]["check"] == "index" and "no stored index" in report["checks"][-1]["message"]
    assert leftovers(g0) == [] and not g0.index.exists()

    with open(g0.workspace.generation_dir(g0.generation) / ARTIFACT_NAME, "r+b") as handle:
        byte = handle.read(1)
        handle.seek(0)
        handle.write(bytes([byte[0] ^ 0xFF]))
    report = run_json("audit", *g0.where(), code=1)
    assert report["checks"] == [{
        "check": "artifact", "status": "fail",
        "message": "The generation's artifact digest does not match its manifest.",
    }]


def test_a_corrupt_index_is_reported_not_crashed_on(g0: Case, tmp_path: Path) -> None:
    """A trashed b-tree page: audit says so; export and diff refuse in one line (no traceback)."""
    healthy = tmp_path / "healthy.sqlite"
    shutil.copyfile(g0.index, healthy)
    [(start, _end)] = leaf_pages(g0.index, "nodes")
    with open(g0.index, "r+b") as handle:
        handle.seek(start)
        handle.write(b"\xff" * 16)  # the page header: SQLite can no longer read the table

    report = run_json("audit", *g0.where(), code=1)
    assert report["checks"][-1]["message"] == (
        "The stored index differs from a fresh derivation in: "
        "(unreadable: SQLite reports the stored file as corrupt)."
    )
    assert leftovers(g0) == []

    for fmt in ("jsonl", "sql"):
        exported = run("export", "--format", fmt, *g0.where())
        assert exported.exit_code == 1
        assert exported.stderr == "cm-graph: unreadable: The index file is corrupt; run `cm-graph audit`.\n"

    assert_one_line_refusal(run("diff", healthy, g0.index, *g0.where()), "unreadable", "corrupt")
    assert run_json("diff", healthy, healthy, *g0.where())["nodes"] == {"counts": {}, "rows": []}


# --------------------------------------------------------------------------- diff (real provider)


def blob(repo: Path, revision: str, path: str) -> str:
    return git(repo, "rev-parse", f"{revision}:{path}")


def node_row(change: str, provider_id: str, old: tuple[Any, ...] | None, new: tuple[Any, ...] | None) -> dict[str, Any]:
    old_label, old_path, old_line = old or (None, None, None)
    new_label, new_path, new_line = new or (None, None, None)
    return {
        "change": change, "provider_id": provider_id,
        "old_label": old_label, "old_path": old_path, "old_line": old_line,
        "new_label": new_label, "new_path": new_path, "new_line": new_line,
    }


def edge_row(
    change: str, source: str, target: str, relation: str, site: str, line: int, old_line: int | None = None
) -> dict[str, Any]:
    return {
        "change": change, "source": source, "target": target, "relation": relation,
        "confidence": "extracted", "site_path": site, "site_line": line, "old_site_line": old_line,
    }


def definition_row(change: str, path: str, qualname: str, kind: str, old: tuple[int, int] | None,
                   new: tuple[int, int] | None) -> dict[str, Any]:
    old_start, old_end = old or (None, None)
    new_start, new_end = new or (None, None)
    return {"change": change, "path": path, "qualname": qualname, "kind": kind, "old_start_line": old_start,
            "old_end_line": old_end, "new_start_line": new_start, "new_end_line": new_end}


def reference_row(change: str, path: str, caller: str, role: str, target: str, name: str,
                  old_count: int | None, new_count: int | None) -> dict[str, Any]:
    return {"change": change, "path": path, "caller": caller, "role": role, "target": target, "name": name,
            "old_count": old_count, "new_count": new_count}


def counted(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["change"]] = counts.get(row["change"], 0) + 1
    return {"counts": dict(sorted(counts.items())), "rows": rows}


def expected_main_change(repo: Path) -> dict[str, Any]:
    """Commit 3: usage() added, shout() moved from util.py to core.py, main() no longer calls run()."""
    return {
        "schema": "cm_graph.diff.v1",
        "nodes": counted([
            node_row("added", "pkg_cli_usage", None, ("usage()", "pkg/cli.py", 8)),
            # The provider's id is <file path stem>_<name>: a move across files is a new id.
            node_row("added", "pkg_core_shout", None, ("shout()", "pkg/core.py", 13)),
            node_row("removed", "pkg_util_shout", ("shout()", "pkg/util.py", 6), None),
        ]),
        "relationships": counted([
            # what came and went first (added, then removed), each in identity order
            edge_row("added", "pkg_cli", "pkg_cli_usage", "contains", "pkg/cli.py", 8),
            edge_row("added", "pkg_core", "pkg_core_shout", "contains", "pkg/core.py", 13),
            edge_row("added", "pkg_core_run", "pkg_core_shout", "calls", "pkg/core.py", 10),
            edge_row("removed", "pkg_cli_main", "pkg_core_run", "calls", "pkg/cli.py", 5),
            edge_row("removed", "pkg_core", "pkg_util_shout", "imports", "pkg/core.py", 1),
            edge_row("removed", "pkg_core_run", "pkg_util_shout", "calls", "pkg/core.py", 10),
            edge_row("removed", "pkg_util", "pkg_util_shout", "contains", "pkg/util.py", 6),
        ]),
        "files": counted([
            {
                "change": "changed", "path": path,
                "old_blob": blob(repo, "HEAD~1", path), "new_blob": blob(repo, "HEAD", path),
            }
            for path in ("pkg/cli.py", "pkg/core.py", "pkg/util.py")
        ]),
        # The resolved layer: definitions by (path, qualified name, kind), a move across files is a
        # removal and an addition; references by what they say, lines left out.
        "definitions": counted([
            definition_row("added", "pkg/cli.py", "pkg.cli.usage", "function", None, (8, 9)),
            definition_row("added", "pkg/core.py", "pkg.core.shout", "function", None, (13, 14)),
            definition_row("removed", "pkg/util.py", "pkg.util.shout", "function", (6, 7), None),
            definition_row("changed", "pkg/cli.py", "pkg.cli", "module", (1, 5), (1, 9)),
            definition_row("changed", "pkg/core.py", "pkg.core", "module", (1, 10), (1, 14)),
            definition_row("changed", "pkg/util.py", "pkg.util", "module", (1, 7), (1, 3)),
        ]),
        "references": counted([
            reference_row("added", "pkg/core.py", "pkg.core.run", "call", "pkg.core.shout", "shout", None, 1),
            reference_row("removed", "pkg/cli.py", "pkg.cli.main", "call", "pkg.core.run", "run", 1, None),
            reference_row("removed", "pkg/core.py", "pkg.core", "import", "pkg.util.shout", "shout", 1, None),
            reference_row("removed", "pkg/core.py", "pkg.core.run", "call", "pkg.util.shout", "shout", 1, None),
        ]),
    }


@pytest.mark.provider
def test_diff_lists_exactly_the_changes_of_a_real_commit(history: History) -> None:
    repo = history.case.repo
    by_generation = run("diff", history.generations[1], history.generations[2], *history.case.where(), "--json")
    by_revision = run("diff", "HEAD~1", "HEAD", *history.case.where(), "--json")
    by_file = run("diff", history.index(1), history.index(2), *history.case.where(), "--json")
    for result in (by_generation, by_revision, by_file):
        assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(by_generation.stdout) == expected_main_change(repo)
    # The three ways of naming the sides give the same bytes, and so does a second run.
    assert by_generation.stdout == by_revision.stdout == by_file.stdout
    assert run("diff", "HEAD~1", "HEAD", *history.case.where(), "--json").stdout == by_revision.stdout


@pytest.mark.provider
def test_diff_reports_a_move_within_a_file_as_moved(history: History) -> None:
    repo = history.case.repo
    report = run_json("diff", "HEAD~2", "HEAD~1", *history.case.where())
    assert report == {
        "schema": "cm_graph.diff.v1",
        "nodes": counted([
            node_row("moved", "pkg_util_clean", ("clean()", "pkg/util.py", 1), ("clean()", "pkg/util.py", 2)),
            node_row("moved", "pkg_util_shout", ("shout()", "pkg/util.py", 5), ("shout()", "pkg/util.py", 6)),
        ]),
        "relationships": counted([
            # a line shift is one moved relationship, not a removed and an added one
            edge_row("moved", "pkg_util", "pkg_util_clean", "contains", "pkg/util.py", 2, old_line=1),
            edge_row("moved", "pkg_util", "pkg_util_shout", "contains", "pkg/util.py", 6, old_line=5),
        ]),
        "files": counted([{
            "change": "changed", "path": "pkg/util.py",
            "old_blob": blob(repo, "HEAD~2", "pkg/util.py"), "new_blob": blob(repo, "HEAD~1", "pkg/util.py"),
        }]),
        "definitions": counted([  # every range below the new comment line moved down by one
            definition_row("changed", "pkg/util.py", "pkg.util", "module", (1, 6), (1, 7)),
            definition_row("changed", "pkg/util.py", "pkg.util.clean", "function", (1, 2), (2, 3)),
            definition_row("changed", "pkg/util.py", "pkg.util.shout", "function", (5, 6), (6, 7)),
        ]),
        "references": counted([]),  # a line shift says nothing new about who uses what
    }


@pytest.mark.provider
def test_diff_table_limit_and_refusals(history: History) -> None:
    table = run("diff", "HEAD~1", "HEAD", *history.case.where())
    assert table.exit_code == 0 and table.stderr == ""
    lines = table.stdout.splitlines()
    assert lines[0] == "Graph diff"
    summary = "\n".join(lines[:8])
    assert "added 2, removed 1" in summary and "added 3, removed 4" in summary and "changed 3" in summary
    assert "pkg_core_shout" in table.stdout and "pkg_util_shout" in table.stdout
    moved = run("diff", "HEAD~2", "HEAD~1", *history.case.where(), env={"COLUMNS": "100"}).stdout
    assert "  moved    clean()  pkg/util.py line 1 -> 2" in moved.splitlines()
    assert "  moved    pkg_util contains pkg_util_clean  pkg/util.py line 1 -> 2" in moved.splitlines()
    assert all(len(line) <= 100 for line in moved.splitlines())

    limited = run_json("diff", "HEAD~1", "HEAD", "--limit", "1", *history.case.where())
    assert {section: len(limited[section]["rows"]) for section in ("nodes", "relationships", "files")} == {
        "nodes": 1, "relationships": 1, "files": 1,
    }
    assert limited["relationships"]["counts"] == {"added": 3, "removed": 4}

    same = run_json("diff", "HEAD", history.generations[2], *history.case.where())
    sections = ("nodes", "relationships", "files", "definitions", "references")
    assert all(same[section] == {"counts": {}, "rows": []} for section in sections)
    assert "  added    function pkg.cli.usage  pkg/cli.py lines 8-9" in table.stdout.splitlines()
    assert "  removed  pkg.cli.main call pkg.core.run  pkg/cli.py x1" in table.stdout.splitlines()

    assert run("diff", "0" * 32, "HEAD", *history.case.where()).exit_code == 1
    assert run("diff", "no-such-revision", "HEAD", *history.case.where()).exit_code == 1


# --------------------------------------------------------------------------- export


def table_counts(index: Path) -> dict[str, int]:
    connection = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        return {table: connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in INDEX_TABLES}
    finally:
        connection.close()


def test_export_is_canonical_and_loadable(g0: Case, tmp_path: Path) -> None:
    elsewhere = rebuild_elsewhere(g0, g0.generation, tmp_path / "elsewhere")
    assert sha256(g0.index) == sha256(elsewhere.index)
    first = run("export", *g0.where())
    second = run("export", "--generation", g0.generation, "--format", "jsonl", *elsewhere.where())
    assert first.exit_code == second.exit_code == 0 and first.stderr == ""
    assert first.stdout == second.stdout

    counts = table_counts(g0.index)
    seen: dict[str, int] = {}
    order: list[str] = []
    for line in first.stdout.splitlines():
        record = json.loads(line)
        assert set(record) == {"table", "row"} and isinstance(record["row"], dict)
        assert line == json.dumps(record, sort_keys=True, ensure_ascii=False)
        seen[record["table"]] = seen.get(record["table"], 0) + 1
        if not order or order[-1] != record["table"]:
            order.append(record["table"])
    assert order == [table for table in INDEX_TABLES if counts[table]]
    assert seen == {table: count for table, count in counts.items() if count}

    dump = run("export", "--format", "sql", *g0.where())
    assert dump.exit_code == 0 and dump.stdout == run("export", "--format", "sql", *elsewhere.where()).stdout
    loaded = tmp_path / "loaded.db"
    connection = sqlite3.connect(loaded)
    try:
        connection.executescript(dump.stdout)
    finally:
        connection.close()
    assert table_counts(loaded) == counts
    assert run("export", "--format", "csv", *g0.where()).exit_code == 1


# --------------------------------------------------------------------------- score


@dataclass(frozen=True)
class Scored:
    case: Case
    packet: Path

    def citations(self) -> list[str]:
        document = json.loads(self.packet.read_bytes())
        return [c["source"] for d in document["documents"] for c in d["citations"]]

    def variant(self, change: Any) -> Path:
        document = json.loads(self.packet.read_bytes())
        change(document)
        path = self.packet.with_name(f"variant-{os.urandom(4).hex()}.json")
        path.write_text(json.dumps(document))
        return path

    def score(self, packet: Path, *extra: Any) -> Result:
        return run("score", packet, "--repo-path", self.case.repo, *extra)


@pytest.fixture
def scored(g0: Case, tmp_path: Path) -> Scored:
    """A fresh packet, made the way an operator makes one: `auth init`, then `query --packet-out`."""
    made = run(
        "auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
        "--recipient", "claude:builder", *g0.where(),
    )
    assert made.exit_code == 0, made.stderr
    auth = tmp_path / "auth.json"
    auth.write_text(made.stdout)
    packet = tmp_path / "packets" / "packet.json"
    packet.parent.mkdir()
    result = run(
        "query", "--question", "impact", "--target", "parse_config", "--authorization", auth,
        "--packet-out", packet, *g0.where(), "--json",
    )
    assert result.exit_code == 0 and json.loads(result.stdout)["status"] == "available"
    return Scored(g0, packet)


def test_a_fresh_packet_scores_one_and_matching(scored: Scored) -> None:
    citations = scored.citations()
    assert any("#L" in c for c in citations) and any(c.startswith("example_pkg/loader.py") for c in citations)
    report = run_json("score", scored.packet, "--repo-path", scored.case.repo)
    assert report == {
        "schema": "code_mower.contextGraphQuality.v1",
        "revision_state": "matching",
        "citations": len(citations),
        "line_citations": sum("#L" in c for c in citations),
        "resolved_line_citations": sum("#L" in c for c in citations),
        "resolution_rate": 1.0,
        "completeness": "complete",
        "truncated": False,
        "gate": "pass",
    }
    table = scored.score(scored.packet)
    assert table.exit_code == 0 and table.stdout.startswith("Evidence score: pass")


def test_deleting_a_cited_file_makes_the_packet_stale_and_lower(scored: Scored) -> None:
    citations = scored.citations()
    git(scored.case.repo, "rm", "-q", "example_pkg/loader.py")
    commit_all(scored.case.repo, "delete loader.py")
    claims = [c for c in citations if "#L" in c]
    resolved = [c for c in claims if not c.startswith("example_pkg/loader.py")]
    assert 0 < len(resolved) < len(claims)
    result = scored.score(scored.packet, "--revision", "HEAD", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["revision_state"] == "stale" and report["gate"] == "fail"
    assert (report["line_citations"], report["resolved_line_citations"]) == (len(claims), len(resolved))
    assert report["resolution_rate"] == round(len(resolved) / len(claims), 6) < 0.9

    # Against the packet's own commit the revision matches, but the files are the checkout's.
    back = json.loads(scored.score(scored.packet, "--revision", "HEAD~1", "--json").stdout)
    assert back["revision_state"] == "matching" and back["resolved_line_citations"] == len(resolved)


def set_first_citation(source: str) -> Any:
    def change(document: dict[str, Any]) -> None:
        document["documents"][0]["citations"][0]["source"] = source

    return change


@pytest.mark.parametrize("source", [
    "../x", ".git/config", "/etc/passwd", "a#L0", "vendor/.GIT/x", "./a", "a//b", "a\\b",
    "example_pkg/config.py#L30-L12", "example_pkg/config.py#L12-L", "example_pkg/config.py#L12345678",
    # Non-ASCII decimal digits are not a line (int() would read "\u0663\u0663" as 33).
    "example_pkg/config.py#L\u0663\u0663", "example_pkg/config.py#L1-L\u0663",
    "example_pkg/config.py#L\uff11",
])
def test_an_out_of_scope_citation_refuses_the_packet(scored: Scored, source: str) -> None:
    result = scored.score(scored.variant(set_first_citation(source)))
    assert_one_line_refusal(result, "invalid", "citation")


@pytest.mark.parametrize(("name", "points_to", "words"), [
    ("outside.py", "OUTSIDE", "outside the repository"),
    ("root-link", "..", "outside the repository"),
    ("config-link", "../.git/config", "private directory"),
])
def test_a_citation_through_a_symlink_out_of_scope_is_refused(
    scored: Scored, tmp_path: Path, name: str, points_to: str, words: str
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("one\ntwo\n")
    link = scored.case.repo / "example_pkg" / name
    link.symlink_to(outside if points_to == "OUTSIDE" else points_to)
    result = scored.score(scored.variant(set_first_citation(f"example_pkg/{name}#L1")))
    assert_one_line_refusal(result, "invalid", words)
    file_level = scored.score(scored.variant(set_first_citation(f"example_pkg/{name}")))
    assert_one_line_refusal(file_level, "invalid", words)


def test_contradictory_or_malformed_packets_are_refused(scored: Scored) -> None:
    def complete_and_truncated(document: dict[str, Any]) -> None:
        document["completeness"], document["truncated"] = "complete", True

    def no_citations_list(document: dict[str, Any]) -> None:
        document["documents"][0]["citations"] = None

    def too_many(document: dict[str, Any]) -> None:
        citation = {"source": "example_pkg/config.py#L1", "title": "x"}
        document["documents"] = [{**document["documents"][0], "citations": [citation] * 10}] * 21

    def other_kind(document: dict[str, Any]) -> None:
        document["kind"] = "web"

    cases = [
        (complete_and_truncated, "complete and truncated"),
        (no_citations_list, "no citations list"),
        (too_many, "more than 200 citations"),
        (other_kind, "repository-kind"),
    ]
    for change, words in cases:
        assert_one_line_refusal(scored.score(scored.variant(change)), "invalid", words)
    duplicate = scored.packet.with_name("duplicate.json")
    duplicate.write_bytes(b'{"kind": "repository", "kind": "repository"}')
    assert scored.score(duplicate).exit_code == 1
