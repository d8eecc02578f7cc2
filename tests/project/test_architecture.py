"""The layers, as docs/architecture.md draws them: data flows one way through the stage packages.

    base < generation < index < (provider | query) < evidence < (connections | audit) < fleet < context
         < feedback < surfaces < cli

A module may import its own stage and any lower one; the two sides of a pair never import each
other; only cli/ talks to a terminal (typer, click, rich, stdout, stderr) -- surfaces/ never writes
stdout itself either: under stdio the MCP SDK owns the process's stdout as the protocol stream,
which is why surfaces/ may call the SDK's transports and nothing else may; only surfaces/ imports
the mcp extra; only the export module speaks sqlite3/sqlite-utils. ruff's banned-api rule
(pyproject.toml) holds the terminal and sqlite3 imports as code is written; this test holds all
of it, lazy and TYPE_CHECKING imports included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "cm_graph"
# stage package -> rank; equal ranks are the two sides of a pair.
RANKS = {
    "base": 0,
    "generation": 1,
    "index": 2,
    "provider": 3, "query": 3,
    "evidence": 4,
    "connections": 5, "audit": 5,
    "fleet": 6,  # reads connections; context's usage intent reads the fleet
    "context": 7,
    "feedback": 8,  # re-asks code_context and the questions to reproduce an answer id
    "surfaces": 9, "agents": 9,  # the MCP server and REST twin | a checkout's instructions and host configs
    "cli": 10,
}
# The agent surfaces' libraries (the optional extra ``mcp``): only surfaces/ imports them, so the
# CLI, and every command that is not ``cm-graph mcp``, runs without the extra and never pays for it.
SURFACE_LIBRARIES = {"mcp", "mcp_types", "starlette", "uvicorn", "anyio", "jsonschema", "httpx2", "pydantic"}
TERMINAL = {"typer", "click", "rich"}
SQLITE_FAMILY = {"sqlite3", "sqlite_utils"}
EXPORT_MODULE = "audit/export.py"


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def stage_of(path: Path) -> str | None:
    """The stage package a module belongs to; None for cm_graph/__init__.py and __main__.py."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else None


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, as an absolute dotted name (relative imports resolved)."""
    package = ["cm_graph", *path.relative_to(PACKAGE).parts[:-1]]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def imported_stages(path: Path) -> set[str]:
    return {name.split(".")[1] for name in imported(path) if name.startswith("cm_graph.") and
            (PACKAGE / name.split(".")[1]).is_dir()}


def top_levels(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imported(path)}


def test_every_stage_package_is_ranked() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(RANKS), "place the new package in RANKS and in docs/architecture.md"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_its_own_stage_and_lower_ones(path: Path) -> None:
    mine = stage_of(path)
    # cm_graph/__main__.py stands above cli/ (it only calls the entry); __init__.py below everything
    rank = {"__main__.py": RANKS["cli"] + 1, "__init__.py": -1}[path.name] if mine is None else RANKS[mine]
    for other in imported_stages(path) - {mine}:
        assert RANKS[other] < rank, (
            f"{path.relative_to(PACKAGE)} ({mine}) imports {other}: "
            + ("the two sides of a pair never import each other" if RANKS[other] == rank else "a higher stage")
        )


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_cli_talks_to_a_terminal(path: Path) -> None:
    if stage_of(path) == "cli":
        return
    assert not top_levels(path) & TERMINAL, f"{path.relative_to(PACKAGE)} imports a terminal library"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "sys":
            assert node.attr not in ("stdout", "stderr", "__stdout__", "__stderr__"), (
                f"{path.relative_to(PACKAGE)}:{node.lineno} writes to sys.{node.attr}; only cli/ does"
            )
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "print", f"{path.relative_to(PACKAGE)}:{node.lineno} prints; only cli/ does"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_surfaces_import_the_mcp_extra(path: Path) -> None:
    if stage_of(path) != "surfaces":
        assert not top_levels(path) & SURFACE_LIBRARIES, f"{path.relative_to(PACKAGE)} imports the mcp extra"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_export_module_speaks_sqlite3(path: Path) -> None:
    if path.relative_to(PACKAGE).as_posix() != EXPORT_MODULE:
        assert not top_levels(path) & SQLITE_FAMILY, f"{path.relative_to(PACKAGE)} imports the sqlite3 family"


def test_stage_init_files_stay_empty() -> None:
    """An ``__init__.py`` runs on every import of its package: the fast start path pays for it."""
    for stage in RANKS:
        assert (PACKAGE / stage / "__init__.py").read_bytes() == b"", stage


def test_sql_lives_beside_its_stage_under_a_unique_name() -> None:
    """``query_sql(name)`` finds ``cm_graph/<stage>/sql/<name>.sql``: a name must say which file."""
    names = [p.name for p in PACKAGE.glob("*/sql/*.sql")]
    assert names and len(names) == len(set(names))
    assert not (PACKAGE / "sql").exists()


def test_cli_timeout_default_is_the_providers() -> None:
    """The CLI keeps its own copy so that `cm-graph --help` does not load the provider module."""
    from cm_graph.cli import graph_commands as cli
    from cm_graph.provider import run as provider

    assert cli.DEFAULT_TIMEOUT_SECONDS == provider.DEFAULT_TIMEOUT_SECONDS


def module_of(name: str) -> Path | None:
    """The file of ``cm_graph.x.y`` (a module, not a name imported from one), else None."""
    if not name.startswith("cm_graph."):
        return None
    path = PACKAGE.joinpath(*name.split(".")[1:])
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def test_no_import_circle_between_modules() -> None:
    """Modules import one another one way, inside a stage too (lazy imports included): a circle
    makes two modules one job that can only be read, and changed, together."""
    graph = {path: {found for name in imported(path) if (found := module_of(name)) is not None} - {path}
             for path in modules()}
    circles = []
    state: dict[Path, int] = {}  # 1: on the current path, 2: done

    def visit(path: Path, trail: list[Path]) -> None:
        state[path] = 1
        for other in sorted(graph[path]):
            if state.get(other) == 1:
                circles.append(" -> ".join(str(p.relative_to(PACKAGE)) for p in trail[trail.index(other):] + [other]))
            elif other not in state:
                visit(other, [*trail, other])
        state[path] = 2

    for path in sorted(graph):
        if path not in state:
            visit(path, [path])
    assert not circles, "import circles: " + "; ".join(circles)
