"""The ``cm-graph`` console script: serve the hot paths before loading typer.

typer, click and rich cost about 100 ms of imports per process, many times the interpreter's own
start. Agents call ``cm-graph query`` in a loop and ``cm-graph --help`` to find their way, so
those two are answered here from the standard library and the question path alone, and so are
the other questions an agent asks in loops: ``ask``, ``symbols``, ``status`` and ``context
INTENT`` (their bodies are ``question_runs.py``; rich only for a person's table). Every other
command, every ``--help`` of a command and every argument list this parser is not sure about goes
to the typer application, which stays the one authority on usage and its errors. Both read the
commands and their options from one table, ``command_table.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .command_table import COMMANDS, FAST_COMMANDS, QUERY_OPTIONS, QUERY_REQUIRED, SUMMARY


def overview() -> str:
    """``cm-graph --help``: usage, what the tool is for, and every command."""
    width = max(len(command.name) for command in COMMANDS)
    lines = [
        "Usage: cm-graph [OPTIONS] COMMAND [ARGS]...",
        "",
        f"  {SUMMARY}",
        "",
        "Options:",
        "  --help  Show this message and exit.",
        "",
        "Commands:",
        *(f"  {command.name.ljust(width)}  {command.summary}" for command in COMMANDS),
        "",
        "Run `cm-graph COMMAND --help` for a command's options.",
    ]
    return "\n".join(lines) + "\n"


_MALFORMED = object()  # an option's value that typer must report instead (missing, or not its kind)


def _option_value(kind: str, equals: str, inline: str, args: list[str], position: int) -> tuple[object, int]:
    """An option's value (a flag's True; inline after ``=``, else the next word, converted to its
    kind) and the position after it, or ``_MALFORMED``."""
    if kind == "flag":
        return (_MALFORMED if equals else True), position
    if equals:
        raw = inline
    elif position < len(args):
        raw, position = args[position], position + 1
    else:
        return _MALFORMED, position
    value = _converted(raw, kind)
    return (_MALFORMED if value is None else value), position


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
        parameter, kind = QUERY_OPTIONS[flag].parameter, QUERY_OPTIONS[flag].kind
        if parameter in values:
            return None
        value, position = _option_value(kind, equals, inline, args, position + 1)
        if value is _MALFORMED:
            return None
        values[parameter] = value
    if any(name not in values for name in QUERY_REQUIRED):
        return None
    return values


def parse_fast(args: list[str]) -> tuple[str, dict[str, object]] | None:
    """The ``question_runs`` body and its keyword arguments for a well-formed argument list of a
    fast question command (``FAST_COMMANDS``), or None when anything is unusual (help, an unknown
    or repeated option, a missing, extra or malformed value, a positional argument that looks
    like an option): typer then parses the same list and reports the usage error."""
    if not args or args[0] not in FAST_COMMANDS:
        return None
    runner, positional, options = FAST_COMMANDS[args[0]]
    values: dict[str, object] = {}
    given: list[str] = []
    position = 1
    if positional and positional[0][1] == "intent":  # a subcommand: its name comes first
        if len(args) < 2 or _converted(args[1], "intent") is None:
            return None
        values["intent"], position, positional = args[1], 2, positional[1:]
    while position < len(args):
        word = args[position]
        position += 1
        if not word.startswith("-"):
            given.append(word)
            continue
        flag, equals, inline = word.partition("=")
        if flag not in options:
            return None
        parameter, kind = options[flag]
        if parameter in values:
            return None
        value, position = _option_value(kind, equals, inline, args, position)
        if value is _MALFORMED:
            return None
        values[parameter] = value
    for number, (parameter, kind) in enumerate(positional):
        if kind == "texts":
            if len(given) <= number:
                return None
            values[parameter], given = given[number:], given[:number]
            break
        if len(given) <= number:
            return None
        value = _converted(given[number], kind)
        if value is None:
            return None
        values[parameter] = value
    else:
        if len(given) > len(positional):
            return None
    return runner, values


def _converted(raw: str, kind: str) -> object | None:
    if kind == "intent":
        from ..context.intents import INTENT_NAMES

        return raw if raw in INTENT_NAMES else None
    if kind == "scope" and not raw.strip("/"):
        return None  # the body's usage error (after the graph is opened): typer's to report
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


NOT_TEXT_ARGUMENT = ("An argument is not UTF-8 text; pass names and paths as UTF-8 (cm-graph writes them into "
                     "its files and answers). (see cm-graph --help)")


def main() -> None:
    try:
        try:  # bytes that are not UTF-8 reach sys.argv as lone surrogates, which no text can hold
            "\0".join(sys.argv[1:]).encode("utf-8")
        except UnicodeEncodeError:
            from .boundary import print_refusal

            print_refusal(reason="usage", message=NOT_TEXT_ARGUMENT)
            sys.exit(2)
        _fast_or_typer(sys.argv[1:])
    except KeyboardInterrupt:
        from .boundary import INTERRUPTED, INTERRUPTED_EXIT, print_refusal

        print_refusal(reason="interrupted", message=INTERRUPTED)
        sys.exit(INTERRUPTED_EXIT)
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
    fast = parse_fast(args)
    if fast is not None:
        from . import question_runs

        runner, values = fast
        sys.exit(getattr(question_runs, runner)(**values))
    from .app import main as typer_main

    typer_main()
