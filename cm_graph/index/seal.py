"""The index's integrity seal: what the index was when it was derived, and from what.

``indexes/<generation>.sqlite.seal`` records, when the importer renames a finished index into
place, the index file's SHA-256 and identity (device, inode, size, mtime_ns, ctime_ns) and the
identity of the graph.bin it was derived from. A question trusts the index only while both
identities are unchanged (any write, rename or chmod moves ctime, which an unprivileged process
cannot set back); otherwise the digests are recomputed: an index whose bytes no longer match
its seal, or that has no seal, is derived again (it is derived state), and a graph.bin that no
longer matches its manifest is ``corrupt``. The graph.bin's own seal is not enough on the
question path: a forged one over an edited graph.bin would pass, but the edit still moves the
identity recorded here. ``status --verify`` and ``audit`` always hash the index in full; a plain
``status`` checks it as a question does.

A file derived from several sealed indexes rather than one graph.bin (the fleet index) is sealed
in the same line with ``-`` for the source and its own subject (``write_derived_seal``): any
change to its bytes is found the same way, and it is derived again.
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
    _write(index, generation.id, digest or file_sha256(index), _identity(os.stat(generation.artifact_path)), token)


def _write(index: Path, subject: str, digest: str, source: str, token: str | None) -> None:
    text = " ".join((_VERSION, subject, digest, _identity(os.stat(index)), source))
    write_private_atomic(seal_path(index), f"{text}\n".encode("ascii"), token=token)


def _read_seal(subject: str, index: Path) -> tuple[str, str, str] | None:
    """(index digest, index identity, source identity), or None when there is no valid seal of ``subject``."""
    try:
        fields = read_private_bytes(seal_path(index), 512).decode("ascii").split()
    except (OSError, Refusal, UnicodeDecodeError):
        return None
    if len(fields) != 5 or fields[0] != _VERSION or fields[1] != subject:
        return None
    return fields[2], fields[3], fields[4]


def _bytes_hold(index: Path, digest: str, identity: str, *, full: bool) -> bool | None:
    """Are ``index``'s bytes the sealed ones? Hashed only when ``full`` or its identity moved;
    None when they are but the identity moved (the caller seals it again), False when not."""
    try:
        moved = _identity(os.stat(index)) != identity
        if (moved or full) and file_sha256(index) != digest:
            return False
    except OSError:
        return False
    return None if moved else True


def index_is_sealed(generation: Generation, index: Path, *, full: bool) -> bool:
    """Is ``index`` the file its seal describes? With ``full`` its bytes are always hashed.

    A graph.bin whose identity moved since the derivation is verified in full first (raising
    ``Corrupt`` when it no longer matches its manifest). A re-verified pair is sealed again with
    its new identities, so the next question is cheap once more.
    """
    seal = _read_seal(generation.id, index)
    if seal is None:
        return False
    digest, index_identity, artifact_identity = seal
    try:
        artifact_moved = _identity(os.stat(generation.artifact_path)) != artifact_identity
    except OSError:
        return False
    if artifact_moved:
        generation.open_verified_artifact().close()
    held = _bytes_hold(index, digest, index_identity, full=full)
    if held is False:
        return False
    if artifact_moved or held is None:
        try:
            write_seal(generation, index, digest)
        except (OSError, Refusal):
            pass  # the seal is an optimisation here: without it the next question hashes again
    return True


DERIVED = "-"  # the source field of a file derived from other sealed files, not from one graph.bin


def write_derived_seal(path: Path, subject: str, *, token: str | None = None) -> None:
    """Seal a derived file that has no graph.bin of its own (the fleet index: ``subject`` is the
    digest of the member generations it was derived from; a change-coupling history: its
    generation), in the same line as an index's; ``token`` as for ``write_seal``."""
    _write(path, subject, file_sha256(path), DERIVED, token)


def derived_is_sealed(path: Path, subject: str) -> bool:
    """Is ``path`` the file its seal of ``subject`` describes (hashed when its identity moved)?"""
    seal = _read_seal(subject, path)
    if seal is None or seal[2] != DERIVED:
        return False
    held = _bytes_hold(path, seal[0], seal[1], full=False)
    if held is None:
        try:
            _write(path, subject, seal[0], DERIVED, None)
        except (OSError, Refusal):
            pass  # as above: the next open hashes again
    return held is not False


def copy_if_sealed(generation: Generation, index: Path, target: int) -> bool:
    """Copy ``index`` into the open file ``target`` while hashing it; True when the bytes copied
    are the ones its seal describes (one read serves both the check and the copy). False (no
    seal, not a private regular file, other bytes) leaves ``target`` holding something to
    discard."""
    import hashlib

    seal = _read_seal(generation.id, index)
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
