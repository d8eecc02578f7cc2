"""``cm-graph context``: code context for an agent (one subcommand per intent), the change-coupling
``history`` it can draw on, and ``fetch`` of evidence a guided session prepared.

Registered from the command table (``command_table.py``), which gives the group its name and help.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..base.errors import EXIT_CODES, UNRESOLVED_STATUSES, Refusal
from ..base.refusals import refusal_for_os_error
from ..context.intents import INTENTS
from ..generation.layout import Workspace
from .boundary import print_refusal, run_refusing
from .command_kit import (
    Connection,
    Json,
    MaxShare,
    RepoPath,
    StateDir,
    exit_with,
    refusals_exit,
    show_mapping,
    state_root,
)
from .question_runs import run_context

context_app = typer.Typer(no_args_is_help=True)  # its help is the command table's


MaxChars = Annotated[int | None, typer.Option("--max-chars", help="Character budget of the JSON answer.")]
MaxItems = Annotated[int | None, typer.Option("--max-items", help="Items a section shows at most (default 50).")]
Format = Annotated[str | None, typer.Option("--format", help="text (default), json, or (tests only) pytest-args: "
                                                             "the tests to run as pytest node ids, one a line.")]
Cursor = Annotated[str | None, typer.Option("--cursor", help="The rest of a cut section, as a next action names it.")]


def _context_command(intent: str, summary: str) -> None:
    """Register ``cm-graph context INTENT TARGET`` (one subcommand per intent)."""

    @context_app.command(intent, help=summary)
    def command(
        target: Annotated[str, typer.Argument(help="A symbol, Class.method, module.func, path::name or a path.")],
        max_chars: MaxChars = None,
        max_items: MaxItems = None,
        cursor: Cursor = None,
        repo_path: RepoPath = None,
        state_dir: StateDir = None,
        json_output: Json = False,
        format_: Format = None,
        max_share: MaxShare = None,
    ) -> None:
        from .pytest_args import check_format, check_share_with

        printed = False

        def test_list() -> None:
            nonlocal printed
            shape = check_format(format_, json_output)
            share = check_share_with(shape, max_share)
            if shape == "pytest-args":
                _pytest_args(Workspace.locate(repo_path, state_dir), intent, target, cursor, share)
                printed = True

        # --format pytest-args prints a test list, not an answer (the fast entry never takes it),
        # and nothing after it: `pytest $(…)` reads every line; a bad --format or --max-share is
        # refused before anything is read; json and text answer as the fast entry does.
        if (format_ is not None and format_ != "json") or max_share is not None:
            exit_with(run_refusing(test_list, json_output))
            if printed:
                return
        exit_with(run_context(intent=intent, target=target, max_chars=max_chars, max_items=max_items, cursor=cursor,
                              repo_path=repo_path, state_dir=state_dir, json_output=json_output or format_ == "json"))


@context_app.command("prime")
@refusals_exit
def context_prime_command(
    task: Annotated[str, typer.Argument(help="The task as a person writes it; `backticked` names are taken as code.")],
    files: Annotated[list[str] | None, typer.Option("--files", help="A file to anchor on too (repeatable).")] = None,
    changes: Annotated[bool, typer.Option("--changes", help="Anchor on what the worktree diff touches too.")] = False,
    max_chars: Annotated[int | None, typer.Option("--max-chars", help="Character budget (default 6000).")] = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
) -> None:
    """The code area a task names, for an agent's first turn: each anchor, its callers, callees, tests."""
    from ..base.jsonio import dumps_wire
    from ..context.prime import prime

    workspace = Workspace.locate(repo_path, state_dir)
    document = prime(workspace, task, files=files, changes=changes, max_chars=max_chars)
    if json_output:
        sys.stdout.write(dumps_wire(document) + "\n")
    else:
        from .context_view import print_prime
        from .render import console

        print_prime(console(), document)
    if document["status"] != "answered":
        print_refusal(document["status"], "The task names no symbol or path this graph holds.")
        raise typer.Exit(EXIT_CODES["unresolved"])


def _pytest_args(workspace: Workspace, intent: str, target: str, cursor: str | None, share: float) -> None:
    """``context tests TARGET --format pytest-args``: the tests to run for the target, unbudgeted
    but for the item bound, the nearest within ``share`` of the suite."""
    from ..base.errors import InvalidInput
    from ..context.budget import MAX_CHARS, MAX_ITEMS
    from ..context.from_workspace import code_context, known_suite
    from ..context.test_selection import within_share
    from ..context.testrun import to_run
    from ..context.wire import header, section_items
    from .pytest_args import write_pytest_args

    if intent != "tests" or cursor is not None:
        raise InvalidInput("--format pytest-args is for `cm-graph context tests TARGET` (no --cursor).")
    document = code_context(workspace, intent, target, max_chars=MAX_CHARS, max_items=MAX_ITEMS)
    if document["status"] != "answered":
        print_refusal(document["status"], document["answer"])
        raise typer.Exit(EXIT_CODES["unresolved" if document["status"] in UNRESOLVED_STATUSES else "refused"])
    section = document["sections"]["tests_to_run"]
    items = section_items(section)
    selection = within_share(known_suite(workspace), [item["id"] for item in to_run(items)[0]], share)
    write_pytest_args(items, header(section)["total"], selection.header())


@context_app.command("history")
@refusals_exit
def context_history_command(repo_path: RepoPath = None, state_dir: StateDir = None, json_output: Json = False) -> None:
    """Build the change coupling of the current generation from its commit's git ancestry."""
    from ..context.from_workspace import build_history_for

    summary = build_history_for(Workspace.locate(repo_path, state_dir))
    show_mapping("Change-coupling history built", summary, json_output)


for _intent in INTENTS:
    _context_command(_intent.name, _intent.summary)


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
    from ..evidence.availability import exit_code
    from .render import console, print_evidence

    store = ConnectionStore(state_root(state_dir))
    try:
        revision = consuming_revision(Path.cwd())
        packet = load_authorized(store, connection, handle, recipient, revision)
    except (Refusal, OSError) as caught:
        # A fault of the machine (read-only or full store) is unavailable evidence like any
        # other refusal: paused under a required policy, degraded under an optional one.
        refusal = caught if isinstance(caught, Refusal) else refusal_for_os_error(caught)
        required = entry_required(store, connection, handle)
        outcome = unavailable(required, refusal.reason, refusal.message, stage="fetching")
        show_mapping(f"Context: {outcome['status']}", outcome, json_output)
        print_refusal(refusal.reason, refusal.message)
        raise typer.Exit(exit_code(outcome)) from None
    evidence = render_evidence(packet)
    if json_output:
        from ..base.printable import printable_json

        sys.stdout.write(printable_json(evidence.decode("utf-8")) + "\n")
    else:
        print_evidence(console(), packet)


