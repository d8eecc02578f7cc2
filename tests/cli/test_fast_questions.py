"""The question commands on the fast path (issue 31 item 3): ``ask``, ``symbols``, ``status`` and
``context INTENT`` run from the console script without typer, rich (unless a person's table is
printed) or the fleet, and say exactly what the typer application says for the same list.

The fast parser reads ``command_table.FAST_COMMANDS``; these tests hold that table equal to the
typer commands' declarations, every list it accepts parsed the same by typer, and the real console
script's imports and bytes against typer's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cm_graph.cli import entry
from cm_graph.cli.app import app
from cm_graph.cli.command_table import FAST_COMMANDS, TYPER_ONLY_OPTIONS
from cm_graph.context.intents import INTENT_NAMES
from cm_graph.index.ensure import ensure_index
from cm_graph.query.questions import QUESTION_NAMES

from ..support.g0 import g0_graph
from ..support.helpers import CM_GRAPH, publish

GROUP = typer.main.get_command(app)


def typer_command(name: str, intent: str = "usage") -> Any:
    command = GROUP.commands[name]  # type: ignore[attr-defined]
    return command.commands[intent] if name == "context" else command


@pytest.mark.parametrize("name", sorted(FAST_COMMANDS))
def test_the_fast_table_says_what_the_typer_command_declares(name: str) -> None:
    _, positional, options = FAST_COMMANDS[name]
    intents = INTENT_NAMES if name == "context" else ("usage",)
    for intent in intents:
        params = typer_command(name, intent).params
        declared = {param.opts[0]: param for param in params if param.param_type_name == "option"}
        declared.pop("--help", None)
        for flag in TYPER_ONLY_OPTIONS.get(name, ()):
            assert declared.pop(flag, None) is not None, (name, flag)  # declared, and left to typer
        assert set(declared) == set(options), (name, intent)
        for flag, (parameter, kind) in options.items():
            param = declared[flag]
            assert param.name == parameter and len(param.opts) == 1 and not param.secondary_opts
            assert param.is_flag == (kind == "flag") and not param.required and not param.multiple
            if kind == "int":
                assert param.type.name == "int"
        arguments = [param for param in params if param.param_type_name == "argument"]
        wanted = [(p, k) for p, k in positional if k != "intent"]
        assert [param.name for param in arguments] == [p for p, _ in wanted]
        for param, (_, kind) in zip(arguments, wanted, strict=True):
            assert param.required and param.nargs == (-1 if kind == "texts" else 1)
            if kind == "question":
                assert tuple(param.type.choices) == QUESTION_NAMES


def typer_parse(args: list[str]) -> dict[str, Any] | None:
    """The values typer's click command would pass for ``args``, or None on a usage error."""
    name, rest = args[0], args[1:]
    command = GROUP.commands.get(name)  # type: ignore[attr-defined]
    if name == "context":
        if not rest or rest[0] not in INTENT_NAMES:
            return None
        command, rest = command.commands[rest[0]], rest[1:]
    try:
        context = command.make_context(name, list(rest))
    except Exception:  # typer's vendored click: a usage error, or the exit after --help
        return None
    values = {key: getattr(value, "value", value) for key, value in context.params.items()}
    if name == "context":
        values["intent"] = args[1]
    return {key: value for key, value in values.items() if value is not None and value is not False}


WORDS = st.text(alphabet="ab-_./=", min_size=0, max_size=5)
VALUES = {
    "question": st.sampled_from([*QUESTION_NAMES, "blast_radius", "Impact"]),
    "text": WORDS, "path": WORDS, "scope": WORDS, "texts": WORDS,
    "int": st.one_of(st.integers(-3, 300).map(str), WORDS),
    "flag": st.none(),
}


@st.composite
def fast_args(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from(sorted(FAST_COMMANDS)))
    _, _, options = FAST_COMMANDS[name]
    head = [name]
    if name == "context":
        head.append(draw(st.sampled_from([*INTENT_NAMES, "history", "fetch", "--json", "nope"])))
    words = draw(st.lists(st.sampled_from([*options, "--help", "--nope", "stray", "-", "--", "impact"]), max_size=8))
    args: list[str] = []
    for word in words:
        kind = options[word][1] if word in options else "flag"
        value = draw(VALUES[kind])
        if value is None:
            args.append(word)
        elif draw(st.booleans()):
            args.append(f"{word}={value}")
        else:
            args.extend([word, value])
    if draw(st.booleans()):
        args = [*draw(st.lists(st.sampled_from(["impact", "x", "a.py"]), max_size=3)), *args]
    return [*head, *args]


@settings(max_examples=600, deadline=None)
@given(fast_args())
def test_every_list_the_fast_parser_accepts_parses_the_same_in_typer(args: list[str]) -> None:
    fast = entry.parse_fast(args)
    if fast is None:
        return  # typer parses it and reports the usage error itself
    runner, values = fast
    assert runner == FAST_COMMANDS[args[0]][0]
    slow = typer_parse(args)
    assert slow is not None, args
    paths = {p for p, kind in FAST_COMMANDS[args[0]][2].values() if kind == "path"}
    slow = {k: (Path(v) if k in paths else v) for k, v in slow.items()}
    slow = {k: (list(v) if isinstance(v, tuple) else v) for k, v in slow.items()}
    defaulted = ("revision", "HEAD")  # the bodies' default, which typer passes and the fast parser leaves out
    assert {k: v for k, v in values.items() if (k, v) != defaulted} == {
        k: v for k, v in slow.items() if (k, v) != defaulted}, args


@pytest.mark.parametrize("args", [
    ["ask", "impact", "x", "--json"],
    ["ask", "--json", "symbol", "a", "b", "--in=pkg", "--depth", "2", "--node-budget=5"],
    ["symbols", "pkg/a.py", "--json", "--allow-partial", "--revision", "HEAD~1"],
    ["status"],
    ["status", "--verify", "--json", "--repo-path", "r", "--state-dir=s"],
    ["context", "usage", "x", "--json", "--max-chars", "6000", "--max-items=3", "--cursor", "c"],
])
def test_well_formed_lists_take_the_fast_path(args: list[str]) -> None:
    assert entry.parse_fast(args) is not None


@pytest.mark.parametrize("args", [
    ["ask"], ["ask", "impact"], ["ask", "blast", "x"], ["ask", "impact", "x", "--in", "/"], ["ask", "impact", "-x"],
    ["ask", "impact", "x", "--help"], ["ask", "impact", "x", "--json", "--json"], ["ask", "impact", "x", "--depth"],
    ["symbols"], ["symbols", "a.py", "b.py"], ["symbols", "a.py", "--depth", "2"], ["symbols", "--", "a.py"],
    ["status", "extra"], ["status", "--json=yes"], ["status", "--revision", "--json"],
    ["context"], ["context", "usage"], ["context", "--json", "usage", "x"], ["context", "history"],
    ["context", "fetch", "--connection", "c"], ["context", "usage", "x", "--max-chars", "many"],
])
def test_anything_unusual_goes_to_typer(args: list[str]) -> None:
    assert entry.parse_fast(args) is None


# ... and the tar reader that hashes graph.bin in full: a question judges it by its seal.
WATCHED = ("typer", "click", "rich", "cm_graph.fleet", "cm_graph.cli.app", "cm_graph.cli.render",
           "cm_graph.generation.artifact")


def imported_by(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The real console script's run of ``args`` and which of ``WATCHED`` it imported (``-X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", str(CM_GRAPH), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    seen = {watched for watched in WATCHED if any(n == watched or n.startswith(watched + ".") for n in names)}
    return done, seen


QUESTIONS = [
    ["ask", "impact", "parse_config", "--json"],
    ["context", "usage", "parse_config", "--json"],
    ["symbols", "example_pkg/config.py", "--json"],
    ["status", "--json"],
]


@pytest.mark.parametrize("args", QUESTIONS, ids=lambda args: " ".join(args[:2]))
def test_a_json_question_imports_neither_typer_rich_nor_the_fleet_nor_hashes(
    g0_repo: Path, state_dir: Path, args: list[str],
) -> None:
    ensure_index(publish(g0_repo, state_dir, g0_graph()))  # publish seals graph.bin; the index is derived
    full = [*args, "--state-dir", str(state_dir)]
    done, seen = imported_by(full, g0_repo)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert seen == set(), seen
    # the same bytes and exit code as the typer application's
    slow = CliRunner().invoke(app, [*full, "--repo-path", str(g0_repo)])
    fast = subprocess.run([str(CM_GRAPH), *full], cwd=g0_repo, capture_output=True, text=True, timeout=120)
    assert (fast.returncode, fast.stdout) == (slow.exit_code, slow.stdout)


def test_a_table_loads_rich_and_still_not_typer(g0_repo: Path, state_dir: Path) -> None:
    ensure_index(publish(g0_repo, state_dir, g0_graph()))
    done, seen = imported_by(["ask", "impact", "parse_config", "--state-dir", str(state_dir)], g0_repo)
    assert done.returncode == 0 and "parse_config" in done.stdout
    assert seen == {"rich", "cm_graph.cli.render"}, seen


@pytest.mark.parametrize("args", [
    ["ask", "impact", "parse_config", "--json"],
    ["context", "usage", "parse_config", "--json"],
    ["symbols", "example_pkg/config.py", "--json"],
    ["status", "--json"],
], ids=lambda args: " ".join(args[:2]))
def test_a_refusal_on_the_fast_path_is_a_reason_and_a_sentence(tmp_path: Path, args: list[str]) -> None:
    """No graph built: a reason code and one sentence (JSON on stdout), non-zero, no traceback, no typer."""
    repo = tmp_path / "plain"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done, seen = imported_by([*args, "--state-dir", str(tmp_path / "state")], repo)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "typer" not in seen and "rich" not in seen
    if args[0] != "status":  # status reports the state as its answer, on stdout
        assert len(lines) == 1 and lines[0].startswith("cm-graph: "), lines
        assert '"status": "refused"' in done.stdout or '"status":"refused"' in done.stdout
