"""The ``cm-graph`` command: a thin typer shell over the library.

One error boundary: every expected refusal becomes a reason code and one sentence on stderr (and
a JSON object on stdout with ``--json``) with exit code 1. Usage errors exit 2. Bugs still raise.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from ..generation.coverage import Coverage
    from ..generation.manifest import Manifest
    from ..index.format import IndexReport

from .. import __version__
from ..base.errors import InvalidInput, Refusal
from ..base.git import changed_tracked_files
from ..base.jsonio import dumps_canonical
from ..base.privfs import read_regular_file, write_private_atomic
from ..base.refusals import refusal_for_os_error
from ..evidence.authorization import (
    POLICY_SCHEMA,
    mint_envelope,
    parse_authorization,
    parse_envelope,
)
from ..generation.layout import Workspace, default_state_root, resolve_checkout
from ..generation.status import graph_status, require_current
from ..generation.store import read_current, read_generation, remove_graph_state
from ..index.ensure import ensure_index, index_for, open_index_for, search_readiness
from ..query.questions import check_budget, check_depth
from ..query.questions import question as question_spec
from .boundary import print_json, print_refusal, run_refusing
from .feedback_commands import register as register_feedback

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
    def wrapper(*args: Any, **kwargs: Any) -> None:
        code = run_refusing(lambda: func(*args, **kwargs), bool(kwargs.get("json_output")))
        if code:
            raise typer.Exit(code)

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
    from .render import console, print_mapping

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
        print_json(summary)
    else:
        print_mapping(console(), f"Index {summary['status']}", summary)


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
    exclude: tuple[str, ...] = (),
) -> None:
    from ..provider.build import build
    from ..provider.publish import publish_provider_output
    from ..provider.run import default_executable, verify_provider
    from .render import build_progress, console, print_mapping

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
            sys.stderr.write(f"cm-graph: interrupted; {_kept_after_interrupt(workspace, before)}\n")
            raise typer.Exit(130) from None
        summary = _build_summary(result.manifest, result.coverage, result.index)
        summary["contained"] = result.run.contained
        summary["extract_seconds"] = round(result.run.seconds, 3)
    if json_output:
        print_json(summary)
    else:
        print_mapping(console(), "Generation published", summary)
    if not summary["usable"]:
        raise typer.Exit(1)


def _current_id(workspace: Workspace) -> str | None:
    try:
        return read_current(workspace).id
    except Refusal:
        return None


def _kept_after_interrupt(workspace: Workspace, before: str | None) -> str:
    """One clause saying what an interrupted build left: the build only ever moves the
    ``current`` pointer by a whole publish, so comparing it with what was current before says it."""
    after = _current_id(workspace)
    if after is not None and after != before:
        return f"generation {after} was published and is current; its index is derived on first use."
    if before is not None:
        return f"nothing of this build was kept; generation {before} is still current."
    return "nothing was kept; this checkout has no generation."


@app.command("build")
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
    json_output: Json = False,
) -> None:
    """Run the pinned provider on REVISION, publish the generation and index it."""
    _run_build(
        refresh=False, from_graph=from_graph, repo_path=repo_path, state_dir=state_dir,
        revision=revision, keep_previous=keep_previous, sandbox=sandbox, timeout=timeout,
        json_output=json_output, exclude=_exclusions(exclude),
    )


@app.command("refresh")
@refusals_exit
def refresh_command(
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    revision: BuildRevision = "HEAD",
    keep_previous: KeepPrevious = False,
    sandbox: Sandbox = SandboxMode.auto,
    timeout: Timeout = DEFAULT_TIMEOUT_SECONDS,
    exclude: Exclude = None,
    json_output: Json = False,
) -> None:
    """Like build, but also when the graph is already current."""
    _run_build(
        refresh=True, from_graph=None, repo_path=repo_path, state_dir=state_dir,
        revision=revision, keep_previous=keep_previous, sandbox=sandbox, timeout=timeout,
        json_output=json_output, exclude=_exclusions(exclude),
    )


class QuestionName(StrEnum):
    impact = "impact"
    dependency = "dependency"
    symbol = "symbol"
    related_tests = "related_tests"


Depth = Annotated[int | None, typer.Option("--depth", help="Hop limit, 1..4 (default per question).")]
Budget = Annotated[int | None, typer.Option("--node-budget", help="Relationship budget, 1..200 (default 40).")]


@app.command("query")
def query_command(
    question: Annotated[QuestionName, typer.Option("--question", help="The bounded question to ask.")],
    target: Annotated[
        list[str], typer.Option("--target", help="A symbol name or a repository-relative path (once).")
    ],
    authorization: Annotated[
        Path, typer.Option("--authorization", help="JSON file: connection envelope, policy, repository, work_item.")
    ],
    packet_out: Annotated[
        Path | None, typer.Option("--packet-out", help="Where to write the evidence packet (0600, atomic).")
    ] = None,
    revision: Annotated[str, typer.Option("--revision", help="The revision the answer must be about.")] = "HEAD",
    depth: Depth = None,
    node_budget: Budget = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    show: Annotated[
        bool, typer.Option("--show", help="Also render the relationships on stderr for the operator.")
    ] = False,
    json_output: Json = False,
) -> None:
    """Answer one bounded question; stdout gets metadata only, the evidence goes to --packet-out."""
    from .query import run_query

    if len(target) != 1:
        # click keeps the last of a repeated option; answering it silently would mint evidence
        # about a target the caller may not have meant. One question, one target.
        raise typer.BadParameter("give --target once; `cm-graph ask` answers several targets.")
    raise typer.Exit(run_query(
        question=question.value, target=target[0], authorization=authorization, packet_out=packet_out,
        revision=revision, depth=depth, node_budget=node_budget, repo_path=repo_path,
        state_dir=state_dir, show=show, json_output=json_output,
    ))


@app.command("ask")
@refusals_exit
def ask_command(
    question: Annotated[QuestionName, typer.Argument(help="impact, dependency, symbol or related_tests.")],
    targets: Annotated[
        list[str],
        typer.Argument(metavar="TARGET...", help="Symbol names or repository-relative paths; each is answered."),
    ],
    within: Annotated[
        str | None, typer.Option("--in", metavar="PATH", help="Only definitions in this file or under this directory.")
    ] = None,
    revision: Annotated[str, typer.Option("--revision", help="The revision the answer must be about.")] = "HEAD",
    depth: Depth = None,
    node_budget: Budget = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    allow_partial: Annotated[
        bool, typer.Option("--allow-partial", help="Answer from a partial build too (never minted into a packet).")
    ] = False,
    json_output: Json = False,
) -> None:
    """Show an answer's relationships on the terminal, for the operator (no packet is written)."""
    from ..evidence.askview import answer_targets

    workspace = Workspace.locate(repo_path, state_dir)
    generation = require_current(workspace, revision, require_complete=not allow_partial)
    spec = question_spec(question.value)
    scope = within.strip("/") if within is not None else None
    if scope is not None and not scope:
        raise typer.BadParameter("--in PATH must name a repository-relative file or directory.")
    connection = open_index_for(generation)
    try:
        answers = answer_targets(
            connection, spec, targets, check_depth(depth, spec), check_budget(node_budget), scope,
            generation=generation.id,
        )
    finally:
        connection.close()
    unresolved = any(not data["resolved"] for data in answers)
    _print_answers(answers, json_output, changed_tracked_files(workspace.checkout) if unresolved else 0)


def _edits_note(changed: int) -> str:
    files = f"{changed} tracked file{'s' if changed != 1 else ''}"
    return (f"{files} changed since the bound commit; the graph (and every answer) is of the commit, "
            "not of these edits: commit them and run cm-graph refresh to ask about them.")


def _print_answers(answers: list[dict[str, Any]], json_output: bool, changed: int = 0) -> None:
    """Every answer on stdout (one JSON object with --json); each unresolved target then refuses
    on stderr with its suggestions, and the exit code is 1 if any did."""
    from .render import console, print_answer_data

    unresolved = [data for data in answers if not data["resolved"]]
    if json_output:
        print_json({"schema": "cm_graph.ask.v1", "answers": answers})
    else:
        out = console()
        for data in answers:
            if data["resolved"]:
                print_answer_data(out, data)
    for data in unresolved:
        near = [item["text"] for item in data["suggestions"]]
        hint = f" Did you mean: {'; '.join(near)}?" if near else ""
        if changed:
            hint += f" (Note: {_edits_note(changed)})"
        print_refusal("unresolved", (
            f"{data['target']} names no symbol or path in the graph; name a symbol as the provider "
            f"labels it or a repository-relative path.{hint}"
        ))
    if unresolved:
        raise typer.Exit(1)


@app.command("symbols")
@refusals_exit
def symbols_command(
    path: Annotated[str, typer.Argument(help="A repository-relative file path, as the graph records it.")],
    revision: Annotated[str, typer.Option("--revision", help="The revision the graph must be about.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Read a partial build too.")] = False,
    json_output: Json = False,
) -> None:
    """List a file's definitions (label, kind, line) from the index, by line."""
    from ..base.rules import is_bounded_text
    from ..query.suggest import suggestions
    from ..query.symbols import file_symbols
    from .render import console, print_symbols

    if not is_bounded_text(path.strip("/"), 1024):
        raise Refusal("Name a repository-relative file path (one line, not blank).", reason="invalid")
    workspace = Workspace.locate(repo_path, state_dir)
    generation = require_current(workspace, revision, require_complete=not allow_partial)
    connection = open_index_for(generation)
    try:
        listed: list[dict[str, object]] = []
        for candidate in _repository_paths(workspace.checkout, path):
            listed = file_symbols(connection, candidate)
            if listed:
                path = candidate
                break
        near = [] if listed else [str(item["text"]) for item in suggestions(connection, path) if item["why"] == "path"]
    finally:
        connection.close()
    if not listed:
        hint = f" Did you mean: {'; '.join(near)}?" if near else ""
        raise Refusal(f"The graph has no definition in that file.{hint}", reason="unresolved")
    if json_output:
        print_json({"schema": "cm_graph.symbols.v1", "path": path, "symbols": listed})
    else:
        print_symbols(console(), path, listed)


def _repository_paths(checkout: Path, given: str) -> list[str]:
    """The repository-relative spellings a user's path can mean, in order: as written (``./``,
    ``..`` and slashes normalised), then from the current directory (an absolute path, or a
    path typed inside a subdirectory of the checkout)."""
    spellings = [os.path.normpath(given.strip("/") or ".")]
    try:
        spellings.append(Path(os.path.abspath(given)).relative_to(checkout).as_posix())
    except ValueError:
        pass
    return list(dict.fromkeys(s for s in spellings if s not in (".", "") and not s.startswith("..")))


auth_app = typer.Typer(help="Authorization files for `cm-graph query`.", no_args_is_help=True)
app.add_typer(auth_app, name="auth")


@auth_app.command("init")
@refusals_exit
def auth_init_command(
    connection: Annotated[str, typer.Option("--connection", help="Connection name (lowercase identifier).")],
    repository: Annotated[
        list[str], typer.Option("--repository", help="Approved repository, owner/repo (repeatable).")
    ],
    recipient: Annotated[list[str], typer.Option("--recipient", help="Approved recipient, host:role (repeatable).")],
    required: Annotated[
        bool, typer.Option("--required/--optional", help="Whether dependent work pauses without graph context.")
    ] = True,
    work_item: Annotated[str, typer.Option("--work-item", help="The work item the evidence is for.")] = "local-work",
    policy_version: Annotated[str, typer.Option("--policy-version", help="Policy version identifier.")] = "v1",
    max_documents: Annotated[
        int, typer.Option("--max-documents", help="Documents per packet (1..50; at most 16 are emitted).")
    ] = 5,
    revision: Annotated[str, typer.Option("--revision", help="The revision the graph must be current for.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the file privately (0600, atomic) instead of to stdout.")
    ] = None,
) -> None:
    """Print (or write with --out) an authorization file for the current generation (valid for one hour)."""
    workspace = Workspace.locate(repo_path, state_dir)
    generation = require_current(workspace, revision)
    now = datetime.now(UTC)
    policy = {
        "schema": POLICY_SCHEMA, "connection": connection, "policy_version": policy_version,
        "required": required, "max_documents": max_documents,
    }
    document = {
        "connection": mint_envelope(
            connection=connection, generation=generation.id,
            repository_root=str(workspace.checkout), repositories=list(repository),
            recipients=list(recipient), now=now,
        ),
        "policy": policy,
        "repository": repository[0],
        "work_item": work_item,
    }
    data = dumps_canonical(document)
    authorization_check = parse_authorization(data)
    parse_envelope(authorization_check.envelope_json, now)
    if out is None:
        print_json(document)
    else:
        write_private_atomic(Path(os.path.abspath(out)), data)


@app.command("status")
@refusals_exit
def status_command(
    revision: Annotated[str, typer.Option("--revision", help="The revision to check against.")] = "HEAD",
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Treat a partial build as usable.")] = False,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Say whether the checkout's graph is usable for REVISION, and whether search is ready."""
    from .render import console, print_status

    workspace = Workspace.locate(repo_path, state_dir)
    status = graph_status(workspace, revision, require_complete=not allow_partial)
    value = status.to_json(search_readiness(status))
    changed = changed_tracked_files(workspace.checkout) if status.generation is not None else 0
    if changed:
        additions = value.setdefault("cm_graph", {})
        additions["changed_tracked_files"] = changed
        additions["working_tree"] = _edits_note(changed)
    if json_output:
        print_json(value)
    else:
        print_status(console(), value)
    raise typer.Exit(0 if status.usable and value["search"] == "available" else 1)


@app.command("remove")
@refusals_exit
def remove_command(
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Delete this checkout's graph state: generations and indexes."""
    from .render import console

    workspace = Workspace.locate(repo_path, state_dir)
    removed = remove_graph_state(workspace)
    value = {"schema": "code_mower.contextGraphRemove.v1", "removed": removed}
    if json_output:
        print_json(value)
    else:
        console().print("Removed local graph state." if removed else "No local graph state to remove.")


@app.command("doctor")
@refusals_exit
def doctor_command(
    revision: Annotated[str, typer.Option("--revision", help="The revision to check against.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Check the provider install and pin, containment, state privacy, generation and index."""
    from ..audit.doctor import run_doctor
    from .render import console, print_doctor

    workspace = Workspace.locate(repo_path, state_dir)
    report = run_doctor(workspace, revision)
    if json_output:
        print_json(report)
    else:
        print_doctor(console(), report)
    raise typer.Exit(1 if report["status"] == "fail" else 0)


@app.command("audit")
@refusals_exit
def audit_command(
    generation: Annotated[str | None, typer.Option("--generation", help="A generation id (default: current).")] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Re-derive a generation's index and compare it with the stored one, byte for byte."""
    from ..audit.rederive import audit as run_audit
    from .render import console, print_audit

    workspace = Workspace.locate(repo_path, state_dir)
    target = read_generation(workspace, generation) if generation else read_current(workspace)
    report = run_audit(target)
    if json_output:
        print_json(report)
    else:
        print_audit(console(), report)
    raise typer.Exit(0 if report["status"] == "pass" else 1)


@app.command("diff")
@refusals_exit
def diff_command(
    old: Annotated[str, typer.Argument(help="A generation id, an index file, or a revision.")],
    new: Annotated[str, typer.Argument(help="A generation id, an index file, or a revision.")],
    limit: Annotated[int, typer.Option("--limit", min=0, help="Rows listed per section.")] = 50,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """What changed in the code graph between two generations: nodes, relationships, files."""
    from ..audit.diff import open_diff, operator_exclusions, resolve_side, summarise
    from .render import console, print_diff

    workspace = Workspace.locate(repo_path, state_dir)
    diff = open_diff(resolve_side(workspace, old), resolve_side(workspace, new))
    try:
        report = summarise(diff, limit)
    finally:
        diff.close()
    exclusions = {"old": operator_exclusions(workspace, old), "new": operator_exclusions(workspace, new)}
    if exclusions["old"] != exclusions["new"]:
        report["exclude"] = exclusions
    if json_output:
        print_json(report)
    else:
        print_diff(console(), report)


@app.command("export")
@refusals_exit
def export_command(
    generation: Annotated[str | None, typer.Option("--generation", help="A generation id (default: current).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="jsonl (one sorted object per row) or sql.")] = "jsonl",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
) -> None:
    """Write a canonical, sorted text dump of an index to stdout (for diff, sqlite-utils, sqlite3)."""
    from ..audit.export import FORMATS as EXPORT_FORMATS
    from ..audit.export import export_lines

    if fmt not in EXPORT_FORMATS:
        raise InvalidInput("--format must be jsonl or sql.")
    workspace = Workspace.locate(repo_path, state_dir)
    target = read_generation(workspace, generation) if generation else read_current(workspace)
    path = workspace.index_path(target.id)
    if not os.path.isfile(path):
        raise Refusal("That generation has no index yet; run `cm-graph index`.", reason="absent")
    out = sys.stdout
    try:
        for line in export_lines(path, fmt):
            out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        # The reader stopped early (`cm-graph export | head`): not a failure of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        raise typer.Exit(0) from None


@app.command("score")
@refusals_exit
def score_command(
    packet: Annotated[Path, typer.Argument(help="A delivered code_mower.contextPacket.v1 file.")],
    revision: Annotated[str, typer.Option("--revision", help="The checkout's revision to compare with.")] = "HEAD",
    repo_path: RepoPath = None,
    json_output: Json = False,
) -> None:
    """Score a packet's citations against a checkout: resolution rate, revision state, gate."""
    from ..audit.score import MAX_PACKET_BYTES, score_packet
    from .render import console, print_mapping

    data = read_regular_file(packet, MAX_PACKET_BYTES, "packet file")
    checkout = resolve_checkout(repo_path)
    report = score_packet(data, checkout, revision)
    if json_output:
        print_json(report)
    else:
        print_mapping(console(), f"Evidence score: {report['gate']}", report)
    raise typer.Exit(0 if report["gate"] == "pass" else 1)


Connection = Annotated[str, typer.Option("--connection", help="Connection name (lowercase identifier).")]


@app.command("connect")
@refusals_exit
def connect_command(
    connection: Connection,
    repository: Annotated[
        list[str], typer.Option("--repository", help="Approved repository, owner/repo (repeatable).")
    ],
    recipient: Annotated[list[str], typer.Option("--recipient", help="Approved recipient, host:role (repeatable).")],
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Register this checkout's graph as a local connection (no credential, no network)."""
    from ..connections.store import ConnectionStore, connect

    workspace = Workspace.locate(repo_path, state_dir)
    summary = connect(ConnectionStore(workspace.root), connection, workspace.checkout, repository, recipient)
    _print_connection(summary, json_output)


@app.command("connection-status")
@refusals_exit
def connection_status_command(
    connection: Connection,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Whether the connection could authorize evidence now; exit 0 only when it could."""
    from ..connections.store import ConnectionStore, connection_status

    summary = connection_status(ConnectionStore(_state_root(state_dir)), connection)
    _print_connection(summary, json_output)
    raise typer.Exit(0 if summary["authorization"] == "available" else 1)


@app.command("disconnect")
@refusals_exit
def disconnect_command(
    connection: Connection,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Disconnect and purge the connection's packets and outcomes."""
    from ..connections.store import ConnectionStore
    from ..feedback.manage import disconnect_and_purge

    summary = disconnect_and_purge(ConnectionStore(_state_root(state_dir)), connection)
    _print_connection(summary, json_output)
    raise typer.Exit(0 if summary["packet_cleanup"] == summary["outcome_cleanup"] == "complete" else 1)


def _state_root(state_dir: Path | None) -> Path:
    return Path(state_dir) if state_dir is not None else default_state_root()


def _print_connection(summary: dict[str, Any], json_output: bool) -> None:
    from .render import console, print_mapping

    if json_output:
        print_json(summary)
    else:
        rows = {k: v for k, v in summary.items() if k not in ("schema", "graph", "query_reader")}
        print_mapping(console(), f"Connection: {summary['status']}", rows)


session_app = typer.Typer(help="Guided sessions.", no_args_is_help=True)
app.add_typer(session_app, name="session")
context_app = typer.Typer(
    help="Code context for an agent (how, usage, impact, tests), and evidence from connections.",
    no_args_is_help=True,
)
app.add_typer(context_app, name="context")
MaxChars = Annotated[int | None, typer.Option("--max-chars", help="Character budget of the JSON answer.")]


def _context_command(intent: str, summary: str) -> None:
    """Register ``cm-graph context INTENT TARGET`` (one subcommand per intent)."""

    @context_app.command(intent, help=summary)
    @refusals_exit
    def command(
        target: Annotated[str, typer.Argument(help="A symbol, Class.method, module.func, path::name or a path.")],
        max_chars: MaxChars = None,
        repo_path: RepoPath = None,
        state_dir: StateDir = None,
        json_output: Json = False,
    ) -> None:
        from ..context.run import code_context
        from ..context.shape import dumps

        workspace = Workspace.locate(repo_path, state_dir)
        document = code_context(workspace, intent, target, max_chars=max_chars)
        if json_output:
            sys.stdout.write(dumps(document) + "\n")
        else:
            from .context_view import print_context
            from .render import console

            print_context(console(), document)
        if document["status"] != "answered":
            print_refusal(document["status"], document["answer"])
            raise typer.Exit(1)


@context_app.command("history")
@refusals_exit
def context_history_command(repo_path: RepoPath = None, state_dir: StateDir = None, json_output: Json = False) -> None:
    """Build the change coupling of the current generation from its commit's git ancestry."""
    from ..context.run import build_history_for

    summary = build_history_for(Workspace.locate(repo_path, state_dir))
    if json_output:
        print_json(summary)
    else:
        from .render import console, print_mapping

        print_mapping(console(), "Change-coupling history built", summary)


for _intent, _summary in (
    ("how", "How it works: what it calls (depth 2) and defines, with citations."),
    ("usage", "Where it is used: callers with call sites, references, tests, similar code."),
    ("impact", "What breaks if it changes: transitive callers by hop, and the tests that reach it."),
    ("tests", "The tests that reach it, each with its reaching path."),
):
    _context_command(_intent, _summary)


@session_app.command("init")
@refusals_exit
def session_init_command(
    session_file: Annotated[Path, typer.Argument(help="Where to write the cm_graph.session.v1 file (0600).")],
    connection: Connection,
    repository: Annotated[str, typer.Option("--repository", help="The repository the work is in, owner/repo.")],
    recipient: Annotated[str, typer.Option("--recipient", help="Who reads the evidence, host:role.")],
    work_item: Annotated[str, typer.Option("--work-item", help="The work item the evidence is for.")],
    directory: Annotated[
        Path | None, typer.Option("--directory", help="The directory the work happens in (default: cwd).")
    ] = None,
    required: Annotated[
        bool, typer.Option("--required/--optional", help="Whether dependent work pauses without graph context.")
    ] = True,
    policy_version: Annotated[str, typer.Option("--policy-version", help="Policy version identifier.")] = "v1",
    max_documents: Annotated[int, typer.Option("--max-documents", help="Documents per packet (1..50).")] = 5,
    json_output: Json = False,
) -> None:
    """Write a session file from flags (0600, atomic), checked as `session prepare` reads it."""
    from ..connections.session import session_document

    document = session_document(
        connection=connection, repository=repository, recipient=recipient, work_item=work_item,
        directory=Path(os.path.abspath(directory if directory is not None else Path.cwd())),
        required=required, policy_version=policy_version, max_documents=max_documents,
    )
    write_private_atomic(Path(os.path.abspath(session_file)), dumps_canonical(document))
    if json_output:
        print_json(document)


@session_app.command("prepare")
@refusals_exit
def session_prepare_command(
    session_file: Annotated[Path, typer.Argument(help="A cm_graph.session.v1 file.")],
    question: Annotated[QuestionName, typer.Option("--question", help="The bounded question.")] = QuestionName.symbol,
    query_stdin: Annotated[
        bool, typer.Option("--query-stdin", help="Read the target (symbol or path) from stdin.")
    ] = False,
    query_text: Annotated[
        str | None, typer.Option("--query", metavar="TEXT", help="The target (symbol or path), instead of stdin.")
    ] = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Ask again even if the store has an answer.")] = False,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Prepare graph evidence for a session's work; prints the packet handle, never the evidence."""
    from ..connections.session import MAX_SESSION_BYTES, parse_session, prepare
    from ..connections.store import ConnectionStore
    from .render import console, print_mapping

    if query_stdin == (query_text is not None):
        raise InvalidInput("Give the target once: --query TEXT, or on stdin with --query-stdin.")
    session = parse_session(read_regular_file(session_file, MAX_SESSION_BYTES, "session file"))
    query = (sys.stdin.read(4096) if query_stdin else query_text or "")[:4096].strip()
    outcome, code = prepare(ConnectionStore(_state_root(state_dir)), session, question.value, query, refresh=refresh)
    if json_output:
        print_json(outcome)
    else:
        print_mapping(console(), f"Session context: {outcome['status']}", outcome)
    raise typer.Exit(code)


@context_app.command("fetch")
@refusals_exit
def context_fetch_command(
    connection: Connection,
    handle: Annotated[str, typer.Option("--handle", help="The packet handle prepare printed.")],
    recipient: Annotated[str, typer.Option("--recipient", help="Who is reading, host:role.")],
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Re-authorize and print the evidence for RECIPIENT (identical for every approved one)."""
    from ..connections.session import unavailable
    from ..connections.store import (
        ConnectionStore,
        consuming_revision,
        entry_required,
        load_authorized,
        render_evidence,
    )
    from .render import console, print_evidence, print_mapping

    store = ConnectionStore(_state_root(state_dir))
    try:
        revision = consuming_revision(Path.cwd())
        packet = load_authorized(store, connection, handle, recipient, revision)
    except (Refusal, OSError) as caught:
        # A fault of the machine (read-only or full store) is unavailable evidence like any
        # other refusal: paused under a required policy, degraded under an optional one.
        refusal = caught if isinstance(caught, Refusal) else refusal_for_os_error(caught)
        required = entry_required(store, connection, handle)
        outcome = unavailable(required, refusal.reason, refusal.message, stage="fetching")
        if json_output:
            print_json(outcome)
        else:
            print_mapping(console(), f"Context: {outcome['status']}", outcome)
        print_refusal(refusal.reason, refusal.message)
        raise typer.Exit(1 if required else 0) from None
    evidence = render_evidence(packet)
    if json_output:
        sys.stdout.write(evidence.decode("utf-8") + "\n")
    else:
        print_evidence(console(), packet)


register_feedback(app)


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

