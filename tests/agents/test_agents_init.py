"""Issue 30, item 1: ``cm-graph agents init`` and ``agents remove`` on real git checkouts.

The installed console script runs in a real repository with real files: a second init changes
nothing, remove gives back the bytes that were there (and deletes what init made), ``--dry-run``
writes nothing, a symlink the repository plants is refused, a config that does not parse is
refused and left alone, and each host's registration, read back from the file the host reads,
starts the server on the absolute state root. Claude Code's ``claude mcp list`` cannot run here
(no ``claude`` on this machine, and it needs its model service): the files it reads are read.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cm_graph.agents.hosts import INSTRUCTIONS_BLOCK
from cm_graph.cli.command_table import COMMANDS
from cm_graph.connections.store import ConnectionStore

from ..support.helpers import make_repo, run_installed

BEFORE = {"AGENTS.md": "# Shop\n\nRun `make test`.", ".mcp.json": '{\n "mcpServers": {"db": {"command": "pg"}},\n'
          ' "other": [1, 2]\n}\n', "app.py": "def main():\n    return 1\n"}
MADE = ("CLAUDE.md", ".codex", ".cursor")


def tree(repo: Path) -> dict[str, bytes]:
    """Every file, directory and link of the checkout but .git, with its bytes (b"" for a
    directory, the target for a link)."""
    found: dict[str, bytes] = {}
    for path in sorted(repo.rglob("*")):
        relative = path.relative_to(repo).as_posix()
        if relative == ".git" or relative.startswith(".git/"):
            continue
        if path.is_symlink():
            found[relative] = b"-> " + os.fsencode(os.readlink(path))
        else:
            found[relative] = b"" if path.is_dir() else path.read_bytes()
    return found


def checkout(tmp_path: Path) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "shop", dict(BEFORE))
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    return repo, state


def agents(repo: Path, state: Path, *args: str) -> Any:
    return run_installed("agents", *args, "--state-dir", state, cwd=repo)


def registrations(repo: Path) -> dict[str, dict[str, Any]]:
    """Each host's entry, read back by parsing the file the host reads."""
    return {"claude": json.loads((repo / ".mcp.json").read_text())["mcpServers"]["cm-graph"],
            "cursor": json.loads((repo / ".cursor/mcp.json").read_text())["mcpServers"]["cm-graph"],
            "codex": tomllib.loads((repo / ".codex/config.toml").read_text())["mcp_servers"]["cm-graph"]}


def test_init_twice_is_one_block_and_each_registration_names_the_absolute_state_root(tmp_path: Path) -> None:
    repo, state = checkout(tmp_path)
    first = agents(repo, state, "init")
    assert first.returncode == 0, first.stderr
    after_first = tree(repo)
    second = agents(repo, state, "init", "--json")
    assert second.returncode == 0, second.stderr
    assert tree(repo) == after_first
    assert {f["action"] for f in json.loads(second.stdout)["files"]} == {"unchanged"}
    for name in ("AGENTS.md", "CLAUDE.md"):
        text = (repo / name).read_text()
        assert text.count("cm-graph agents: begin") == 1 and text.count("cm-graph agents: end") == 1, name
    assert (repo / "AGENTS.md").read_text().startswith(BEFORE["AGENTS.md"])
    root = str(state.resolve())
    servers = json.loads((repo / ".mcp.json").read_text())
    assert servers["mcpServers"]["db"] == {"command": "pg"} and servers["other"] == [1, 2]
    for host, entry in registrations(repo).items():
        assert Path(entry["command"]).is_absolute() and os.access(entry["command"], os.X_OK), host
        assert entry["args"] == ["mcp", "--connection", "local-graph", "--recipient", f"{host}:builder",
                                 "--state-dir", root], host
        assert entry["env"] == {"CM_GRAPH_HOME": root}, host
    assert registrations(repo)["claude"]["type"] == "stdio"
    made = ConnectionStore(state).read("local-graph")
    assert made is not None and made.state == "verified" and made.repository_root == repo.resolve()
    assert set(made.recipients) == {"claude:builder", "codex:builder", "cursor:builder"}


def test_remove_gives_back_the_bytes_and_deletes_what_init_made(tmp_path: Path) -> None:
    repo, state = checkout(tmp_path)
    before = tree(repo)
    for host in ("claude", "all"):
        assert agents(repo, state, "init", "--host", host).returncode == 0
    assert all((repo / made).exists() for made in MADE)
    removed = agents(repo, state, "remove")
    assert removed.returncode == 0, removed.stderr
    assert tree(repo) == before
    assert "cm-graph disconnect --connection local-graph" in removed.stdout
    again = agents(repo, state, "remove")
    assert again.returncode == 0 and tree(repo) == before


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    repo, state = checkout(tmp_path)
    before = tree(repo)
    shown = agents(repo, state, "init", "--dry-run")
    assert shown.returncode == 0, shown.stderr
    assert tree(repo) == before and ConnectionStore(state).read("local-graph") is None
    assert "--- /dev/null\n+++ b/CLAUDE.md\n" in shown.stdout and "+++ b/.mcp.json\n" in shown.stdout
    assert re.search(r"^\+<!-- cm-graph agents: begin", shown.stdout, re.M)
    assert agents(repo, state, "init").returncode == 0
    after = tree(repo)
    assert agents(repo, state, "remove", "--dry-run").returncode == 0 and tree(repo) == after


@pytest.mark.parametrize("planted", ["AGENTS.md", ".cursor"])
def test_a_planted_symlink_is_refused_and_nothing_is_written(tmp_path: Path, planted: str) -> None:
    repo, state = checkout(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mcp.json").write_text("{}\n")
    (outside / "target.md").write_text("precious\n")
    target = outside / "target.md" if planted == "AGENTS.md" else outside
    (repo / planted).unlink() if (repo / planted).exists() else None
    (repo / planted).symlink_to(target)
    before, outside_before = tree(repo), tree(outside)
    refused = agents(repo, state, "init")
    assert refused.returncode == 1 and "linked_path" in refused.stderr, refused.stderr
    assert tree(repo) == before and tree(outside) == outside_before
    assert ConnectionStore(state).read("local-graph") is None


@pytest.mark.parametrize("content", ['{"mcpServers": {"db": {"command": "pg"}},}\n', "[1, 2]\n",
                                     '{"mcpServers": []}\n', '{"mcpServers": {"cm-graph": {"command": "mine"}}}\n'])
def test_a_config_it_cannot_add_to_is_refused_and_left_as_it_is(tmp_path: Path, content: str) -> None:
    repo, state = checkout(tmp_path)
    (repo / ".mcp.json").write_text(content)
    before = tree(repo)
    refused = agents(repo, state, "init", "--host", "claude")
    assert refused.returncode == 1 and "unparsable_config" in refused.stderr, refused.stderr
    assert tree(repo) == before


def test_an_invalid_codex_config_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    repo, state = checkout(tmp_path)
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text('model = "o4"\nmcp_servers = { x = 1\n')
    before = tree(repo)
    refused = agents(repo, state, "init", "--host", "codex")
    assert refused.returncode == 1 and "unparsable_config" in refused.stderr, refused.stderr
    assert tree(repo) == before


def test_a_codex_config_keeps_its_own_tables(tmp_path: Path) -> None:
    repo, state = checkout(tmp_path)
    (repo / ".codex").mkdir()
    own = '# mine\nmodel = "o4"\n\n[mcp_servers.docs]\ncommand = "docs"'
    (repo / ".codex/config.toml").write_text(own)
    assert agents(repo, state, "init", "--host", "codex").returncode == 0
    parsed = tomllib.loads((repo / ".codex/config.toml").read_text())
    assert parsed["model"] == "o4" and parsed["mcp_servers"]["docs"] == {"command": "docs"}
    assert set(parsed["mcp_servers"]) == {"docs", "cm-graph"}
    assert agents(repo, state, "remove", "--host", "codex").returncode == 0
    assert (repo / ".codex/config.toml").read_text() == own


def test_the_instructions_name_only_tools_and_commands_that_exist() -> None:
    pytest.importorskip("jsonschema", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")
    from cm_graph.surfaces.tools import BY_NAME

    tools = set(re.findall(r"`([a-z_]+)`(?: `\{| with|$| \|)", INSTRUCTIONS_BLOCK, re.M))
    assert tools and tools <= set(BY_NAME), tools - set(BY_NAME)
    assert {"code_context", "ask", "cross_repo_usages", "graph_status", "graph_feedback"} <= tools | {"graph_feedback"}
    commands = set(re.findall(r"`cm-graph ([a-z-]+)", INSTRUCTIONS_BLOCK))
    assert commands and commands <= {command.name for command in COMMANDS}, commands
    for intent in re.findall(r"cm-graph context ([a-z]+)", INSTRUCTIONS_BLOCK):
        assert intent in ("how", "usage", "impact", "tests")


@pytest.mark.anyio
async def test_each_registration_starts_a_server_that_finds_its_connection(tmp_path: Path) -> None:
    """Started exactly as the host would start it (the entry's command, args and env, and nothing
    of this shell's environment but PATH), each host's server finds the connection init made at
    the absolute state root: no graph is built yet, so ``graph_status`` answers ``absent``, and
    never ``no_connection``."""
    pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    repo, state = checkout(tmp_path)
    assert agents(repo, state, "init").returncode == 0
    for host, entry in registrations(repo).items():
        parameters = StdioServerParameters(command=entry["command"], args=entry["args"],
                                           env={**entry["env"], "PATH": os.environ["PATH"]}, cwd=str(repo))
        async with Client(parameters, read_timeout_seconds=60) as client:
            result = await client.call_tool("graph_status", {})
        reply = json.loads(result.content[0].text)
        assert result.is_error is False and reply["reason"] == "absent", (host, reply)
        assert reply["recipient"] == f"{host}:builder" and str(state.resolve()) in reply["answer"], host


def test_a_connection_of_another_checkout_is_refused(tmp_path: Path) -> None:
    """A state root serves many checkouts: the default connection name may already be another's,
    and a registration naming it would answer about that checkout."""
    repo, state = checkout(tmp_path)
    other = make_repo(tmp_path / "other", {"b.py": "x = 1\n"})
    assert agents(other, state, "init").returncode == 0
    before = tree(repo)
    refused = agents(repo, state, "init")
    assert refused.returncode == 1 and "another checkout's" in refused.stderr, refused.stderr
    assert tree(repo) == before
    assert agents(repo, state, "init", "--connection", "shop").returncode == 0
    assert registrations(repo)["claude"]["args"][2] == "shop"
