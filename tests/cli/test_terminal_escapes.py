"""Issue 25 item 3: no control or bidi character a repository holds reaches a terminal or a host.

A real repository, built by the pinned provider, whose tracked file names, docstring, checkout
directory and commit messages hold terminal escapes: CSI (``ESC[31m``, ``ESC[2J``), OSC 52 (a
clipboard write), OSC 8 (a hyperlink), the one-byte C1 CSI U+009B, BEL, backspace, CR, DEL, tab,
newline, and the bidi overrides and isolates Trojan Source hides code with (U+202E, U+2066..9),
with enough history for change coupling and two generations for ``diff``. Then every command of
the command table (the list is derived from the typer application the table builds, so a new
command fails ``test_every_command_of_the_table_is_run`` until it is run here) is run as the
installed console script, piped and on a pseudo-terminal (rich's terminal path), as a table and
with ``--json``; stdout and stderr are read as bytes. None may hold a control byte but newline
(nor, on the terminal, any escape sequence but rich's own styles), nor a bidi control; each name
a command shows must still be there, spelled visibly in a table and exact in JSON. The MCP
surface is held the same way (its text content is the REST body, ``dispatch.wire_bytes``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main

from cm_graph.cli.app import app
from cm_graph.cli.command_table import COMMANDS
from cm_graph.context.wire import cited as cited_of
from cm_graph.context.wire import section_items

from ..support.hostilenames import (
    ADDED,
    ADDED_BIDI,
    BIDI_LABEL,
    BIDI_TEST,
    CHECKOUT,
    CONNECTION,
    COUPLED,
    DOCSTRING,
    FLEET,
    FORBIDDEN,
    HOSTILE,
    RECIPIENT,
    UNRESOLVED,
    WITH_ESCAPE,
    Hostile,
    Run,
    documents,
    hostile_repo,
    leaks,
    prose,
    shown,
    strings,
)

pytestmark = pytest.mark.provider


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Hostile:
    base = tmp_path_factory.mktemp("escapes")
    setup = Hostile(hostile_repo(base / CHECKOUT), base / "state")
    older = setup.json("build", "--revision", "HEAD~1", "--keep-previous", "--json")
    newer = setup.run("build", "--keep-previous")  # a table: checked with every other run
    assert newer.code == 0, newer.stderr
    setup.values["old"] = older["generation"]
    setup.values["new"] = setup.json("status", "--json")["build"]["generation"]
    setup.json("context", "history", "--json")
    setup.json("connect", "--connection", CONNECTION, "--repository", "owner/repo", "--recipient", RECIPIENT,
               "--json")
    auth = base / "auth.json"
    assert setup.run("auth", "init", "--connection", CONNECTION, "--repository", "owner/repo",
                     "--recipient", RECIPIENT, "--out", str(auth)).code == 0
    setup.values["auth"] = str(auth)
    setup.values["packet"] = str(base / "packet.json")
    setup.json("query", "--question", "impact", "--target", "helper", "--authorization", str(auth),
               "--packet-out", setup.values["packet"], "--json")
    session = base / "session.json"
    setup.json("session", "init", str(session), "--connection", CONNECTION, "--repository", "owner/repo",
               "--recipient", RECIPIENT, "--work-item", "w1", "--directory", str(setup.repo), "--json")
    setup.values["session"] = str(session)
    setup.values["handle"] = setup.json("session", "prepare", str(session), "--question", "impact",
                                        "--query", "helper", "--json")["packet_handle"]
    setup.json("fleet", "add", FLEET, "--repo-path", str(setup.repo), "--json")
    answer = setup.json("context", "impact", "helper", "--json")
    setup.values["answer_id"] = answer["answer_id"]
    setup.json("feedback", "record", "--intent", "impact", "--target", "helper", "--answer-id", answer["answer_id"],
               "--reads-avoided", "2", "--files-read", "1", "--correct", "--json")
    return setup


@dataclass(frozen=True)
class Step:
    """One command line (``{name}`` filled from the fixture's values); ``json`` whether it takes
    ``--json``, ``prints_json`` whether it prints JSON without it; ``shows`` the names its output
    must still carry (spelled visibly in a table, exact in the decoded JSON)."""

    args: tuple[str, ...]
    json: bool = True
    shows: tuple[str, ...] = ()
    prints_json: bool = False


PLAN = (
    Step(("version",), json=False),
    Step(("status",)),
    Step(("index",)),
    Step(("build",)),  # already current: a refusal, on every stream
    Step(("ask", "impact", "helper"), shows=(HOSTILE["bidi"], BIDI_TEST)),
    Step(("ask", "impact", UNRESOLVED), shows=(UNRESOLVED,)),
    Step(("ask", "impact", WITH_ESCAPE)),  # refused: no target holds a control character
    Step(("query", "--question", "impact", "--target", "helper", "--authorization", "{auth}",
          "--packet-out", "{packet}", "--show"), shows=(HOSTILE["bidi"],)),
    Step(("symbols", HOSTILE["bidi"]), shows=(HOSTILE["bidi"], "user_bidi")),
    Step(("symbols", HOSTILE["csi"])),  # refused: a path no citation can name
    Step(("symbols", "pkg/nothere\u202e.py")),
    Step(("changes", "--commit", "HEAD")),  # the hostile commit's own files, on the bound commit
    Step(("changes", "--range", "HEAD~1..HEAD")),
    Step(("context", "how", "helper"), shows=(DOCSTRING,)),
    # a wide budget: every section's items are shown, the hostile file's among them
    Step(("context", "usage", "helper", "--max-chars", "40000"), shows=(HOSTILE["bidi"],)),
    # the widest budget: its change_coupling section shows every coupled file
    Step(("context", "impact", "helper", "--max-chars", "40000"), shows=(HOSTILE["bidi"], *COUPLED)),
    Step(("context", "tests", "helper"), shows=(BIDI_TEST,)),
    # the hostile repository's own suite, contained; then its tests again, observed ones named too
    Step(("tests", "record", "--timeout", "300")),
    Step(("context", "tests", "helper"), shows=(BIDI_TEST,)),
    Step(("context", "impact", HOSTILE["bidi"]), shows=(HOSTILE["bidi"],)),
    Step(("context", "usage", UNRESOLVED), shows=(UNRESOLVED,)),
    Step(("context", "prime", f"fix `helper` and `{HOSTILE['bidi']}`"), shows=(HOSTILE["bidi"],)),
    Step(("context", "history",)),
    Step(("context", "fetch", "--connection", CONNECTION, "--handle", "{handle}", "--recipient", RECIPIENT),
         shows=(HOSTILE["bidi"],)),
    Step(("doctor",)),
    Step(("doctor", "--fleet", FLEET), shows=(CHECKOUT,)),
    Step(("fleet", "list", FLEET), shows=(CHECKOUT,)),
    Step(("fleet", "usages", FLEET, "helper"), shows=(CHECKOUT,)),
    Step(("fleet", "add", FLEET, "--repo-path", ".")),  # already a member: refused
    Step(("audit",)),
    Step(("diff", "{old}", "{new}"), shows=(ADDED, HOSTILE["cr"], HOSTILE["csi"], ADDED_BIDI, BIDI_LABEL)),
    Step(("export",), json=False, prints_json=True, shows=(HOSTILE["osc52"], HOSTILE["bidi"])),
    Step(("export", "--format", "sql"), json=False),
    Step(("score", "{packet}")),
    Step(("connect", "--connection", CONNECTION, "--repository", "owner/repo", "--recipient", RECIPIENT)),
    Step(("connection-status", "--connection", CONNECTION)),
    Step(("auth", "init", "--connection", CONNECTION, "--repository", "owner/repo", "--recipient", RECIPIENT),
         json=False, prints_json=True, shows=(CHECKOUT,)),
    Step(("session", "init", "{session}", "--connection", CONNECTION, "--repository", "owner/repo",
          "--recipient", RECIPIENT, "--work-item", "w2")),
    Step(("session", "prepare", "{session}", "--question", "impact", "--query", UNRESOLVED)),
    Step(("feedback", "record", "--intent", "impact", "--target", UNRESOLVED, "--answer-id", "{answer_id}",
          "--reads-avoided", "1", "--files-read", "1", "--wrong")),
    Step(("feedback", "report",)),
    Step(("feedback", "export",), json=False, prints_json=True),
    Step(("eval", "run",)),
    Step(("ask", "impact", "helper", f"--{WITH_ESCAPE}"), json=False, shows=(WITH_ESCAPE,)),  # a usage error
    Step((WITH_ESCAPE,), json=False, shows=(WITH_ESCAPE,)),  # not a command
    Step(("refresh",)),
    Step(("agents", "init", "--dry-run")),  # the diff of every file it would write
    Step(("agents", "init")),
    Step(("agents", "remove")),
    # Last: these take the state away.
    Step(("fleet", "remove", FLEET, CHECKOUT)),
    Step(("feedback", "purge",)),
    Step(("disconnect", "--connection", CONNECTION)),
    Step(("remove",)),
)
RUN_ELSEWHERE = {"mcp": "tests/surfaces/test_mcp_escapes.py"}


def _leaves(command: Any, prefix: tuple[str, ...] = ()) -> set[str]:
    children = getattr(command, "commands", None)
    if not children:
        return {" ".join(prefix)}
    return set().union(*(_leaves(child, (*prefix, name)) for name, child in children.items()))


def _leaf(args: tuple[str, ...], leaves: set[str]) -> str | None:
    for length in (2, 1):
        if " ".join(args[:length]) in leaves:
            return " ".join(args[:length])
    return None


def test_every_command_of_the_table_is_run() -> None:
    root = typer.main.get_command(app)
    assert set(root.commands) == {command.name for command in COMMANDS}  # type: ignore[attr-defined]
    leaves = _leaves(root)
    planned = {_leaf(step.args, leaves) for step in PLAN} | set(RUN_ELSEWHERE)
    assert leaves - planned == set(), "run these commands on the hostile repository too"


@pytest.fixture(scope="module")
def runs(hostile: Hostile) -> list[tuple[Step, Run]]:
    done = [(Step(run.args), run) for run in hostile.runs]  # the set-up's own commands, checked too
    for step in PLAN:
        args = tuple(arg.format(**hostile.values) if "{" in arg else arg for arg in step.args)
        for json_output in (False, True) if step.json else (False,):
            for terminal in (False, True):
                done.append((step, hostile.run(*args, *(("--json",) if json_output else ()), terminal=terminal)))
    return done


def test_no_command_prints_a_control_or_bidi_character(runs: list[tuple[Step, Run]]) -> None:
    broke = [f"{run.where()}: {len(found)} leak(s), first {found[0]}" for _, run in runs if (found := leaks(run))]
    assert not broke, f"{len(broke)} of {len(runs)} runs leaked:\n" + "\n".join(broke)


def test_every_name_is_still_shown_visibly_in_tables_and_exactly_in_json(runs: list[tuple[Step, Run]]) -> None:
    missing = []
    for step, run in runs:
        text = (run.stdout + run.stderr).decode("utf-8", "replace")
        if ("--json" in run.args or step.prints_json) and run.stdout.strip():
            values = [value for document in documents(run.stdout.decode()) for value in strings(document)]
            stderr = run.stderr.decode("utf-8", "replace")  # query --show draws the answer there
            missing += [f"{run.where()}: exact {name!r}" for name in step.shows
                        if not any(name in value for value in values) and shown(name) not in stderr]
        else:
            missing += [f"{run.where()}: {shown(name)!r}" for name in step.shows if shown(name) not in text]
    assert not missing, "\n".join(missing)


def test_json_prose_names_no_control_character_and_json_stays_exact(runs: list[tuple[Step, Run]]) -> None:
    broke = []
    for _, run in runs:
        if "--json" not in run.args or not run.stdout.strip():
            continue
        for document in documents(run.stdout.decode()):
            broke += [f"{run.where()}: {text!r}" for text in prose(document) if FORBIDDEN.search(text)]
    assert not broke, "\n".join(broke[:20])
    impact = next(json.loads(run.stdout) for step, run in runs
                  if step.args[:3] == ("context", "impact", "helper") and "--json" in run.args and "40000" in run.args)
    coupled = {item["path"] for item in section_items(impact["sections"]["change_coupling"], cited_of(impact))}
    assert set(COUPLED) <= coupled  # the structured fields keep the exact name
    assert shown(COUPLED[0]) in impact["answer"] and COUPLED[0] not in impact["answer"]  # the prose: visibly


def test_the_sql_export_reads_back_as_the_exact_names(hostile: Hostile, runs: list[tuple[Step, Run]],
                                                      tmp_path: Path) -> None:
    dump = next(run.stdout for step, run in runs if step.args == ("export", "--format", "sql") and not run.terminal)
    assert b"char(27)" in dump
    copy = sqlite3.connect(tmp_path / "copy.sqlite")
    copy.executescript(dump.decode())
    paths = {row[0] for row in copy.execute("SELECT path FROM census")}
    copy.close()
    assert set(HOSTILE.values()) - {HOSTILE["cr"]} | {ADDED} <= paths
    shutil.rmtree(tmp_path)


