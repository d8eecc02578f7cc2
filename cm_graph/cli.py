"""The ``cm-graph`` command: a thin typer shell over the library.

One error boundary: every expected refusal becomes a reason code and one sentence on stderr (and
a JSON object on stdout with ``--json``) with exit code 1. Usage errors exit 2. Bugs still raise.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from . import __version__
from .errors import Refusal
from .indexing import ensure_index
from .layout import Workspace
from .publishing import publish_provider_output
from .render import console, print_json, print_mapping, print_refusal

app = typer.Typer(
    name="cm-graph",
    help="Offline, bounded questions over a per-generation SQLite index of a Graphify code graph.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

RepoPath = Annotated[
    Path | None, typer.Option("--repo-path", help="A directory inside the checkout (default: cwd).")
]
StateDir = Annotated[
    Path | None,
    typer.Option("--state-dir", help="Private state root (default: $CM_GRAPH_HOME or ~/.local/share/cm-graph)."),
]
Revision = Annotated[str | None, typer.Option("--revision", help="A revision the generation must be bound to.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]

F = TypeVar("F", bound=Callable[..., Any])


def refusals_exit(func: F) -> F:
    """Turn a Refusal into reason + sentence on stderr, JSON on stdout with --json, exit 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Refusal as refusal:
            if kwargs.get("json_output"):
                print_json(console(), {"status": "refused", "reason": refusal.reason, "detail": refusal.message})
            print_refusal(console(stderr=True), refusal.reason, refusal.message)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


@app.command("index")
@refusals_exit
def index_command(
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    revision: Revision = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Derive the index again even if one is readable.")] = False,
    json_output: Json = False,
) -> None:
    """Build (or reuse) the SQLite index of the current generation and print its metadata."""
    workspace = Workspace.locate(repo_path, state_dir)
    report = ensure_index(workspace, revision, rebuild=rebuild)
    summary = {
        "status": "reused" if report.reused else "indexed",
        "generation": report.generation,
        "source_revision": report.commit,
        **report.counts,
        "index_bytes": report.bytes,
        "elapsed_seconds": round(report.seconds, 3),
    }
    if json_output:
        print_json(console(), summary)
    else:
        print_mapping(console(), f"Index {summary['status']}", summary)


@app.command("build")
@refusals_exit
def build_command(
    from_graph: Annotated[
        Path, typer.Option("--from-graph", help="An existing graphify-out/ directory to publish.")
    ],
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    revision: Annotated[str, typer.Option("--revision", help="The revision the output was extracted from.")] = "HEAD",
    keep_previous: Annotated[bool, typer.Option("--keep-previous", help="Keep older generations.")] = False,
    json_output: Json = False,
) -> None:
    """Publish provider output as a new generation bound to REVISION, then index it."""
    workspace = Workspace.locate(repo_path, state_dir)
    manifest, coverage = publish_provider_output(
        workspace, from_graph, revision=revision, keep_previous=keep_previous
    )
    report = ensure_index(workspace)
    summary = {
        "status": "published",
        "usable": manifest.completeness == "complete",
        "generation": manifest.generation,
        "source_revision": manifest.commit,
        "tree": manifest.tree,
        "provider": manifest.provider.requirement,
        "built_at": manifest.built_at,
        "completeness": manifest.completeness,
        "tracked_files": manifest.tracked_files,
        "indexed_files": manifest.indexed_files,
        "unsupported_inputs": manifest.unsupported_inputs,
        "graph_bytes": manifest.graph_bytes,
        "code_nodes": report.counts.get("code_nodes", 0),
        "edges": report.counts.get("edges", 0),
        "index_bytes": report.bytes,
    }
    if coverage.notes:
        summary["partial_because"] = coverage.notes
    if json_output:
        print_json(console(), summary)
    else:
        print_mapping(console(), "Generation published", summary)
    if manifest.completeness != "complete":
        raise typer.Exit(1)


@app.command("version")
def version_command() -> None:
    """Print the installed cm-graph version."""
    typer.echo(__version__)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("cm-graph: interrupted\n")
        sys.exit(130)
