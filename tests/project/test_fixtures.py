"""The top-level ``fixtures/`` holds the data the tests use as files a reader can open: these tests
hold the files to the reference and to what the tests actually run on, and every entry described
in ``fixtures/README.md``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cm_graph.context.intents import INTENT_NAMES
from cm_graph.query.questions import QUESTION_NAMES

from ..support.damaged import RECIPES
from ..support.fixturecases import CASES_DIR, CODE_CONTEXT_ANSWERS, DAMAGED, GOLDEN_PACKETS, KINDS
from ..support.g0 import G0_FIXTURE, g0_graph, make_g0_repo, read_fixture_files
from ..support.golden import case_input
from ..support.helpers import git

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# The reference's common fixture (query-and-packet.md §3), table for table.
REFERENCE_LINES = {
    "example_pkg/config.py": 40, "example_pkg/loader.py": 50,
    "example_pkg/report.py": 20, "tests/test_config.py": 30,
}
REFERENCE_NODES = [
    ("n-config", "parse_config", "example_pkg/config.py", "L12"),
    ("n-load", "load", "example_pkg/loader.py", "L40"),
    ("n-report", "render", "example_pkg/report.py", "L5"),
    ("n-test", "test_parse_config", "tests/test_config.py", "L8"),
    ("n-config-file", "config.py", "example_pkg/config.py", "L1"),
]
REFERENCE_EDGES = [
    ("n-load", "n-config", "calls", "EXTRACTED"),
    ("n-report", "n-load", "calls", "INFERRED"),
    ("n-test", "n-config", "tests", "EXTRACTED"),
    ("n-config-file", "n-config", "contains", "EXTRACTED"),
]


def test_the_g0_files_are_the_reference_common_fixture() -> None:
    files = read_fixture_files(G0_FIXTURE / "repo")
    assert {path: text.count("\n") for path, text in files.items()} == REFERENCE_LINES
    for text in files.values():
        assert text == "".join(f"line {n}\n" for n in range(1, text.count("\n") + 1))
    graph = json.loads((G0_FIXTURE / "graph.json").read_text(encoding="utf-8"))
    assert [(n["id"], n["label"], n["source_file"], n["source_location"]) for n in graph["nodes"]] == REFERENCE_NODES
    assert {n["file_type"] for n in graph["nodes"]} == {"code"}
    assert [(e["source"], e["target"], e["relation"], e["confidence"]) for e in graph["edges"]] == REFERENCE_EDGES
    assert all(e["source_file"] == "" and "source_location" not in e for e in graph["edges"])


def test_a_g0_checkout_commits_exactly_the_fixture_files(tmp_path: Path) -> None:
    repo = make_g0_repo(tmp_path / "repo")
    listed = git(repo, "ls-files").splitlines()
    root = G0_FIXTURE / "repo"
    assert listed == sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())
    for path in listed:
        assert git(repo, "show", f"HEAD:{path}") + "\n" == (root / path).read_text(encoding="utf-8")
    assert g0_graph() == json.loads((G0_FIXTURE / "graph.json").read_bytes())


def test_every_fixture_is_described_in_the_readme() -> None:
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    described = set(re.findall(r"^## `([^`]+)`", readme, re.M))
    assert described == {path.name + ("/" if path.is_dir() else "") for path in FIXTURES.iterdir()} - {"README.md"}
    kinds = set(re.findall(r"^### `cases/([^`]+)/`", readme, re.M))
    assert kinds == {kind.path for kind in KINDS}


def test_every_case_folder_is_of_a_kind_a_test_runs() -> None:
    """Under ``cases/`` there is nothing but the kinds' directories and what leads to them, so no
    folder of cases sits where no test looks."""
    kind_dirs = [kind.directory for kind in KINDS]
    for path in CASES_DIR.rglob("*"):
        placed = [d for d in kind_dirs if path == d or d in path.parents or path in d.parents]
        assert placed, f"{path}: not under a kind of tests/support/fixturecases.py"


def test_the_generated_damaged_cases_are_their_recipes() -> None:
    for name, recipe in RECIPES.items():
        folder = DAMAGED.directory / name
        assert (folder / "graph.json").read_bytes() == recipe.document(), name
        assert (folder / "README").read_text(encoding="utf-8") == recipe.readme + "\n", name
    generated = {folder.name for folder in DAMAGED.folders()
                 if "(generated: " in (folder / "README").read_text(encoding="utf-8")}
    assert generated == set(RECIPES), "python -m tests.support.damaged writes a recipe's folder"
    # The hand-written ones were 18 files before they became folders (issue 26): one lost is a lost case.
    assert len(DAMAGED.folders()) - len(RECIPES) >= 18


def test_the_golden_cases_ask_every_question_and_every_intent() -> None:
    """The reference's worked example asks each question once over G0 (§3 A); code_context has
    one answer per intent."""
    assert {case_input(folder)[0] for folder in GOLDEN_PACKETS.folders()} == set(QUESTION_NAMES)
    assert {case_input(folder)[0] for folder in CODE_CONTEXT_ANSWERS.folders()} == set(INTENT_NAMES)
