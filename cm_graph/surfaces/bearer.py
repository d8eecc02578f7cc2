"""The TCP server's bearer token: made once, kept in ``<state>/run/token``, trusted only in its own shape.

A token is 32 random bytes as URL-safe base64 (43 characters, 256 bits), written 0600 on first
use. Whatever holds the file afterwards is checked before anything is bound: a file of the wrong
length or alphabet (empty, one byte, non-ASCII, pasted text) would otherwise become a guessable
token or a server nobody can reach, and a symlink, a group-readable or hard-linked file is not one
this program made. Each is refused with one reason and the way to get a new token; the file is
never rewritten behind the operator's back. Tokens written by earlier releases (64 hex digits)
have the shape too.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from ..base.errors import BadTokenFile, Refusal
from ..base.locking import build_lock
from ..base.privfs import read_private_bytes, write_private_atomic

TOKEN_FILE = "token"
TOKEN_LOCK = "token.lock"
TOKEN_BYTES = 32
# 43 characters is 32 bytes of URL-safe base64, the least this program writes; 128 bounds a pasted one.
TOKEN_SHAPE = re.compile(rb"[A-Za-z0-9_-]{43,128}\n?", re.ASCII)
MAX_TOKEN_FILE_BYTES = 129
BAD_TOKEN_FILE = (
    "The bearer token file <state>/run/token is not one cm-graph made (an owner-only file of 43 to 128 "
    "URL-safe characters); delete it and start `cm-graph mcp --http --port N` again, which makes a new one."
)


def bearer_token(run_directory: Path) -> str:
    """The TCP bearer token: the one in the private run directory's token file, made there on
    first use. Made under the run directory's token lock, and only if the file is still missing
    once the lock is held: two servers started together would otherwise each serve a token of
    its own while the file keeps only the last, and a client reading it could not reach the other."""
    path = run_directory / TOKEN_FILE
    token = _read(path)
    if token is not None:
        return token
    with build_lock(run_directory / TOKEN_LOCK, 30.0, busy_message="Another server is making the bearer token; "
                    "start this one again."):
        token = _read(path)
        if token is None:
            token = secrets.token_urlsafe(TOKEN_BYTES)
            write_private_atomic(path, token.encode("ascii") + b"\n")
    return token


def _read(path: Path) -> str | None:
    """The token the file holds, None when there is no file, refused when it is not one of ours."""
    try:
        data = read_private_bytes(path, MAX_TOKEN_FILE_BYTES)
    except FileNotFoundError:
        return None
    except Refusal:  # a symlink, another mode or owner, a second link, not a file, too large
        raise BadTokenFile(BAD_TOKEN_FILE) from None
    if TOKEN_SHAPE.fullmatch(data) is None:
        raise BadTokenFile(BAD_TOKEN_FILE)
    return data.rstrip(b"\n").decode("ascii")
