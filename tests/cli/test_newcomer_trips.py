"""Issue 32: small things a new user trips on, each on the command line over a real git
repository and a real index (G0 published through the shared code; the real provider where a
build is the point)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.cli import invoke, where
from ..support.g0 import g0_graph
from ..support.helpers import publish


@pytest.fixture
def g0(g0_repo: Path, state_dir: Path) -> list[str]:
    publish(g0_repo, state_dir, g0_graph())
    return where(g0_repo, state_dir)


@pytest.mark.parametrize("spelled", ["./example_pkg/config.py", "example_pkg//config.py",
                                     "example_pkg/./config.py", "./example_pkg/config.py::parse_config"])
def test_a_path_spelled_as_a_shell_completes_it_resolves_as_written_plainly(g0: list[str], spelled: str) -> None:
    """Item 10: ``./pkg/mod.py`` (tab completion writes it) reads as ``pkg/mod.py`` in ``context``
    and ``ask`` as ``symbols`` reads it: one target grammar, ``query/targets.py``."""
    plain = spelled.replace("./", "").replace("//", "/").removeprefix("./")
    for command in (["context", "usage"], ["ask", "impact"]):
        expected = json.loads(invoke(*command, plain, *g0, "--json").stdout)
        ran = invoke(*command, spelled, *g0, "--json")
        assert ran.exit_code == 0, (command, ran.stderr)
        got = json.loads(ran.stdout)
        if command[0] == "context":
            assert got["anchors"] == expected["anchors"] and got["status"] == "answered", got["anchors"]
        else:
            assert [s["label"] for s in got["answers"][0]["seeds"]] == [
                s["label"] for s in expected["answers"][0]["seeds"]]
