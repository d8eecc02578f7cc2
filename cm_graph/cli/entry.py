"""The ``cm-graph`` console script: serve the hot paths before loading typer.

typer, click and rich cost about 100 ms of imports per process, many times the interpreter's own
start. Agents call ``cm-graph query`` in a loop and ``cm-graph --help`` to find their way, so
those two are answered here from the standard library and the question path alone; every other
command, every ``--help`` of a command and every argument list this parser is not sure about goes
to the typer application, which stays the one authority on usage and its errors.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SUMMARY = "Offline, bounded questions over a per-generation SQLite index of a Graphify code graph."

# (command, one-line help) in the typer application's order; tests hold the two equal.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("index", "Build (or reuse) the SQLite index of the current generation and print its metadata."),
    ("build", "Run the pinned provider on REVISION, publish the generation and index it."),
    ("refresh", "Like build, but also when the graph is already current."),
    ("query", "Answer one bounded question; stdout gets metadata only, the evidence goes to --packet-out."),
    ("ask", "Show an answer's relationships on the terminal, for the operator (no packet is written)."),
    ("status", "Say whether the checkout's graph is usable for REVISION, and whether search is ready."),
    ("remove", "Delete this checkout's graph state: generations and indexes."),
    ("doctor", "Check the provider install and pin, containment, state privacy, generation and index."),
    ("audit", "Re-derive a generation's index and compare it with the stored one, byte for byte."),
    ("diff", "What changed in the code graph between two generations: nodes, relationships, files."),
    ("export", "Write a canonical, sorted text dump of an index to stdout (for diff, sqlite-utils, sqlite3)."),
    ("score", "Score a packet's citations against a checkout: resolution rate, revision state, gate."),
    ("connect", "Register this checkout's graph as a local connection (no credential, no network)."),
    ("connection-status", "Whether the connection could authorize evidence now; exit 0 only when it could."),
    ("disconnect", "Disconnect and purge the connection's packets and outcomes."),
    ("feedback", "Record whether an answer saved reads; report, export or purge the local outcomes."),
    ("eval", "Re-ask the eval corpus (correct answers) and grade the answers."),
    ("version", "Print the installed cm-graph version."),
    ("symbols", "List a file's definitions (label, kind, line) from the index, by line."),
    ("auth", "Authorization files for `cm-graph query`."),
    ("session", "Guided sessions."),
    ("context", "Code context for an agent (how, usage, impact, tests), and evidence from connections."),
)

# ``cm-graph query`` options: flag -> (parameter, kind). Kinds: "question" (one of
# questions.QUESTION_NAMES), "text", "path", "int", "flag". Tests hold this equal to the typer command.
QUERY_OPTIONS: dict[str, tuple[str, str]] = {
    "--question": ("question", "question"),
    "--target": ("target", "text"),
    "--authorization": ("authorization", "path"),
    "--packet-out": ("packet_out", "path"),
    "--revision": ("revision", "text"),
    "--depth": ("depth", "int"),
    "--node-budget": ("node_budget", "int"),
    "--repo-path": ("repo_path", "path"),
    "--state-dir": ("state_dir", "path"),
    "--show": ("show", "flag"),
    "--json": ("json_output", "flag"),
}
QUERY_REQUIRED = ("question", "target", "authorization")


def overview() -> str:
    """``cm-graph --help``: usage, what the tool is for, and every command."""
    width = max(len(name) for name, _ in COMMANDS)
    lines = [
        "Usage: cm-graph [OPTIONS] COMMAND [ARGS]...",
        "",
        f"  {SUMMARY}",
        "",
        "Options:",
        "  --help  Show this message and exit.",
        "",
        "Commands:",
        *(f"  {name.ljust(width)}  {summary}" for name, summary in COMMANDS),
        "",
        "Run `cm-graph COMMAND --help` for a command's options.",
    ]
    return "\n".join(lines) + "\n"


def parse_query(args: list[str]) -> dict[str, object] | None:
    """The keyword arguments of ``run_query`` for a well-formed ``query`` argument list, or None
    when anything is unusual (help, an unknown or repeated option, a missing or malformed value,
    a positional argument): typer then parses the same list and reports the usage error."""
    values: dict[str, object] = {}
    position = 0
    while position < len(args):
        flag, equals, inline = args[position].partition("=")
        if flag not in QUERY_OPTIONS:
            return None
        parameter, kind = QUERY_OPTIONS[flag]
        if parameter in values:
            return None
        position += 1
        if kind == "flag":
            if equals:
                return None
            values[parameter] = True
            continue
        if equals:
            raw = inline
        elif position < len(args):
            raw, position = args[position], position + 1
        else:
            return None
        value = _converted(raw, kind)
        if value is None:
            return None
        values[parameter] = value
    if any(name not in values for name in QUERY_REQUIRED):
        return None
    return values


def _converted(raw: str, kind: str) -> object | None:
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            return None
    if kind == "question":
        from ..query.questions import QUESTION_NAMES

        return raw if raw in QUESTION_NAMES else None
    if raw.startswith("-"):
        return None  # click would read a following option as this one's value; let it say so
    return Path(raw) if kind == "path" else raw


def main() -> None:
    try:
        _fast_or_typer(sys.argv[1:])
    except KeyboardInterrupt:
        sys.stderr.write("cm-graph: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (``| head``, ``| true``): nothing more can be said, and the
        # interpreter's last flush must not fail again; exit 1 as typer does.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def _fast_or_typer(args: list[str]) -> None:
    if args == ["--help"]:
        sys.stdout.write(overview())
        sys.stdout.flush()
        return
    if args == ["version"]:
        from .. import __version__

        sys.stdout.write(__version__ + "\n")
        sys.stdout.flush()
        return
    if args[:1] == ["query"]:
        query = parse_query(args[1:])
        if query is not None:
            from .query import run_query

            sys.exit(run_query(**query))  # type: ignore[arg-type]
    from .app import main as typer_main

    typer_main()
