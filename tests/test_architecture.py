"""Data flows one way: a lower stage never imports a higher one, and only the CLI layer uses rich."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "cm_graph"
# Lower index = lower stage. A module may import only modules of its own or a lower stage.
STAGES = [
    {"errors", "rules", "jsonio", "graphmodel", "resources", "output", "refusals", "records"},
    {"privfs", "gitio", "manifest", "locking", "questions", "contract", "fixedroot", "providercache", "scope"},
    {"layout", "artifact", "inventory", "jsonstream", "document", "indexdb", "storeshape", "scratch"},
    {"generation", "importer", "publishing", "resolver", "indexseal", "indexrebind"},
    {"status", "indexing", "provider", "provider_keeper", "sametree"},
    {"building", "traversal", "answer", "documents"},
    {"packet", "ask", "doctor", "audit", "diffing", "score", "export", "symbols", "suggest", "answerdata", "askview"},
    {"connections"},
    {"session"},
    {"render"},
    {"querycmd"},
    {"cli"},
    {"entry"},
]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


def _stage(module: str) -> int:
    for index, members in enumerate(STAGES):
        if module in members:
            return index
    raise AssertionError(f"cm_graph.{module} is not placed in a stage")


def test_every_module_is_placed_and_imports_only_downwards() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = path.stem
        mine = _stage(module)
        for imported in _imports(path) & {p.stem for p in PACKAGE.glob("*.py")}:
            assert _stage(imported) <= mine, f"{module} imports higher-stage {imported}"


def test_rich_only_in_render_and_cli() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        if path.stem not in ("render", "cli"):
            assert "rich" not in _imports(path), path.name


def test_cli_timeout_default_is_the_providers() -> None:
    """The CLI keeps its own copy so that `cm-graph --help` does not load the provider module."""
    from cm_graph.cli import app as cli
    from cm_graph.provider import run as provider

    assert cli.DEFAULT_TIMEOUT_SECONDS == provider.DEFAULT_TIMEOUT_SECONDS
