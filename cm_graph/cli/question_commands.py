"""The questions: ``query`` mints a packet for an agent (its body is ``cli/query.py``, which the fast
entry also runs), ``ask`` shows answers to the operator, ``symbols`` lists a file's definitions.

Registered from the command table (``command_table.py``), which gives each command its name and help.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from ..base.errors import EXIT_CODES
from ..base.git import changed_tracked_files
from ..generation.definitions import recorded_gaps
from ..generation.layout import Workspace
from ..query.targets import path_spelling
from .boundary import print_json, print_refusal
from .command_kit import (
    AnswerRevision,
    Budget,
    Depth,
    Json,
    QuestionName,
    RepoPath,
    StateDir,
    edits_note,
    refusals_exit,
    table_option,
)


def query_command(
    question: Annotated[QuestionName, table_option("--question")],
    target: Annotated[list[str], table_option("--target")],
    authorization: Annotated[Path, table_option("--authorization")],
    packet_out: Annotated[Path | None, table_option("--packet-out")] = None,
    revision: AnswerRevision = "HEAD",
    depth: Depth = None,
    node_budget: Budget = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    show: Annotated[bool, table_option("--show")] = False,
    json_output: Json = False,
) -> None:
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
    revision: AnswerRevision = "HEAD",
    depth: Depth = None,
    node_budget: Budget = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    allow_partial: Annotated[
        bool, typer.Option("--allow-partial", help="Answer from a partial build too (never minted into a packet).")
    ] = False,
    json_output: Json = False,
) -> None:
    from ..evidence.ask import Unusable, open_question
    from ..evidence.askview import answer_targets

    workspace = Workspace.locate(repo_path, state_dir)
    opened = open_question(workspace, question.value, depth, node_budget, revision=revision,
                           require_complete=not allow_partial, trust_seal=False)
    if isinstance(opened, Unusable):
        raise opened.error
    try:
        scope = within.strip("/") if within is not None else None
        if scope is not None and not scope:
            raise typer.BadParameter("--in PATH must name a repository-relative file or directory.")
        answers = answer_targets(opened.connection, opened.spec, targets, opened.depth, opened.budget, scope,
                                 generation=opened.generation.id, gaps=recorded_gaps(opened.generation))
    finally:
        opened.connection.close()
    unresolved = any(not data["resolved"] for data in answers)
    _print_answers(answers, json_output, changed_tracked_files(workspace.checkout) if unresolved else 0)


def _print_answers(answers: list[dict[str, Any]], json_output: bool, changed: int = 0) -> None:
    """Every answer on stdout (one JSON object with --json); each unresolved target then refuses
    on stderr with its suggestions, and the exit code is 1 if any did."""
    from ..evidence.askview import dropped_note
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
            hint += f" (Note: {edits_note(changed)})"
        hint += dropped_note(data)
        print_refusal("unresolved", (
            f"{data['target']} names no symbol or path in the graph; name a symbol as the provider "
            f"labels it or a repository-relative path.{hint}"
        ))
    if unresolved:
        raise typer.Exit(EXIT_CODES["unresolved"])


@refusals_exit
def symbols_command(
    path: Annotated[str, typer.Argument(help="A repository-relative file path, as the graph records it.")],
    revision: Annotated[str, typer.Option("--revision", help="The revision the graph must be about.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Read a partial build too.")] = False,
    json_output: Json = False,
) -> None:
    from ..evidence.filesymbols import file_definitions, require_path
    from .render import console, print_symbols

    require_path(path)
    workspace = Workspace.locate(repo_path, state_dir)
    answer = file_definitions(workspace, path, _repository_paths(workspace.checkout, path), revision=revision,
                              allow_partial=allow_partial)
    if json_output:
        print_json(answer)
    else:
        print_symbols(console(), answer["path"], answer["symbols"], answer.get("dropped", []))


def _repository_paths(checkout: Path, given: str) -> list[str]:
    """The repository-relative spellings a user's path can mean, in order: as written (``./``,
    ``..`` and slashes normalised), then from the current directory (an absolute path, or a
    path typed inside a subdirectory of the checkout)."""
    spellings = [path_spelling(given.strip("/"))]
    try:
        spellings.append(Path(os.path.abspath(given)).relative_to(checkout).as_posix())
    except ValueError:
        pass
    return list(dict.fromkeys(s for s in spellings if s not in (".", "") and not s.startswith("..")))

