"""The stdio wire, read by us before the SDK reads it: a message that repeats a key is answered
here, never passed on.

The SDK's JSON reader keeps the last of a repeated key (``{"target": "a", "target": "b"}`` is a
call about ``b``), while a proxy, a log or a policy check in between may have read the first: two
readers, two requests. The HTTP door refuses such a body (``guard.py``), REST refuses it when it
decodes arguments; here each line is judged before the SDK sees it, and a repeating one gets a
JSON-RPC *Invalid Request* error naming the request's id when it named one unambiguously.
Everything else reaches the SDK byte for byte, and the wire's file descriptor 0 is diverted to
the null device while served (as the SDK does for the stream it claims), so no child reads it.
A pipe or a socket is read, and replies written, on the event loop (``stdio_pipes.py``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio

from ..base.jsonio import repeats_a_key, sole_member
from .stdio_pipes import PipeLines, PipeWriter, loop_can_wait_on

INVALID_REQUEST = -32600  # JSON-RPC 2.0
REPEATED_REQUEST_KEY = "The request repeats a key; send each key of every object once."


class JudgedLines:
    """The wire's lines as the SDK's reader iterates them, without those that repeat a key: each
    of those goes to ``answer`` instead."""

    def __init__(self, wire: Any, answer: Callable[[Any], Awaitable[None]]) -> None:
        self.wire, self.answer = wire, answer

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self.wire:
            if repeats_a_key(line):
                await self.answer(request_id(line))
                continue
            yield line


def request_id(line: str) -> int | str | None:
    """The request's id when it gave one, once, of a type JSON-RPC allows (else null)."""
    value = sole_member(line, "id")
    return value if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)) else None


@contextmanager
def claimed_stdin() -> Iterator[Any]:
    """The process's stdin as async lines (read on the event loop when it is a pipe or a socket,
    ``stdio_pipes.py``; else an async text file), with fd 0 pointed at the null device until the
    block ends (then restored)."""
    wire = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    text = open(wire, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115 (closed below)
    try:
        yield PipeLines(wire) if loop_can_wait_on(wire) else anyio.wrap_file(text)
    finally:
        text.close()
        os.dup2(wire, 0)
        os.close(wire)


@asynccontextmanager
async def claimed_stdout() -> AsyncIterator[Any]:
    """The process's stdout as the SDK's reply stream when it is a pipe or a socket (written on
    the event loop, ``stdio_pipes.py``), with fd 1 pointed at stderr (the null device when there is
    none) until the block ends, as the SDK does for the stdout it claims itself, so no stray
    print or child reaches the wire; None otherwise (the SDK then claims stdout as it does)."""
    if not loop_can_wait_on(1):
        yield None
        return
    wire = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        diversion = os.dup(2)
    except OSError:
        diversion = os.open(os.devnull, os.O_WRONLY)
    os.dup2(diversion, 1)  # what a print had buffered goes to stderr when flushed, never the wire
    os.close(diversion)
    writer = PipeWriter(wire)
    try:
        yield writer
    finally:
        try:
            await writer.close()
        finally:
            os.dup2(wire, 1)
            os.close(wire)
