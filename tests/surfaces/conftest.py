"""Fixtures of the agent-surface tests: the MCP SDK's client runs on asyncio; the MCP Inspector's
command line, from npm, is a client nobody here wrote."""

from __future__ import annotations

import shutil

import pytest

from ..support.network import npm_registry_unreachable

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """``npx --yes <the Inspector> --cli``; skipped, with the reason, without node or the npm registry."""
    if shutil.which("npx") is None:
        pytest.skip("the MCP Inspector's command line needs node and npx")
    unreachable = npm_registry_unreachable()
    if unreachable is not None:
        pytest.skip(f"the MCP Inspector comes from npm: {unreachable}")
    return ["npx", "--yes", INSPECTOR, "--cli"]
