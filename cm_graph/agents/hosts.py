"""The agent hosts ``cm-graph agents`` sets up, what each reads, and what is written for it.

Each host reads an instructions file and a project MCP config (paths as the hosts document them,
see docs/agents.md): Claude Code ``CLAUDE.md`` and ``.mcp.json`` (``mcpServers``, with
``"type": "stdio"``); Codex ``AGENTS.md`` and ``.codex/config.toml`` (``[mcp_servers.<name>]``,
read in a trusted project); Cursor ``AGENTS.md`` and ``.cursor/mcp.json``. Every registration
names the state root twice, as ``--state-dir`` and as ``CM_GRAPH_HOME`` in ``env``: a host that
starts the server without the operator's environment (the MCP Inspector 2.x passes none) would
otherwise make it read the default root and find nothing.

The instructions block says which tool answers which question, naming only tools of
``surfaces/tools.py`` and commands of ``cli/command_table.py`` (a test holds every name to them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .jsonsplice import REGISTERED_NAME


@dataclass(frozen=True)
class Host:
    name: str
    instructions: str  # the file the host reads its project instructions from
    config: str        # its project MCP config, relative to the checkout
    config_format: str  # "json" (mcpServers) or "toml" (mcp_servers tables)
    recipient: str      # who the evidence is for, as the connection names it
    typed: bool = False  # Claude Code's entries say their transport ("type": "stdio")


HOSTS: dict[str, Host] = {host.name: host for host in (
    Host("claude", "CLAUDE.md", ".mcp.json", "json", "claude:builder", typed=True),
    Host("codex", "AGENTS.md", ".codex/config.toml", "toml", "codex:builder"),
    Host("cursor", "AGENTS.md", ".cursor/mcp.json", "json", "cursor:builder"),
)}
HOST_CHOICES = (*HOSTS, "all")

INSTRUCTIONS_BLOCK = """\
## Code graph: ask it before you grep

This checkout's code graph is served by the `cm-graph` MCP server (a cited, offline index of the
bound commit). Ask it first; read only the cited lines you must edit.

| question | MCP tool | shell |
|---|---|---|
| where is X used, who calls it | `code_context` `{"target": "X", "intent": "usage"}` | `cm-graph context usage X` |
| what breaks if X changes | `code_context` with `"intent": "impact"` | `cm-graph context impact X` |
| which tests reach X (what to run) | `code_context` with `"intent": "tests"` | `cm-graph context tests X` |
| how X works (callees, docstring) | `code_context` with `"intent": "how"` | `cm-graph context how X` |
| cited evidence for one question | `ask` `{"question": "impact", "target": "X"}` | `cm-graph ask impact X` |
| where X is used in other repositories | `cross_repo_usages` `{"symbol": "pkg.X"}` | `cm-graph fleet usages F pkg.X` |
| can the graph answer now | `graph_status` | `cm-graph status` |
| what a file defines | | `cm-graph symbols PATH` |

Every answer says its `freshness`; when it is `stale`, run `cm-graph refresh`. After a task,
report with `graph_feedback` (its `capability_id` and `answer_id`) whether an answer saved reads.
"""


def chosen(host: str) -> tuple[Host, ...]:
    return tuple(HOSTS.values()) if host == "all" else (HOSTS[host],)


def server_arguments(connection: str, recipient: str, state_root: Path) -> list[str]:
    return ["mcp", "--connection", connection, "--recipient", recipient, "--state-dir", str(state_root)]


def server_entry(host: Host, program: str, connection: str, state_root: Path) -> dict[str, Any]:
    """The host's MCP server entry: the absolute program, the connection, and the state root."""
    entry: dict[str, Any] = {"type": "stdio"} if host.typed else {}
    entry.update(command=program, args=server_arguments(connection, host.recipient, state_root),
                 env={"CM_GRAPH_HOME": str(state_root)})
    return entry


def toml_table(entry: dict[str, Any]) -> str:
    """The entry as one self-contained TOML table, ``[mcp_servers.cm-graph]``.

    Python has no TOML writer in its standard library (``tomllib`` only reads), and re-serialising
    the user's file would rewrite its comments and layout. A table is the smallest honest unit: a
    table header ends whatever table came before it, so a table appended at the end of any valid
    document that does not define the same key is valid, and ``tomllib`` checks that on the result
    (``plan.py``). Strings are written as JSON strings, which are TOML basic strings (``\\uXXXX``
    escapes for anything outside printable ASCII: ``ensure_ascii``)."""
    def string(value: str) -> str:
        return json.dumps(value, ensure_ascii=True)

    args = ", ".join(string(arg) for arg in entry["args"])
    env = ", ".join(f"{name} = {string(value)}" for name, value in entry["env"].items())
    return (f"[mcp_servers.{REGISTERED_NAME}]\ncommand = {string(entry['command'])}\nargs = [{args}]\n"
            f"env = {{ {env} }}\n")
