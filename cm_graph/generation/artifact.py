"""The generation artifact ``graph.bin``: a reproducible, uncompressed PAX tar of provider output.

Packing fixes every header field that could carry where or when it ran (mtime 0, mode 0600,
uid/gid 0, no owner names, sorted members), so one provider output is one artifact byte string.
Reading opens the ``graph.json`` member as a bounded stream: its declared size and the bytes
actually delivered are both held to the artifact budget, and nothing is read ahead of the parser.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO, BinaryIO

from ..base.errors import Corrupt, InvalidInput, Oversized, Unreadable
from .manifest import MAX_ARTIFACT_BYTES

GRAPH_MEMBER = "graph.json"
INVENTORY_MEMBER = "manifest.json"
MAX_GRAPH_MEMBER_BYTES = MAX_ARTIFACT_BYTES
_HASH_CHUNK = 1024 * 1024


class _BudgetedWriter(io.RawIOBase):
    """A write-only file that refuses to grow past the artifact budget."""

    def __init__(self, handle: BinaryIO, budget: int) -> None:
        self._handle = handle
        self._budget = budget
        self.written = 0
        self.sha = hashlib.sha256()

    def writable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.written

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.written += len(data)
        if self.written > self._budget:
            raise Oversized("The graph artifact exceeds its size budget.")
        self.sha.update(data)
        return self._handle.write(data)


def pack(output_dir: Path, members: Iterable[str], destination: BinaryIO) -> tuple[int, str]:
    """Write the named regular files of ``output_dir`` as a reproducible tar.

    Returns the artifact's size and SHA-256. A symlinked or missing member is a refusal: the
    artifact only ever holds what the provider wrote as plain files.
    """
    writer = _BudgetedWriter(destination, MAX_ARTIFACT_BYTES)
    with tarfile.open(fileobj=writer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name in sorted(members):
            path = output_dir / name
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                raise InvalidInput(f"The provider output lacks a regular {name}.") from None
            with os.fdopen(fd, "rb") as handle:
                st = os.fstat(handle.fileno())
                if not (st.st_mode & 0o170000 == 0o100000):
                    raise InvalidInput(f"The provider output's {name} is not a regular file.")
                if st.st_size > MAX_ARTIFACT_BYTES:
                    raise Oversized("The graph artifact exceeds its size budget.")
                info = tarfile.TarInfo(name)
                info.size = st.st_size
                info.mtime = 0
                info.mode = 0o600
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                archive.addfile(info, handle)
    return writer.written, writer.sha.hexdigest()


def file_digest(handle: BinaryIO, limit: int) -> tuple[int, str]:
    """Size and SHA-256 of an open file, read in chunks and refused past ``limit`` bytes."""
    sha = hashlib.sha256()
    size = 0
    handle.seek(0)
    while chunk := handle.read(_HASH_CHUNK):
        size += len(chunk)
        if size > limit:
            raise Oversized("The graph artifact exceeds its size budget.")
        sha.update(chunk)
    handle.seek(0)
    return size, sha.hexdigest()


class BoundedMember(io.RawIOBase):
    """A read-only view of one tar member that refuses to deliver more than it declared."""

    def __init__(self, stream: IO[bytes], declared: int, budget: int) -> None:
        self._stream = stream
        self._declared = declared
        self._budget = budget
        self.delivered = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        if not len(buffer):
            return 0
        try:
            data = self._stream.read(len(buffer))
        except (tarfile.TarError, OSError):
            raise Corrupt("The graph artifact ends before its graph member does.") from None
        self.delivered += len(data)
        if self.delivered > min(self._declared, self._budget):
            raise Oversized("The graph member delivers more bytes than its budget allows.")
        if not data and self.delivered < self._declared:
            raise Corrupt("The graph artifact ends before its graph member does.")
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        if size is None or size < 0:
            size = 1024 * 1024
        buffer = bytearray(size)
        count = self.readinto(buffer)
        return bytes(buffer[:count])


def open_graph_member(handle: BinaryIO) -> BoundedMember:
    """Open ``graph.json`` inside an uncompressed tar, bounded by the artifact budget."""
    handle.seek(0)
    try:
        archive = tarfile.open(fileobj=handle, mode="r:")
        member = archive.getmember(GRAPH_MEMBER)
    except KeyError:
        raise Unreadable("The graph artifact has no graph.json member.") from None
    except (tarfile.TarError, OSError, EOFError):
        raise Unreadable("The graph artifact is not an uncompressed tar archive.") from None
    if not member.isreg():
        raise Unreadable("The graph artifact's graph.json is not a regular file.")
    if member.size > MAX_GRAPH_MEMBER_BYTES:
        raise Oversized("The graph member declares more bytes than the artifact budget.")
    stream = archive.extractfile(member)
    if stream is None:
        raise Unreadable("The graph artifact's graph.json cannot be read.")
    return BoundedMember(stream, member.size, MAX_GRAPH_MEMBER_BYTES)
