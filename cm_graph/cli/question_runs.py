"""The question commands' bodies without typer: ``ask``, ``symbols``, ``status`` and ``context
INTENT``, each one function the typer command and the fast entry both run (as ``query.py`` is
``query``'s).

Agents call these in loops, so their process must start as a question's does: this module loads
the library's question path and the standard library only; rich is loaded when a person's table
is printed (no ``--json``), the fleet only when the checkout's state has one. Like every question
(``query``, ``context``), ``ask`` and ``symbols`` judge graph.bin by its seal (``status --verify``
and ``audit`` hash it). Each ``run_*`` returns the exit code; a refusal is reported by the one
boundary (``boundary.run_refusing``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..base.errors import EXIT_CODES, UNRESOLVED_STATUSES, Corrupt, Refusal
from ..generation.layout import Workspace
from .boundary import print_json, print_refusal, run_refusing

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


class UsageProblem(Exception):
    """A usage error found after the arguments were parsed (the typer command turns it into
    ``typer.BadParameter``; the fast entry never sees one: its parser leaves such a list to typer)."""


def edits_note(changed: int) -> str:
    """Why answers ignore uncommitted edits to ``changed`` tracked files, and what to do."""
    files = f"{changed} tracked file{'s' if changed != 1 else ''}"
    return (f"{files} changed since the bound commit; the graph (and every answer) is of the commit, "
            "not of these edits: commit them and run cm-graph refresh to ask about them.")


def run_ask(
    *, question: str, targets: list[str], within: str | None = None, revision: str = "HEAD",
    depth: int | None = None, node_budget: int | None = None, repo_path: Path | None = None,
    state_dir: Path | None = None, allow_partial: bool = False, json_output: bool = False,
) -> int:
    """``cm-graph ask``: every target's answer; 1 for a refusal, ``unresolved``'s code when a
    target named nothing."""

    def body() -> int:
        from ..evidence.ask import Unusable, open_question
        from ..evidence.askview import answer_targets
        from ..generation.definitions import recorded_gaps

        workspace = Workspace.locate(repo_path, state_dir)
        opened = open_question(workspace, question, depth, node_budget, revision=revision,
                               require_complete=not allow_partial, trust_seal=True)
        if isinstance(opened, Unusable):
            raise opened.error
        try:
            scope = within.strip("/") if within is not None else None
            if scope is not None and not scope:
                raise UsageProblem("--in PATH must name a repository-relative file or directory.")
            answers = answer_targets(opened.connection, opened.spec, targets, opened.depth, opened.budget, scope,
                                     generation=opened.generation.id, gaps=recorded_gaps(opened.generation))
        finally:
            opened.connection.close()
        unresolved = any(not data["resolved"] for data in answers)
        return _print_answers(answers, json_output, _changed(workspace.checkout) if unresolved else 0)

    return run_refusing(body, json_output)


def _changed(checkout: Path) -> int:
    from ..base.git import changed_tracked_files

    return changed_tracked_files(checkout)


def _print_answers(answers: list[dict[str, Any]], json_output: bool, changed: int = 0) -> int:
    """Every answer on stdout (one JSON object with --json); each unresolved target then refuses
    on stderr with its suggestions, and the exit code is ``unresolved``'s if any did."""
    from ..evidence.askview import dropped_note

    unresolved = [data for data in answers if not data["resolved"]]
    if json_output:
        print_json({"schema": "cm_graph.ask.v1", "answers": answers})
    else:
        from .render import console, print_answer_data

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
    return EXIT_CODES["unresolved"] if unresolved else 0


def run_symbols(
    *, path: str, revision: str = "HEAD", repo_path: Path | None = None, state_dir: Path | None = None,
    allow_partial: bool = False, json_output: bool = False,
) -> int:
    """``cm-graph symbols``: a file's definitions by line."""

    def body() -> None:
        from ..evidence.filesymbols import file_definitions, require_path

        require_path(path)
        workspace = Workspace.locate(repo_path, state_dir)
        answer = file_definitions(workspace, path, _repository_paths(workspace.checkout, path), revision=revision,
                                  allow_partial=allow_partial, trust_seal=True)
        if json_output:
            print_json(answer)
        else:
            from .render import console, print_symbols

            print_symbols(console(), answer["path"], answer["symbols"], answer.get("dropped", []))

    return run_refusing(body, json_output)


def _repository_paths(checkout: Path, given: str) -> list[str]:
    """The repository-relative spellings a user's path can mean, in order: as written (``./``,
    ``..`` and slashes normalised), then from the current directory (an absolute path, or a
    path typed inside a subdirectory of the checkout)."""
    from ..query.targets import path_spelling

    spellings = [path_spelling(given.strip("/"))]
    try:
        spellings.append(Path(os.path.abspath(given)).relative_to(checkout).as_posix())
    except ValueError:
        pass
    return list(dict.fromkeys(s for s in spellings if s not in (".", "") and not s.startswith("..")))


def run_status(
    *, revision: str = "HEAD", allow_partial: bool = False, verify: bool = False, repo_path: Path | None = None,
    state_dir: Path | None = None, json_output: bool = False,
) -> int:
    """``cm-graph status``: 0 only when the graph is usable for ``revision`` and search is available."""

    def body() -> int:
        from ..generation.status import GraphStatus, graph_status
        from ..index.ensure import index_for, search_readiness

        workspace = Workspace.locate(repo_path, state_dir)
        status = graph_status(workspace, revision, require_complete=not allow_partial, trust_seal=not verify)
        if not verify and status.generation is not None and status.usable:
            # As a question: a graph.bin whose identity moved since its index was sealed is hashed in
            # full there, and one that no longer matches its manifest is corrupt (not "unreadable").
            try:
                index_for(status.generation, verify=False)
            except Corrupt as refusal:
                status = GraphStatus("corrupt", refusal.message, status.generation)
            except Refusal:
                pass  # search_readiness says what the reader makes of it
        value = status.to_json(search_readiness(status, verify=verify))
        changed = _changed(workspace.checkout) if status.generation is not None else 0
        if changed:
            additions = value.setdefault("cm_graph", {})
            additions["changed_tracked_files"] = changed
            additions["working_tree"] = edits_note(changed)
        if json_output:
            print_json(value)
        else:
            from .render import console, print_command, print_status

            out = console()
            print_status(out, value)
            found = status.next_remedy  # the command the next action names, whole on its own line
            if found is not None and found.command:
                print_command(out, found.command)
        return 0 if status.usable and value["search"] == "available" else 1

    return run_refusing(body, json_output)


def run_context(
    *, intent: str, target: str, max_chars: int | None = None, max_items: int | None = None,
    cursor: str | None = None, repo_path: Path | None = None, state_dir: Path | None = None,
    json_output: bool = False,
) -> int:
    """``cm-graph context INTENT TARGET``: the composed answer; a refusal in it exits with its code."""

    def body() -> int:
        from ..base.jsonio import dumps_wire
        from ..context.from_workspace import code_context

        workspace = Workspace.locate(repo_path, state_dir)
        document = code_context(workspace, intent, target, max_chars=max_chars, max_items=max_items, cursor=cursor)
        if json_output:
            sys.stdout.write(dumps_wire(document) + "\n")
        else:
            from .context_view import print_context
            from .render import console

            print_context(console(), document)
        if document["status"] != "answered":
            print_refusal(document["status"], document["answer"])
            return EXIT_CODES["unresolved" if document["status"] in UNRESOLVED_STATUSES else "refused"]
        return 0

    return run_refusing(body, json_output)
