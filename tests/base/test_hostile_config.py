"""Issue 25 item 2: no cm-graph command runs a program a repository configures.

A real repository (and a submodule in it) whose ``.git/config``, included files, attributes and
hooks configure every program git can run, each a script that leaves its own marker
(``tests/support/hostile.py``), is built with the real provider; a tracked file is made
stat-dirty and another edited; then every command of the command table runs as the installed
console script, in an order that gives each its inputs (a packet, a session handle, an answer id,
a later generation for ``eval run`` and ``diff``), ``mcp`` as a real stdio server answering one
``tools/call``. After each command no marker may exist. The command list is derived from the
command table: a command with no invocation here fails the test.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import typer

from cm_graph.base import git as gitio
from cm_graph.cli.app import app
from cm_graph.provider.build import materialise
from cm_graph.provider.run import provider_environment

from ..support import hostile
from ..support.cli import command_paths
from ..support.helpers import CM_GRAPH, make_repo

CORE = '"""Core."""\n\n\ndef helper():\n    return 1\n\n\ndef run():\n    return helper()\n'
CORE_EDITED = CORE.replace("return 1", "return 2")
CORE_LATER = '"""Core."""\n\nLIMIT = 3\n\n\ndef helper():\n    return 1\n\n\ndef run():\n    return helper()\n'
TESTS = "from pkg.core import run\n\n\ndef test_run():\n    assert run() == 1\n"
FILES = {
    ".gitattributes": hostile.GITATTRIBUTES,
    "pyproject.toml": '[project]\nname = "hostile-pkg"\nversion = "1.0"\n',
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "tests/test_core.py": TESTS,
    "README.md": "# hostile\n",
    "notes.txt": "notes\n",
}
RECIPIENT = "claude:builder"


class Run:
    """Every command of the test, as the installed console script in the checkout, with the
    markers each left (cleared before each one)."""

    def __init__(self, repo: Path, tools: list[Path], files: Path) -> None:
        self.repo, self.tools, self.files = repo, tools, files
        self.ran: dict[str, list[str]] = {}
        self.failed: dict[str, str] = {}
        self.invoked: set[str] = set()

    def __call__(self, command: str, *args: Any, code: int = 0, stdin: str | None = None
                 ) -> subprocess.CompletedProcess[str]:
        for tools in self.tools:
            hostile.clear(tools)
        env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
        done = subprocess.run([str(CM_GRAPH), *command.split(), *(str(arg) for arg in args)], cwd=self.repo,
                              env=env, input=stdin, capture_output=True, text=True, timeout=600, check=False)
        self.record(command, args, done.returncode, code, done.stderr)
        return done

    def record(self, command: str, args: Any, returncode: int, code: int, stderr: str) -> None:
        self.invoked.add(command)
        label = f"{command} {' '.join(map(str, args))}".strip()
        markers = [name for tools in self.tools for name in hostile.ran(tools)]
        if markers:
            self.ran[label] = markers
        if returncode != code:
            self.failed[label] = f"exit {returncode}, not {code}: {stderr[-600:]}"

    def json(self, command: str, *args: Any, code: int = 0) -> Any:
        """The command's ``--json`` object ({} when it printed none: recorded as a failure)."""
        out = self(command, *args, "--json", code=code).stdout
        try:
            return json.loads(out)
        except ValueError:
            self.failed[command] = f"no JSON object: {out[-300:]}"
            return {}

    def check(self, label: str, held: bool, detail: Any) -> None:
        """What a command answered, judged after every command ran (so markers are reported first)."""
        if not held:
            self.failed[label] = f"answered {detail!r}"[:600]


def mcp_tools_call(served: Run, state: Path) -> None:
    """``cm-graph mcp`` over stdio, driven by the MCP SDK's client: initialize, one tools/call."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def call() -> None:
        parameters = StdioServerParameters(
            command=str(CM_GRAPH), args=["mcp", "--connection", "hostile", "--recipient", RECIPIENT],
            env={"CM_GRAPH_HOME": str(state), "PATH": os.environ["PATH"]}, cwd=str(served.repo))
        async with Client(parameters, read_timeout_seconds=120) as client:
            result = await client.call_tool("code_context", {"target": "helper", "intent": "usage"})
            assert result.is_error is False, result.content
            assert result.structured_content["status"] == "answered", result.structured_content

    for tools in served.tools:
        hostile.clear(tools)
    anyio.run(call)
    served.record("mcp", ["(stdio, tools/call code_context)"], 0, 0, "")


def hostile_checkout(base: Path) -> tuple[Path, list[Path]]:
    """The checkout (two commits, the second signed) with a submodule, both armed."""
    base.mkdir()
    make_repo(base / "repo" / "sub", {"lib.py": "def sub():\n    return 0\n", ".gitattributes": hostile.GITATTRIBUTES})
    repo = make_repo(base / "repo", {**FILES, "pkg/core.py": CORE.replace("return 1", "return 0")})
    (repo / "pkg" / "core.py").write_text(CORE)
    hostile.quiet_git(repo, "commit", "-qam", "helper returns 1")
    hostile.signed_commit(repo)
    tools, sub_tools = base / "tools", base / "sub-tools"
    hostile.arm(repo, tools)
    hostile.arm(repo / "sub", sub_tools, suffix="-sub")
    return repo, [tools, sub_tools]


def test_the_trap_is_armed_git_itself_runs_the_programs(tmp_path: Path) -> None:
    """The trap is real: git itself, asked as a user would, runs the armed programs (so a marker
    that stays absent under cm-graph means cm-graph kept them from running)."""
    repo, (tools, _) = hostile_checkout(tmp_path / "case")
    os.utime(repo / "README.md")
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, check=False)
    subprocess.run(["git", "-C", str(repo), "log", "-1"], capture_output=True, check=False)
    ran = hostile.ran(tools)
    assert "filter-evil-process" in ran and "fsmonitor" in ran and "gpg-openpgp-program" in ran, ran


@pytest.mark.provider
def test_no_command_of_the_command_table_runs_a_repository_configured_program(tmp_path: Path) -> None:
    repo, tools = hostile_checkout(tmp_path / "case")
    files = tmp_path / "files"
    files.mkdir()
    state = Path(os.environ["CM_GRAPH_HOME"])
    run = Run(repo, tools, files)

    run("version")
    run("build")
    os.utime(repo / "README.md")
    os.utime(repo / "notes.txt")
    os.utime(repo / "sub" / "lib.py")
    (repo / "pkg" / "core.py").write_text(CORE_EDITED)
    status = run.json("status")  # core.py changed; the touched files did not
    run.check("status", status.get("cm_graph", {}).get("changed_tracked_files") == 1, status)
    run("index")
    run("ask", "impact", "helper")
    unresolved = run("ask", "symbol", "no_such_name_anywhere", code=1)
    run.check("ask unresolved", "1 tracked file changed" in unresolved.stderr, unresolved.stderr)
    run("symbols", "pkg/core.py")
    touched = run.json("changes")  # git diff --raw and -U0 of the work tree: core.py edited
    run.check("changes", touched.get("summary", {}).get("files") == 1, touched)
    run("changes", "--staged")
    history = run.json("context history")  # git log over the signed commit too
    run.check("context history", history.get("commits_read") == 2, history)
    for intent in ("how", "usage", "impact", "tests"):
        run(f"context {intent}", "helper")
    observed = run.json("tests record")  # the bound commit's blobs by cat-file: no filter or hook of it runs
    run.check("tests record", observed.get("status") == "recorded", observed)
    usage = run.json("context usage", "helper")
    primed = run.json("context prime", "change `helper` and its callers", "--changes")  # the diff, as changes reads it
    run.check("context prime", primed.get("status") == "answered", primed)
    recorded = run.json("feedback record", "--intent", "usage", "--target", "helper", "--answer-id",
                        usage.get("answer_id"), "--reads-avoided", "2", "--files-read", "0", "--correct")
    run.check("feedback record", recorded.get("eval_case") is True, recorded)
    run("feedback report")
    run("feedback export")
    run("connect", "--connection", "hostile", "--repository", "owner/repo", "--recipient", RECIPIENT)
    run("connection-status", "--connection", "hostile")
    run("agents init", "--connection", "agents-hostile")  # finds the checkout and connects it (git)
    run("agents remove", "--connection", "agents-hostile")
    auth = files / "auth.json"
    run("auth init", "--connection", "hostile", "--repository", "owner/repo", "--recipient", RECIPIENT,
        "--out", auth)
    packet = files / "packet.json"
    run("query", "--question", "impact", "--target", "helper", "--authorization", auth, "--packet-out", packet)
    run("score", packet)
    session = files / "session.json"
    run("session init", session, "--connection", "hostile", "--repository", "owner/repo", "--recipient",
        RECIPIENT, "--work-item", "w1", "--directory", repo)
    handle = run.json("session prepare", session, "--question", "impact", "--query", "helper").get("packet_handle")
    run("context fetch", "--connection", "hostile", "--handle", handle, "--recipient", RECIPIENT)
    run("fleet add", "hostile-fleet", "--repo-path", repo)
    run("fleet list", "hostile-fleet")
    run("fleet usages", "hostile-fleet", "helper")
    fleet = run.json("doctor", "--fleet", "hostile-fleet")  # git status, git show -s of the signed commit
    run.check("doctor --fleet", [member["dirty"] for member in fleet.get("members", [])] == [1], fleet)
    run("doctor")
    run("audit")
    run("export")
    mcp_tools_call(run, state)

    before = gitio.resolve_revision(repo, "HEAD").commit
    (repo / "pkg" / "core.py").write_text(CORE_LATER)
    hostile.quiet_git(repo, "commit", "-qam", "a constant above helper")
    run("refresh", "--keep-previous")
    run("diff", before, "HEAD")
    carried = run.json("eval run")  # the case recorded on the first generation, carried through `git diff`
    run.check("eval run", carried.get("counts", {}).get("unchanged") == 1, carried)
    run("feedback purge")
    run("fleet remove", "hostile-fleet", repo)
    run("disconnect", "--connection", "hostile")
    run("remove")

    assert run.ran == {}, f"repository-configured programs ran: {run.ran}"
    assert run.failed == {}, run.failed
    commands = set(command_paths(typer.main.get_command(app)))
    assert commands - run.invoked == set(), "give every command of the command table an invocation here"
    assert run.invoked <= commands


def test_a_subcommand_outside_the_table_is_refused_before_any_child_starts(tmp_path: Path) -> None:
    """A subcommand outside the table is refused before any child starts (a programming error)."""
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    with pytest.raises(ValueError, match="not a subcommand"):
        gitio.run_git(repo, "commit", "-m", "x")
    with pytest.raises(ValueError, match="not a subcommand"):
        gitio.run_git(repo, "-c", "core.pager=evil", "log")


def test_the_providers_tree_holds_no_repository_and_reaches_no_configuration(tmp_path: Path) -> None:
    """The provider runs git in the materialised commit (``rev-parse HEAD``): that tree has no
    ``.git`` even when the commit tracks one (a hand-made tree), and a commit laid out as a bare
    repository (``HEAD``, ``objects/``, ``refs/``, its own ``config``) is not taken for one."""
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})

    def plumbing(*args: str, data: str) -> str:
        done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args],
                              input=data.encode(), capture_output=True, check=True)
        return done.stdout.decode().strip()

    config = plumbing("hash-object", "-w", "--stdin", data="[core]\n\tbare = true\n")
    head = plumbing("hash-object", "-w", "--stdin", data="ref: refs/heads/main\n")
    dot_git = plumbing("mktree", data=f"100644 blob {config}\tconfig\n")
    main = plumbing("mktree", data=f"100644 blob {head}\tmain\n")
    heads = plumbing("mktree", data=f"040000 tree {main}\theads\n")
    objects = plumbing("mktree", data=f"100644 blob {head}\tkeep\n")
    package = plumbing("mktree", data=f"040000 tree {dot_git}\t.git\n100644 blob {head}\tkeep\n")
    top = plumbing("mktree", data=(
        f"040000 tree {dot_git}\t.git\n100644 blob {head}\tHEAD\n100644 blob {config}\tconfig\n"
        f"040000 tree {objects}\tobjects\n040000 tree {heads}\trefs\n040000 tree {package}\tpkg\n"))
    commit = plumbing("commit-tree", top, "-m", "bare-looking", data="")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    materialise(gitio.read_census(repo, commit), repo, scratch / "source")
    written = sorted(path.relative_to(scratch / "source").as_posix()
                     for path in (scratch / "source").rglob("*") if path.is_file())
    assert written == ["HEAD", "config", "objects/keep", "pkg/keep", "refs/heads/main"]  # no .git/config
    found = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=scratch / "source",
                           env=provider_environment(scratch), capture_output=True, text=True, check=False)
    assert found.returncode != 0, f"the provider's git took the tree for a repository: {found.stdout}"
