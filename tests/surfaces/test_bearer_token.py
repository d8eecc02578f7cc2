"""Issue 25 item 4: the TCP server trusts its bearer token file only in the shape it writes.

The real ``cm-graph mcp --http --port`` process is started over each file that is not one
cm-graph made (empty, one byte, non-ASCII, too long, the wrong alphabet, a symlink, a
group-readable or hard-linked file, a directory): each is refused before anything is bound, in one
line with one reason and the way to get a new token, exit 1, no traceback, the file left as it was.
A token cm-graph makes carries at least 256 bits.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from cm_graph.surfaces.bearer import BAD_TOKEN_FILE, bearer_token  # noqa: E402

from ..support.files import mode  # noqa: E402
from ..support.helpers import CM_GRAPH  # noqa: E402
from ..support.surfacekit import connected  # noqa: E402

GOOD = b"Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5_-\n"  # 46 URL-safe characters


def contents(data: bytes) -> Callable[[Path], None]:
    def place(path: Path) -> None:
        path.write_bytes(data)
        path.chmod(0o600)

    return place


def symlink(path: Path) -> None:
    elsewhere = path.parent.parent / "elsewhere-token"
    contents(GOOD)(elsewhere)
    path.symlink_to(elsewhere)


def group_readable(path: Path) -> None:
    contents(GOOD)(path)
    path.chmod(0o640)


def hard_linked(path: Path) -> None:
    contents(GOOD)(path)
    os.link(path, path.parent.parent / "second-name")


BAD_FILES: dict[str, Callable[[Path], None]] = {
    "empty": contents(b""),
    "one-byte": contents(b"a"),
    "one-line": contents(b"a\n"),
    "non-ascii": contents("é".encode() * 30),
    "invalid-utf8": contents(b"\xff" * 50),
    "too-long": contents(b"A" * 129),
    "far-too-long": contents(b"A" * 4096),
    "standard-base64": contents(b"ab+/" * 12),
    "spaces-inside": contents(b"Zm9vYmFy YmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5\n"),
    "crlf": contents(GOOD.rstrip(b"\n") + b"\r\n"),
    "two-lines": contents(GOOD + GOOD),
    "symlink": symlink,
    "group-readable": group_readable,
    "hard-linked": hard_linked,
    "directory": lambda path: path.mkdir(mode=0o700),
}


def snapshot(path: Path) -> tuple[bool, bytes | None, int]:
    """What the operator left at ``path`` (a link is not followed), to hold it untouched."""
    if path.is_symlink():
        return True, os.readlink(path).encode(), mode(path)
    if path.is_dir():
        return False, None, mode(path)
    return False, path.read_bytes(), mode(path)


@pytest.mark.parametrize("bad", BAD_FILES)
def test_a_token_file_cm_graph_did_not_make_is_refused_before_anything_is_served(tmp_path: Path, bad: str) -> None:
    served = connected(tmp_path)
    run = served.state / "run"
    run.mkdir(mode=0o700)
    token = run / "token"
    BAD_FILES[bad](token)
    before = snapshot(token)
    done = subprocess.run([str(CM_GRAPH), *served.args("claude:builder", "--http", "--port", "0")],
                          env=served.env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, (bad, done.stderr)
    assert done.stderr == f"cm-graph: bad_token_file: {BAD_TOKEN_FILE}\n", (bad, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert snapshot(token) == before


def test_a_made_token_has_256_bits_and_is_read_back_as_made(tmp_path: Path) -> None:
    """What the refusal tells the operator to do works: with the file deleted, the next start
    makes a new token (32 random bytes, URL-safe base64), and reads it back as made."""
    made = []
    for name in ("one", "two"):
        run = tmp_path / name
        run.mkdir(mode=0o700)
        made.append(bearer_token(run))
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", made[-1]), made[-1]
        assert (run / "token").read_bytes() == made[-1].encode() + b"\n" and mode(run / "token") == 0o600
        assert bearer_token(run) == made[-1]
    assert made[0] != made[1]
    legacy = "0123456789abcdef" * 4  # what earlier releases wrote: 32 random bytes as hex
    (run / "token").write_bytes(legacy.encode() + b"\n")
    assert bearer_token(run) == legacy
    (run / "token").write_bytes(GOOD.rstrip(b"\n"))  # no newline: an operator's own `echo -n`
    assert bearer_token(run) == GOOD.rstrip(b"\n").decode()


def test_first_starts_at_once_all_serve_the_token_the_file_holds(tmp_path: Path) -> None:
    """Servers started together before any token exists (an agent host starting two): each must
    serve the one token the file ends up holding, or a client reading the file cannot reach it."""
    from ..support.sweep_surfaces import token_race

    broke = [problem for number in range(8) if (problem := token_race(tmp_path, number, processes=4))]
    assert broke == [], broke
