"""The index's integrity seal: what the index was when it was derived, and from what.

``indexes/<generation>.sqlite.seal`` records, when the importer renames a finished index into
place, the index file's SHA-256 and identity (device, inode, size, mtime_ns, ctime_ns) and the
identity of the graph.bin it was derived from. A question trusts the index only while both
identities are unchanged (any write, rename or chmod moves ctime, which an unprivileged process
cannot set back); otherwise the digests are recomputed: an index whose bytes no longer match
its seal, or that has no seal, is derived again (it is derived state), and a graph.bin that no
longer matches its manifest is ``corrupt``. The graph.bin's own seal is not enough on the
question path: a forged one over an edited graph.bin would pass, but the edit still moves the
identity recorded here. ``status`` and ``audit`` always hash the index in full.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..base.errors import Refusal
from ..base.privfs import open_private_read, read_private_bytes, write_private_atomic
from ..generation.store import Generation

SEAL_SUFFIX = ".seal"
_VERSION = "cm-graph-index-seal-1"


def seal_path(index: Path) -> Path:
    return index.with_name(index.name + SEAL_SUFFIX)


def _identity(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def file_sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def write_seal(generation: Generation, index: Path, digest: str | None = None, *, token: str | None = None) -> None:
    """Seal ``index`` as it is now (hashing it unless ``digest`` is its known SHA-256); ``token``
    is the scratch owner's when a builder writes it."""
    digest = digest or file_sha256(index)
    text = " ".join((
        _VERSION, generation.id, digest, _identity(os.stat(index)), _identity(os.stat(generation.artifact_path)),
    ))
    write_private_atomic(seal_path(index), f"{text}\n".encode("ascii"), token=token)


def _read_seal(generation: Generation, index: Path) -> tuple[str, str, str] | None:
    """(index digest, index identity, artifact identity), or None when there is no valid seal."""
    try:
        fields = read_private_bytes(seal_path(index), 512).decode("ascii").split()
    except (OSError, Refusal, UnicodeDecodeError):
        return None
    if len(fields) != 5 or fields[0] != _VERSION or fields[1] != generation.id:
        return None
    return fields[2], fields[3], fields[4]


def index_is_sealed(generation: Generation, index: Path, *, full: bool) -> bool:
    """Is ``index`` the file its seal describes? With ``full`` its bytes are always hashed.

    A graph.bin whose identity moved since the derivation is verified in full first (raising
    ``Corrupt`` when it no longer matches its manifest). A re-verified pair is sealed again with
    its new identities, so the next question is cheap once more.
    """
    seal = _read_seal(generation, index)
    if seal is None:
        return False
    digest, index_identity, artifact_identity = seal
    try:
        artifact_moved = _identity(os.stat(generation.artifact_path)) != artifact_identity
        index_moved = _identity(os.stat(index)) != index_identity
    except OSError:
        return False
    if artifact_moved:
        generation.open_verified_artifact().close()
    if index_moved or full:
        try:
            if file_sha256(index) != digest:
                return False
        except OSError:
            return False
    if artifact_moved or index_moved:
        try:
            write_seal(generation, index, digest)
        except (OSError, Refusal):
            pass  # the seal is an optimisation here: without it the next question hashes again
    return True



def copy_if_sealed(generation: Generation, index: Path, target: int) -> bool:
    """Copy ``index`` into the open file ``target`` while hashing it; True when the bytes copied
    are the ones its seal describes (one read serves both the check and the copy). False (no
    seal, not a private regular file, other bytes) leaves ``target`` holding something to
    discard."""
    import hashlib

    seal = _read_seal(generation, index)
    if seal is None:
        return False
    digest = hashlib.sha256()
    try:
        fd = open_private_read(index)
    except (OSError, Refusal):
        return False
    with os.fdopen(fd, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(target, view):]
    return digest.hexdigest() == seal[0]
