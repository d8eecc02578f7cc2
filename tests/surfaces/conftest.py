"""Fixtures of the agent-surface tests: the MCP SDK's client runs on asyncio."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
