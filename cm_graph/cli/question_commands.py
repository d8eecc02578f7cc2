"""The questions: ``query`` mints a packet for an agent (its body is ``cli/query.py``, which the fast
entry also runs), ``ask`` shows answers to the operator, ``symbols`` lists a file's definitions (their bodies are
``cli/question_runs.py``, which the fast entry also runs).

Registered from the command table (``command_table.py``), which gives each command its name and help.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .command_kit import (
    AnswerRevision,
    Budget,
    Depth,
    Json,
    QuestionName,
    RepoPath,
    StateDir,
    exit_with,
    table_option,
)
from .question_runs import UsageProblem, run_ask, run_symbols


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
    try:
        code = run_ask(question=question.value, targets=targets, within=within, revision=revision, depth=depth,
                       node_budget=node_budget, repo_path=repo_path, state_dir=state_dir,
                       allow_partial=allow_partial, json_output=json_output)
    except UsageProblem as problem:
        raise typer.BadParameter(str(problem)) from None
    exit_with(code)


def symbols_command(
    path: Annotated[str, typer.Argument(help="A repository-relative file path, as the graph records it.")],
    revision: Annotated[str, typer.Option("--revision", help="The revision the graph must be about.")] = "HEAD",
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Read a partial build too.")] = False,
    json_output: Json = False,
) -> None:
    exit_with(run_symbols(path=path, revision=revision, repo_path=repo_path, state_dir=state_dir,
                          allow_partial=allow_partial, json_output=json_output))
