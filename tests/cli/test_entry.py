"""The console script's fast paths (`cm_graph.cli.entry`) against the typer application they shortcut.

The entry answers `cm-graph --help`, `cm-graph version` and well-formed `cm-graph query` argument
lists without loading typer; typer stays the authority on everything else. These tests hold the
two equal: the same commands and summaries, the same query options, the same parsed values for
any argument list the fast parser accepts, the same answer through either path, and a query path
that never imports the heavy modules the fast path exists to avoid.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

from cm_graph.cli import entry
from cm_graph.cli.app import app
from cm_graph.query.questions import QUESTION_NAMES

from ..support.askkit import RECIPIENTS, policy
from ..support.g0 import g0_graph
from ..support.helpers import CM_GRAPH, publish, run_installed

GROUP = typer.main.get_command(app)
QUERY = GROUP.commands["query"]  # type: ignore[attr-defined]


def first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0]


def test_overview_lists_every_command_with_its_own_summary() -> None:
    context = GROUP.context_class(GROUP)
    typer_commands = [
        (name, first_line(GROUP.get_command(context, name).help))  # type: ignore[attr-defined, union-attr]
        for name in GROUP.list_commands(context)  # type: ignore[attr-defined]
    ]
    assert [(command.name, command.summary) for command in entry.COMMANDS] == typer_commands
    assert first_line(GROUP.help) == entry.SUMMARY
    overview = entry.overview()
    for command in entry.COMMANDS:
        assert f"  {command.name} " in overview and command.summary in overview


def test_query_options_match_the_typer_command() -> None:
    options = {param.opts[0]: param for param in QUERY.params}
    options.pop("--help", None)
    assert set(options) == set(entry.QUERY_OPTIONS)
    for flag, option in entry.QUERY_OPTIONS.items():
        name, kind, param = option.parameter, option.kind, options[flag]
        assert param.name == name and len(param.opts) == 1 and not param.secondary_opts
        assert param.is_flag == (kind == "flag")
        assert param.required == (name in entry.QUERY_REQUIRED)
        if kind == "question":
            assert tuple(param.type.choices) == QUESTION_NAMES  # type: ignore[attr-defined]
        if kind == "int":
            assert param.type.name == "int"


def test_typer_takes_the_query_options_help_from_the_table() -> None:
    options = {param.opts[0]: param for param in QUERY.params}
    for flag, option in entry.QUERY_OPTIONS.items():
        assert options[flag].help == option.help, flag


def test_every_command_is_one_table_row_and_its_group_module() -> None:
    """The typer app registers exactly the table's rows, each from the module and attribute the
    row names: a command group is added by a row and a module, never by editing ``app.py``."""
    import importlib

    from cm_graph.cli import app as assembler

    for command in entry.COMMANDS:
        target = getattr(importlib.import_module(f"cm_graph.cli.{command.module}"), command.attribute)
        if isinstance(target, typer.Typer):
            registered = [group for group in app.registered_groups if group.name == command.name]
            assert [group.typer_instance for group in registered] == [target], command.name
        else:
            registered = [info for info in app.registered_commands if info.name == command.name]
            assert [info.callback for info in registered] == [target], command.name
    assert len(app.registered_commands) + len(app.registered_groups) == len(entry.COMMANDS)
    assert "@app." not in Path(assembler.__file__).read_text(encoding="utf-8")


def typer_parse(args: list[str]) -> dict[str, Any] | None:
    """The values typer's click command would pass for ``args``, or None on a usage error."""
    try:
        context = QUERY.make_context("query", list(args))
    except Exception:  # typer's vendored click: a usage error, or the exit after --help
        return None
    values = {name: getattr(value, "value", value) for name, value in context.params.items()}
    return {name: value for name, value in values.items() if value is not None and value is not False}


def without_defaults(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if not (k == "revision" and v == "HEAD")}


WORDS = st.text(alphabet="abc-_./=", min_size=0, max_size=6)
VALUES = {
    "question": st.sampled_from([*QUESTION_NAMES, "blast_radius", "Impact"]),
    "text": WORDS,
    "path": WORDS,
    "int": st.one_of(st.integers(-3, 300).map(str), WORDS),
    "flag": st.none(),
}


@st.composite
def query_args(draw: st.DrawFn) -> list[str]:
    flags = draw(st.lists(st.sampled_from([*entry.QUERY_OPTIONS, "--help", "--nope", "stray"]), max_size=9))
    args: list[str] = []
    for flag in flags:
        kind = entry.QUERY_OPTIONS[flag].kind if flag in entry.QUERY_OPTIONS else "flag"
        value = draw(VALUES[kind])
        if value is None:
            args.append(flag)
        elif draw(st.booleans()):
            args.append(f"{flag}={value}")
        else:
            args.extend([flag, value])
    if draw(st.booleans()):
        args = ["--question", "impact", "--target", "t", "--authorization", "a.json", *args]
    return args


@settings(max_examples=400, deadline=None)
@given(query_args())
def test_every_list_the_fast_parser_accepts_parses_the_same_in_typer(args: list[str]) -> None:
    fast = entry.parse_query(args)
    if fast is None:
        return  # typer parses it and reports the usage error itself
    slow = typer_parse(args)
    assert slow is not None, args
    paths = {option.parameter for option in entry.QUERY_OPTIONS.values() if option.kind == "path"}
    slow = {k: (Path(v) if k in paths else v) for k, v in slow.items()}  # typer's own conversion
    slow["target"] = slow["target"][0]  # typer collects --target as a list to refuse a repeat
    assert without_defaults(fast) == without_defaults(slow)


@pytest.mark.parametrize("args", [
    ["--question", "impact", "--target", "x", "--authorization", "a.json"],
    ["--question=symbol", "--target=x", "--authorization=a.json", "--depth", "3", "--json", "--show"],
    ["--authorization", "a", "--target", "", "--question", "related_tests", "--node-budget=-1"],
])
def test_well_formed_lists_take_the_fast_path(args: list[str]) -> None:
    assert entry.parse_query(args) is not None


@pytest.mark.parametrize("args", [
    [],
    ["--help"],
    ["--question", "impact", "--target", "x"],
    ["--question", "impact", "--target", "x", "--authorization", "a", "--help"],
    ["--question", "impact", "--target", "x", "--authorization", "a", "--depth", "two"],
    ["--question", "impact", "--target", "x", "--authorization", "a", "--json=yes"],
    ["--question", "impact", "--question", "symbol", "--target", "x", "--authorization", "a"],
    ["--question", "impact", "--target", "--json", "--authorization", "a"],
    ["--question", "impact", "--target", "x", "--authorization"],
    ["--question", "impact", "--target", "x", "--authorization", "a", "extra"],
])
def test_anything_unusual_goes_to_typer(args: list[str]) -> None:
    assert entry.parse_query(args) is None


HEAVY = ("typer", "click", "rich", "dataclasses", "typing", "inspect", "subprocess", "tarfile", "ijson", "sqlite_utils",
         "mcp", "starlette", "uvicorn", "anyio")


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stderr.split()


def test_the_question_path_loads_no_heavy_module() -> None:
    assert loaded_after("import cm_graph.cli.query") == []


def test_the_typer_application_never_loads_the_mcp_extra() -> None:
    """Every command but ``mcp`` itself runs without the SDK (an optional extra, seconds to import)."""
    loaded = set(loaded_after("import cm_graph.cli.app"))
    assert not loaded & {"mcp", "starlette", "uvicorn", "anyio"}, loaded


def test_help_and_version_load_nothing_but_the_entry() -> None:
    run_main = "import sys\nsys.argv = ['cm-graph', {!r}]\nfrom cm_graph.cli.entry import main\nmain()"
    assert loaded_after(run_main.format("--help")) == []
    assert loaded_after(run_main.format("version")) == []


cli = run_installed


def test_help_and_version_match_typer(tmp_path: Path) -> None:
    from cm_graph import __version__

    shown = cli("--help", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout == entry.overview() and shown.stderr == ""
    assert cli("version", cwd=tmp_path).stdout == __version__ + "\n"
    typer_help = cli("query", "--help", cwd=tmp_path)  # a command's help is typer's
    assert typer_help.returncode == 0 and "--node-budget" in typer_help.stdout


def without_clock(packet: dict[str, Any]) -> dict[str, Any]:
    binding = {k: v for k, v in packet["binding"].items() if k not in ("issued_at", "expires_at")}
    return {**{k: v for k, v in packet.items() if k != "retrieved_at"}, "binding": binding}


def test_fast_path_and_typer_give_the_same_answer(g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cm_graph.evidence.authorization import mint_envelope
    from cm_graph.generation.layout import Workspace
    from cm_graph.generation.store import read_current

    publish(g0_repo, state_dir, g0_graph())
    workspace = Workspace.locate(g0_repo, state_dir)
    from datetime import UTC, datetime

    envelope = mint_envelope(
        connection="local-graph", generation=read_current(workspace).id,
        repository_root=str(workspace.checkout), repositories=["owner/repo"],
        recipients=list(RECIPIENTS), now=datetime.now(UTC),
    )
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({
        "connection": envelope, "policy": policy(True), "repository": "owner/repo", "work_item": "w-1",
    }))
    common = ["query", "--question", "impact", "--target", "parse_config", "--authorization", str(auth),
              "--state-dir", str(state_dir), "--json"]
    fast = cli(*common, "--packet-out", tmp_path / "fast.json", cwd=g0_repo)
    slow = CliRunner().invoke(app, [*common, "--packet-out", str(tmp_path / "slow.json"), "--repo-path", str(g0_repo)])
    assert fast.returncode == slow.exit_code == 0
    assert json.loads(fast.stdout) == json.loads(slow.stdout)
    packets = [json.loads((tmp_path / name).read_text()) for name in ("fast.json", "slow.json")]
    assert without_clock(packets[0]) == without_clock(packets[1])


@pytest.mark.parametrize("args", [
    ["--help"],
    ["query", "--question", "impact", "--target", "x", "--authorization", "/nonexistent", "--json"],
])
def test_a_reader_that_goes_away_is_no_traceback(tmp_path: Path, args: list[str]) -> None:
    command = " ".join([str(CM_GRAPH), *args]) + " | true"
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr and done.returncode in (0, 1)


def test_python_m_cm_graph_is_the_console_script(tmp_path: Path) -> None:
    def module(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cm_graph", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, check=False)

    for args in (["--help"], ["version"]):
        by_module, by_script = module(*args), cli(*args, cwd=tmp_path)
        assert (by_module.returncode, by_module.stdout, by_module.stderr) == (0, by_script.stdout, "")
    by_module, by_script = module("status", "--json"), cli("status", "--json", cwd=tmp_path)  # via typer
    assert (by_module.returncode, by_module.stdout) == (by_script.returncode, by_script.stdout)
    assert by_module.returncode != 0 and json.loads(by_module.stdout)
