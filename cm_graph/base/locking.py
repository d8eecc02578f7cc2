"""The per-checkout build lock: two builds (or a build and a remove) never interleave."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import BuildBusy
from .privfs import FILE_MODE

LOCK_WAIT_SECONDS = 35.0


@contextmanager
def build_lock(
    path: Path, wait_seconds: float | None = None,
    busy_message: str = "A local graph build is already running for this checkout.",
) -> Iterator[None]:
    """Hold an exclusive lock on ``path``; wait up to ``wait_seconds`` (default
    ``LOCK_WAIT_SECONDS``, read at call time), then refuse clearly."""
    if wait_seconds is None:
        wait_seconds = LOCK_WAIT_SECONDS
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise BuildBusy(busy_message) from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)
