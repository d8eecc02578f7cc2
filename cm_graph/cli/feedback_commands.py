"""``cm-graph feedback record|report|export|purge`` and ``cm-graph eval run``: the outcome loop.

A thin shell over ``cm_graph/feedback/``: every command runs inside the one error boundary
(``command_kit.exit_refusing``), prints data on stdout (JSON with ``--json``) and a reason and one
sentence on stderr when it refuses. ``register(app)`` adds the two groups to the application.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .boundary import print_json, print_refusal
from .command_kit import exit_refusing, show_mapping

RepoPath = Annotated[Path | None, typer.Option("--repo-path", help="A directory inside the checkout (default: cwd).")]
StateDir = Annotated[
    Path | None,
    typer.Option("--state-dir", help="Private state root (default: $CM_GRAPH_HOME or ~/.local/share/cm-graph)."),
]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]

feedback_app = typer.Typer(
    help="Record whether an answer saved reads; report, export or purge the local outcomes.", no_args_is_help=True,
)
eval_app = typer.Typer(help="Re-ask the eval corpus (correct answers) and grade the answers.", no_args_is_help=True)


@feedback_app.command("record")
def record_command(
    answer_id: Annotated[str, typer.Option("--answer-id", help="The answer_id the answer carried.")],
    target: Annotated[str, typer.Option("--target", help="The target, exactly as it was asked.")],
    reads_avoided: Annotated[int, typer.Option("--reads-avoided", help="File reads the answer saved (0 if none).")],
    files_read: Annotated[int, typer.Option("--files-read", help="Files still read after the answer.")],
    correct: Annotated[bool, typer.Option("--correct/--wrong", help="Whether the answer was right.")],
    intent: Annotated[str | None, typer.Option("--intent", help="A code_context intent (how, usage, ...).")] = None,
    question: Annotated[str | None, typer.Option("--question", help="Or one of the four questions of ask.")] = None,
    max_chars: Annotated[int | None, typer.Option("--max-chars", help="The intent's --max-chars, if given.")] = None,
    max_items: Annotated[int | None, typer.Option("--max-items", help="The intent's --max-items, if given.")] = None,
    within: Annotated[str | None, typer.Option("--in", metavar="PATH", help="The question's --in, if given.")] = None,
    depth: Annotated[int | None, typer.Option("--depth", help="The question's --depth, if given.")] = None,
    node_budget: Annotated[int | None, typer.Option("--node-budget", help="The question's --node-budget.")] = None,
    client: Annotated[str, typer.Option("--client", help="Who reports (an agent's name).")] = "cli",
    connection: Annotated[str | None, typer.Option("--connection", help="The connection it came through.")] = None,
    note: Annotated[str | None, typer.Option("--note", help="A short note; kept only with --keep-note.")] = None,
    keep_note: Annotated[bool, typer.Option("--keep-note", help="Store the note's text, not only its digest.")] = False,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Record one outcome: the answer is asked again and must reproduce its answer id."""
    if (intent is None) == (question is None):
        raise typer.BadParameter("give exactly one of --intent (code_context) or --question (ask).")

    def body() -> None:
        from ..feedback.record import record_outcome
        from ..generation.layout import Workspace

        kind, name = ("code_context", intent) if intent is not None else ("question", question)
        arguments = ({"max_chars": max_chars, "max_items": max_items} if kind == "code_context"
                     else {"within": within.strip("/") if within else None, "depth": depth, "node_budget": node_budget})
        summary = record_outcome(
            Workspace.locate(repo_path, state_dir), kind=kind, intent=str(name), target=target,
            arguments=arguments, answer_id=answer_id, client=client, reads_avoided=reads_avoided,
            files_read=files_read, correct=correct, connection=connection, note=note, keep_note=keep_note,
        )
        show_mapping(f"Outcome: {summary['status']}", summary, json_output)

    exit_refusing(body, json_output)


@feedback_app.command("report")
def report_command(repo_path: RepoPath = None, state_dir: StateDir = None, json_output: Json = False) -> None:
    """Rewards replayed from this checkout's outcomes: reads avoided per intent, the weakest capabilities."""

    def body() -> None:
        from ..feedback.manage import report_outcomes
        from ..generation.layout import Workspace

        report = report_outcomes(Workspace.locate(repo_path, state_dir))
        if json_output:
            print_json(report)
            return
        from .render import console, print_mapping

        out = console()
        print_mapping(out, f"Feedback: {report['outcomes']} outcomes, {report['capabilities']} capabilities", {
            "reads_avoided_rate": report["reads_avoided_rate"], "files_read": report["files_read"]})
        for row in report["intents"]:
            print_mapping(out, f"{row['kind']} {row['intent']} (n={row['n']})", row)
        for row in report["weakest"]:
            print_mapping(out, f"weak: {row['capability_id']} (n={row['n']})", row)

    exit_refusing(body, json_output)


@feedback_app.command("export")
def export_command(repo_path: RepoPath = None, state_dir: StateDir = None) -> None:
    """Print every outcome and eval case of this checkout as JSON (replay order)."""

    def body() -> None:
        from ..feedback.manage import export_outcomes
        from ..generation.layout import Workspace

        print_json(export_outcomes(Workspace.locate(repo_path, state_dir)))

    exit_refusing(body, True)


@feedback_app.command("purge")
def purge_command(
    connection: Annotated[str | None, typer.Option("--connection", help="Only this connection's outcomes.")] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Delete this checkout's outcomes and eval cases (or one connection's)."""

    def body() -> None:
        from ..feedback.manage import purge_outcomes
        from ..generation.layout import Workspace

        summary = purge_outcomes(Workspace.locate(repo_path, state_dir), connection)
        show_mapping("Feedback purged", summary, json_output)

    exit_refusing(body, json_output)


@eval_app.command("run")
def eval_run_command(
    min_overlap: Annotated[
        float | None, typer.Option("--min-overlap", help="Least Jaccard of the cited sets on a later generation (0.5).")
    ] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """Re-ask every eval case; exit 1 when a case is not reproduced or regressed."""

    def body() -> int:
        from ..feedback.evalrun import run_eval
        from ..generation.layout import Workspace

        result = run_eval(Workspace.locate(repo_path, state_dir), min_overlap)
        if json_output:
            print_json(result)
        else:
            from .render import console, print_mapping

            out = console()
            print_mapping(out, f"Eval: {result['status']} ({result['cases']} cases)", result["counts"])
            for row in result["results"]:
                print_mapping(out, f"{row['verdict']}: {row['capability_id']}",
                              {k: v for k, v in row.items() if k not in ("verdict", "capability_id")})
        if result["status"] == "failed":
            failed = len(result["regressions"])
            reason = "eval_failed"
            print_refusal(reason, f"{failed} of {result['cases']} eval cases were not reproduced or regressed.")
            return 1
        return 0

    exit_refusing(body, json_output)
