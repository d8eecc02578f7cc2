"""The stdio wire read and written on the event loop when it is a pipe or a socket: no thread per line.

The SDK's stdio transport reads each line and writes and flushes each reply through a worker
thread (``anyio.wrap_file``): three thread hops per request besides the handler's own, each a
pair of wake-ups. A pipe or a socket can be read and written by the event loop itself (asyncio's
pipe transports: the read is an ``epoll`` wake-up, a write goes straight to the kernel and is
buffered by the loop only when the pipe is full, and ``flush`` waits for the buffer to drain, so
a client that does not read never blocks the loop). Anything else (a terminal, a file) keeps
the thread path, since the loop can not wait on it, and so does a loop that is not asyncio's.

Lines are what the SDK's text reader gives: UTF-8 with undecodable bytes replaced, universal
newlines (``\\r\\n`` and ``\\r`` read as ``\\n``, as ``io.TextIOWrapper`` reads them), the last
line without its newline; replies are UTF-8. The descriptors are the process's own duplicates,
switched to non-blocking while served and switched back after.
"""

from __future__ import annotations

import asyncio
import codecs
import io
import os
import stat
from collections.abc import AsyncIterator

CHUNK = 65_536


def loop_can_wait_on(fd: int) -> bool:
    """True for a pipe or a socket, when the running loop is asyncio's (anyio's default)."""
    try:
        mode = os.fstat(fd).st_mode
        asyncio.get_running_loop()
    except (OSError, RuntimeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def split_lines(decoder: io.IncrementalNewlineDecoder, data: bytes, pending: str, final: bool) -> tuple[list[str], str]:
    """The whole lines ``data`` completes after ``pending`` (each ending ``\\n``), and what is left
    (at the end, ``final``, the rest is a last line when it is not empty)."""
    text = pending + decoder.decode(data, final)
    lines = text.split("\n")
    rest = lines.pop()
    whole = [line + "\n" for line in lines]
    if final and rest:
        whole.append(rest)
        rest = ""
    return whole, rest


def newline_decoder() -> io.IncrementalNewlineDecoder:
    return io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")(errors="replace"), translate=True)


class PipeLines:
    """The lines of the pipe or socket ``fd``, read on the event loop (``fd`` stays the caller's)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=CHUNK, loop=loop)
        blocking = os.get_blocking(self.fd)
        pipe = open(os.dup(self.fd), "rb", buffering=0)  # noqa: SIM115 (the transport closes it)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
        decoder, pending = newline_decoder(), ""
        try:
            while True:
                data = await reader.read(CHUNK)
                lines, pending = split_lines(decoder, data, pending, final=not data)
                for line in lines:
                    yield line
                if not data:
                    return
        finally:
            transport.close()
            os.set_blocking(self.fd, blocking)


class PipeWriter:
    """The SDK's ``stdout`` (``write`` then ``flush`` per message) over the pipe or socket ``fd``,
    written by the event loop; ``close`` waits for what is buffered (``fd`` stays the caller's)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._blocking = os.get_blocking(fd)
        self._writer: asyncio.StreamWriter | None = None

    async def _opened(self) -> asyncio.StreamWriter:
        if self._writer is None:
            loop = asyncio.get_running_loop()
            pipe = open(os.dup(self.fd), "wb", buffering=0)  # noqa: SIM115 (the transport closes it)
            transport, protocol = await loop.connect_write_pipe(
                lambda: asyncio.streams.FlowControlMixin(loop=loop), pipe)
            self._writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return self._writer

    async def write(self, text: str) -> None:
        (await self._opened()).write(text.encode("utf-8"))

    async def flush(self) -> None:
        await (await self._opened()).drain()

    async def close(self) -> None:
        if self._writer is not None:
            writer, self._writer = self._writer, None
            try:
                await writer.drain()
            finally:
                writer.close()  # drained: the transport closes at once
        os.set_blocking(self.fd, self._blocking)
