"""The local graph's life: ``build`` and ``refresh`` publish a generation, ``index`` derives its
SQLite index, ``status`` says whether it is usable for a revision, ``remove`` deletes it.

Registered from the command table (``command_table.py``), which gives each command its name and help.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from ..generation.coverage import Coverage
    from ..generation.manifest import Manifest
    from ..index.format import IndexReport

from ..base.errors import InvalidInput, Refusal
from ..feedback.autograde import DEFAULT_EVAL_SECONDS, MAX_EVAL_SECONDS
from ..generation.definitions import MAX_GAP_FILES_SAID
from ..generation.layout import Workspace
from ..generation.store import read_current, read_generation, remove_graph_state
from ..index.ensure import ensure_index, index_for
from .boundary import INTERRUPTED_EXIT, print_json, print_refusal
from .command_kit import (
    Json,
    RepoPath,
    Revision,
    StateDir,
    exit_with,
    refusals_exit,
    show_mapping,
)
from .question_runs import run_status


@refusals_exit
def index_command(
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    revision: Revision = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Derive the index again even if one is readable.")] = False,
    json_output: Json = False,
) -> None:

    workspace = Workspace.locate(repo_path, state_dir)
    report = ensure_index(workspace, revision, rebuild=rebuild)
    summary = {
        "status": "reused" if report.reused else "indexed",
        "generation": report.generation,
        "source_revision": report.commit,
        **report.counts,
        **_match_rates(report.counts),
        "index_bytes": report.bytes,
        "elapsed_seconds": round(report.seconds, 3),
    }
    show_mapping(f"Index {summary['status']}", summary, json_output)


def _match_rates(counts: dict[str, int]) -> dict[str, float]:
    """How well the resolved layer and the provider's graph meet in this build (docs/resolver.md):
    the share of resolved definitions bound to a provider node, and of the provider's symbol and
    test nodes in the resolved files bound to a definition (absent when there is nothing to share)."""
    rates = {}
    for rate, part, whole in (
        ("resolved_definitions_matched", "resolved_definitions_on_nodes", "resolved_definitions"),
        ("resolved_nodes_matched", "resolved_nodes_with_definitions", "resolved_nodes"),
    ):
        if counts.get(whole):
            rates[rate] = round(counts.get(part, 0) / counts[whole], 4)
    return rates


class SandboxMode(StrEnum):
    auto = "auto"
    required = "required"
    off = "off"


Sandbox = Annotated[
    SandboxMode, typer.Option("--sandbox", help="Containment for the provider: auto, required or off.")
]


KeepPrevious = Annotated[bool, typer.Option("--keep-previous", help="Keep older generations.")]


BuildRevision = Annotated[str, typer.Option("--revision", help="The revision to build (default HEAD).")]
DEFAULT_TIMEOUT_SECONDS = 900.0  # the provider's default deadline (provider.DEFAULT_TIMEOUT_SECONDS)


Timeout = Annotated[float, typer.Option("--timeout", help="Seconds the provider may run.")]


Exclude = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude", metavar="GLOB",
        help="Leave matching tracked files out (vendored or generated code); repeatable. A glob over the "
        "repository-relative path (* also crosses /), or a directory.",
    ),
]


def _exclusions(globs: list[str] | None) -> tuple[str, ...]:
    """The ``--exclude`` globs, each non-empty single-line relative text (else a usage error)."""
    from ..base.rules import is_bounded_text

    for glob in globs or ():
        if not glob.strip("/") or not is_bounded_text(glob, 1024) or glob.startswith("/"):
            raise typer.BadParameter("each --exclude GLOB must be non-empty, single-line and relative.")
    return tuple(globs or ())


def _build_summary(manifest: Manifest, coverage: Coverage, report: IndexReport) -> dict[str, Any]:
    summary: dict[str, Any] = {
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
    summary["files"] = dict(coverage.files)
    summary["code_bytes"] = dict(coverage.code_bytes)
    if coverage.warning is not None:
        summary["coverage_warning"] = " ".join(coverage.warning)
    if coverage.definitions is not None:
        summary["definition_gaps"] = {
            "definitions": coverage.definitions.get("gaps", 0), "files": coverage.definitions.get("files", 0),
            "by_file": {item["path"]: item["count"]  # the files with the most, as status names them
                        for item in coverage.definitions.get("by_file", [])[:MAX_GAP_FILES_SAID]},
        }
    summary["scope_exclusions"] = dict(sorted(coverage.scope_exclusions.items()))
    summary["empty_inputs"] = coverage.empty_inputs
    if coverage.exclude:
        summary["exclude"] = coverage.exclude
    if coverage.notes:
        summary["partial_because"] = coverage.notes
    if coverage.uncovered_inputs:
        summary["uncovered_inputs"] = coverage.uncovered_inputs
    return summary


def _run_build(
    *, refresh: bool, from_graph: Path | None, repo_path: Path | None, state_dir: Path | None,
    revision: str, keep_previous: bool, sandbox: str, timeout: float, json_output: bool,
    exclude: tuple[str, ...] = (), eval_seconds: float = 0.0,
) -> None:
    from ..provider.build import build
    from ..provider.publish import publish_provider_output
    from ..provider.run import default_executable, verify_provider
    from .render import build_progress, console

    workspace = Workspace.locate(repo_path, state_dir)
    if from_graph is not None:
        manifest, coverage = publish_provider_output(
            workspace, from_graph, revision=revision, keep_previous=keep_previous, exclude=exclude
        )
        summary = _build_summary(manifest, coverage, index_for(read_generation(workspace, manifest.generation)))
    else:
        provider = verify_provider(default_executable())
        before = _current_id(workspace)
        try:
            with build_progress(console(stderr=True), enabled=not json_output) as progress:
                result = build(
                    workspace, provider, revision=revision, refresh=refresh,
                    keep_previous=keep_previous, sandbox=str(sandbox), timeout=timeout, progress=progress,
                    exclude=exclude,
                )
        except KeyboardInterrupt:
            print_refusal(reason="interrupted", message=_kept_after_interrupt(workspace, before))
            raise typer.Exit(INTERRUPTED_EXIT) from None
        summary = _build_summary(result.manifest, result.coverage, result.index)
        summary["contained"] = result.run.contained
        summary["extract_seconds"] = round(result.run.seconds, 3)
    if summary["usable"]:
        from ..feedback.autograde import grade_published

        graded = grade_published(workspace, summary["generation"], eval_seconds)
        if graded is not None:
            summary["eval"] = graded
    show_mapping("Generation published", summary, json_output)
    if not summary["usable"]:
        raise typer.Exit(1)


EvalSeconds = Annotated[float, typer.Option(
    "--eval-seconds", help="Grade the eval corpus against the new generation for at most this long (0: not at all).")]


def _eval_seconds(value: float) -> float:
    if not 0 <= value <= MAX_EVAL_SECONDS:
        raise InvalidInput(f"--eval-seconds must be a number of seconds from 0 to {MAX_EVAL_SECONDS:g}.")
    return float(value)


def _current_id(workspace: Workspace) -> str | None:
    try:
        return read_current(workspace).id
    except Refusal:
        return None


def _kept_after_interrupt(workspace: Workspace, before: str | None) -> str:
    """One sentence saying what an interrupted build left: the build only ever moves the
    ``current`` pointer by a whole publish, so comparing it with what was current before says it."""
    after = _current_id(workspace)
    if after is not None and after != before:
        return f"Generation {after} was published and is current; its index is derived on first use."
    if before is not None:
        return f"Nothing of this build was kept; generation {before} is still current."
    return "Nothing was kept; this checkout has no generation."


@refusals_exit
def build_command(
    from_graph: Annotated[
        Path | None,
        typer.Option("--from-graph", help="Publish an existing graphify-out/ instead of running the provider."),
    ] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    revision: BuildRevision = "HEAD",
    keep_previous: KeepPrevious = False,
    sandbox: Sandbox = SandboxMode.auto,
    timeout: Timeout = DEFAULT_TIMEOUT_SECONDS,
    exclude: Exclude = None,
    eval_seconds: EvalSeconds = DEFAULT_EVAL_SECONDS,
    json_output: Json = False,
) -> None:
    _run_build(
        refresh=False, from_graph=from_graph, repo_path=repo_path, state_dir=state_dir,
        revision=revision, keep_previous=keep_previous, sandbox=sandbox, timeout=timeout,
        json_output=json_output, exclude=_exclusions(exclude), eval_seconds=_eval_seconds(eval_seconds),
    )


@refusals_exit
def refresh_command(
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    revision: BuildRevision = "HEAD",
    keep_previous: KeepPrevious = False,
    sandbox: Sandbox = SandboxMode.auto,
    timeout: Timeout = DEFAULT_TIMEOUT_SECONDS,
    exclude: Exclude = None,
    eval_seconds: EvalSeconds = DEFAULT_EVAL_SECONDS,
    json_output: Json = False,
) -> None:
    _run_build(
        refresh=True, from_graph=None, repo_path=repo_path, state_dir=state_dir,
        revision=revision, keep_previous=keep_previous, sandbox=sandbox, timeout=timeout,
        json_output=json_output, exclude=_exclusions(exclude), eval_seconds=_eval_seconds(eval_seconds),
    )


def status_command(
    revision: Annotated[str, typer.Option("--revision", help="The revision to check against.")] = "HEAD",
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Treat a partial build as usable.")] = False,
    verify: Annotated[bool, typer.Option(
        "--verify", help="Hash graph.bin and the index in full instead of trusting their seals.")] = False,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    exit_with(run_status(revision=revision, allow_partial=allow_partial, verify=verify, repo_path=repo_path,
                         state_dir=state_dir, json_output=json_output))


@refusals_exit
def remove_command(
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    from .render import console

    workspace = Workspace.locate(repo_path, state_dir)
    removed = remove_graph_state(workspace)
    value = {"schema": "code_mower.contextGraphRemove.v1", "removed": removed}
    if json_output:
        print_json(value)
    else:
        console().print("Removed local graph state." if removed else "No local graph state to remove.")

