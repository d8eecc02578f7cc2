"""Published generations: find the current one, verify its artifact, publish a new one.

A generation is immutable once renamed into place; "current" is exactly the name in the
``current`` pointer. Reading checks privacy and the manifest before trusting anything, and
verifies the artifact's size and SHA-256 against the manifest before any of it is parsed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .errors import Absent, Corrupt, InvalidInput, Oversized, Refusal
from .jsonio import dumps_canonical, loads_strict
from .layout import Workspace
from .locking import build_lock
from .manifest import MAX_ARTIFACT_BYTES, MAX_MANIFEST_BYTES, Manifest, parse_manifest
from .privfs import (
    check_private_dir,
    create_exclusive,
    ensure_private_dir,
    fsync_dir,
    open_private_read,
    read_private_bytes,
    write_private_atomic,
)
from .records import record
from .rules import is_generation_id

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any, BinaryIO

MANIFEST_NAME = "manifest.json"
# How the generation was made (provider run or --from-graph, and whether the run was contained).
# Our own sidecar: the manifest's key set is a shared contract and stays exactly as it is.
BUILD_RECORD_NAME = "build.json"
# The coverage lists in a build record are bounded (50 paths of at most 1 KiB each, per list).
MAX_BUILD_RECORD_BYTES = 1024 * 1024
ARTIFACT_NAME = "graph.bin"


@record
class Generation:
    workspace: Workspace
    manifest: Manifest

    @property
    def id(self) -> str:
        return self.manifest.generation

    @property
    def directory(self) -> Path:
        return self.workspace.generation_dir(self.id)

    @property
    def artifact_path(self) -> Path:
        return self.directory / ARTIFACT_NAME

    def build_record(self) -> dict[str, Any] | None:
        """The sidecar saying how this generation was made, when there is a readable one."""
        try:
            raw = read_private_bytes(self.directory / BUILD_RECORD_NAME, MAX_BUILD_RECORD_BYTES)
            value = loads_strict(raw, "The build record")
        except (OSError, Refusal):
            return None
        return value if isinstance(value, dict) else None

    @property
    def seal_path(self) -> Path:
        return self.workspace.indexes_dir / f"{self.id}.seal"

    def open_verified_artifact(self, *, trust_seal: bool = False) -> BinaryIO:
        """Open graph.bin privately and check its size and digest against the manifest.

        The returned handle is the one that was hashed, so what is parsed is what was verified.
        With ``trust_seal`` the SHA-256 is not recomputed when the file's identity and change
        times (device, inode, size, mtime_ns, ctime_ns) equal those recorded the last time it
        was fully verified: any write, rename or chmod moves ctime, which an unprivileged
        process cannot set back. Questions use the seal; ``status`` and ``audit`` never do.
        """
        if os.path.islink(self.artifact_path):
            raise Corrupt("The generation's artifact is a symbolic link; remove and rebuild.")
        try:
            fd = open_private_read(self.artifact_path)
        except FileNotFoundError:
            raise Corrupt("The generation's artifact is missing; remove and rebuild.") from None
        handle = os.fdopen(fd, "rb")
        try:
            st = os.fstat(handle.fileno())
            if st.st_size > MAX_ARTIFACT_BYTES:
                raise Oversized("The generation's artifact exceeds the 256 MiB budget.")
            if st.st_size != self.manifest.graph_bytes:
                raise Corrupt("The generation's artifact size does not match its manifest.")
            seal = _seal_text(st, self.manifest.graph_digest)
            if trust_seal and self._read_seal() == seal:
                return handle
            from .artifact import file_digest  # the tar reader is not needed to answer a question

            _, digest = file_digest(handle, MAX_ARTIFACT_BYTES)
            if digest != self.manifest.graph_digest:
                raise Corrupt("The generation's artifact digest does not match its manifest.")
            self._write_seal(seal)
        except BaseException:
            handle.close()
            raise
        return handle

    def _read_seal(self) -> bytes | None:
        try:
            return read_private_bytes(self.seal_path, 512)
        except (OSError, Refusal):
            return None

    def _write_seal(self, seal: bytes) -> None:
        try:
            ensure_private_dir(self.seal_path.parent, private_from=self.workspace.root)
            write_private_atomic(self.seal_path, seal)
        except (OSError, Refusal):
            pass  # a seal is an optimisation; without it the next question hashes again


def _seal_text(st: os.stat_result, digest: str) -> bytes:
    return f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {digest}\n".encode()


def read_current(workspace: Workspace) -> Generation:
    """The generation the ``current`` pointer names, with a validated manifest."""
    if not os.path.lexists(workspace.directory):
        raise Absent("No local graph has been built for this checkout; run `cm-graph build`.")
    for directory in (workspace.root, workspace.graph_dir, workspace.directory):
        check_private_dir(directory)
    try:
        pointer = read_private_bytes(workspace.current_pointer, 64)
    except FileNotFoundError:
        raise Absent("No generation has been published for this checkout; run `cm-graph build`.") from None
    except Oversized:
        raise InvalidInput("The current-generation pointer is corrupt; rebuild.") from None
    generation = pointer.decode("ascii", "replace").strip()
    if not is_generation_id(generation):
        raise InvalidInput("The current-generation pointer is corrupt; rebuild.")
    try:
        return read_generation(workspace, generation)
    except Absent:
        raise InvalidInput("The current-generation pointer names a generation that does not exist; rebuild.") from None


def read_generation(workspace: Workspace, generation: str) -> Generation:
    """A published generation of this checkout by id, with a validated manifest."""
    if not is_generation_id(generation):
        raise InvalidInput("A generation id is 32 lowercase hex characters.")
    if not os.path.isdir(workspace.generation_dir(generation)):
        raise Absent("This checkout has no such generation.")
    check_private_dir(workspace.generations_dir)
    check_private_dir(workspace.generation_dir(generation))
    try:
        data = read_private_bytes(
            workspace.generation_dir(generation) / MANIFEST_NAME, MAX_MANIFEST_BYTES
        )
    except FileNotFoundError:
        raise InvalidInput("The generation's manifest is missing; remove and rebuild.") from None
    manifest = parse_manifest(data, expected_generation=generation)
    return Generation(workspace, manifest)


def list_generations(workspace: Workspace) -> list[Generation]:
    """Every readable published generation of this checkout, in id order."""
    if not os.path.isdir(workspace.generations_dir):
        return []
    found = []
    for entry in sorted(os.listdir(workspace.generations_dir)):
        if is_generation_id(entry):
            try:
                found.append(read_generation(workspace, entry))
            except Refusal:
                continue
    return found


def new_generation_id() -> str:
    import uuid  # publishing only: questions never pay for it

    return uuid.uuid4().hex


def publish(
    workspace: Workspace,
    write_artifact: Callable[[BinaryIO], tuple[int, str]],
    make_manifest: Callable[[str, int, str], Manifest],
    *,
    keep_previous: bool = False,
    build_record: dict[str, Any] | None = None,
) -> Manifest:
    """Take the build lock and publish (see ``publish_locked``)."""
    with build_lock_for(workspace):
        return publish_locked(
            workspace, write_artifact, make_manifest, keep_previous=keep_previous, build_record=build_record
        )


def publish_locked(
    workspace: Workspace,
    write_artifact: Callable[[BinaryIO], tuple[int, str]],
    make_manifest: Callable[[str, int, str], Manifest],
    *,
    keep_previous: bool = False,
    build_record: dict[str, Any] | None = None,
) -> Manifest:

    """Publish a new generation atomically and make it current; the caller holds the lock.

    ``write_artifact`` writes graph.bin into a fresh private file and returns (size, sha256);
    ``make_manifest`` turns (generation, size, sha256) into the manifest. Staging happens in a
    private sibling directory that is renamed into place, so a reader sees either no new
    generation or a whole one, and a failure leaves the previous generation current.
    """
    import shutil

    generation = new_generation_id()
    ensure_private_dir(workspace.generations_dir, private_from=workspace.root)
    staging = workspace.generations_dir / f".{new_generation_id()}.staging"
    os.mkdir(staging, 0o700)
    try:
        fd = create_exclusive(staging / ARTIFACT_NAME)
        with os.fdopen(fd, "wb") as handle:
            size, digest = write_artifact(handle)
            handle.flush()
            os.fsync(handle.fileno())
        manifest = make_manifest(generation, size, digest)
        data = manifest.serialise()
        files = {MANIFEST_NAME: data}
        if build_record is not None:
            files[BUILD_RECORD_NAME] = dumps_canonical(build_record)
        for name, content in files.items():
            fd = create_exclusive(staging / name)
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
        fsync_dir(staging)
        os.rename(staging, workspace.generation_dir(generation))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    fsync_dir(workspace.generations_dir)
    write_private_atomic(workspace.current_pointer, f"{generation}\n".encode("ascii"))
    if not keep_previous:
        prune(workspace, keep=generation)
    return manifest


def build_lock_for(workspace: Workspace):  # type: ignore[no-untyped-def]
    ensure_private_dir(workspace.directory, private_from=workspace.root)
    return build_lock(workspace.lock_path)


def prune(workspace: Workspace, *, keep: str) -> None:
    """Delete every other generation (and stray staging) and the indexes derived from them."""
    import shutil  # publishing and removal only: questions never pay for it

    for entry in os.listdir(workspace.generations_dir):
        if entry != keep:
            shutil.rmtree(workspace.generations_dir / entry, ignore_errors=True)
    # Scratch of builds that were killed before they could clean up (we hold the build lock, so
    # no build is running now).
    for entry in os.listdir(workspace.directory):
        if entry.startswith(".") and entry.endswith(".build"):
            shutil.rmtree(workspace.directory / entry, ignore_errors=True)
    if os.path.isdir(workspace.indexes_dir):
        for entry in os.listdir(workspace.indexes_dir):
            if entry in (f"{keep}.sqlite", f"{keep}.seal") or entry.startswith(f".{keep}.sqlite."):
                continue
            path = workspace.indexes_dir / entry
            if path.is_file() or path.is_symlink():
                path.unlink()


def remove_graph_state(workspace: Workspace) -> bool:
    """Delete the checkout's generations and indexes under the build lock; True if any existed."""
    import shutil

    if not os.path.lexists(workspace.directory):
        return False
    with build_lock_for(workspace):
        shutil.rmtree(workspace.directory)
    return True
