"""Fixtures of the agent-surface tests: the MCP SDK's client runs on asyncio; the MCP Inspector's
command line, from npm, is a client nobody here wrote."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ..support.network import npm_registry_unreachable

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def inspector() -> list[str]:
    """The Inspector's own ``mcp-inspector --cli``, fetched by ``npx --yes`` once per run (each
    call through npx would resolve the package again, about 1.7 s); skipped, with the reason,
    without node or the npm registry."""
    if shutil.which("npx") is None:
        pytest.skip("the MCP Inspector's command line needs node and npx")
    unreachable = npm_registry_unreachable()
    if unreachable is not None:
        pytest.skip(f"the MCP Inspector comes from npm: {unreachable}")
    found = subprocess.run(["npx", "--yes", "-p", INSPECTOR, "-c", "command -v mcp-inspector"],
                           capture_output=True, text=True, timeout=300)
    assert found.returncode == 0 and found.stdout.strip(), found.stderr[-2000:]
    return [found.stdout.strip(), "--cli"]
