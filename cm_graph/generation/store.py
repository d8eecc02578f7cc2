"""Published generations: find the current one, verify its artifact, publish a new one.

A generation is immutable once renamed into place; "current" is exactly the name in the
``current`` pointer. Reading checks privacy and the manifest before trusting anything, and
verifies the artifact's size and SHA-256 against the manifest before any of it is parsed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..base.errors import Absent, Corrupt, InvalidInput, Oversized, Refusal, Unsafe, UnsafeStateRoot
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.locking import build_lock
from ..base.privfs import (
    check_private_dir,
    create_exclusive,
    ensure_private_dir,
    fsync_dir,
    open_private_read,
    read_private_bytes,
    write_private_atomic,
)
from ..base.records import record
from ..base.rules import is_generation_id
from .layout import Workspace
from .manifest import MAX_ARTIFACT_BYTES, MAX_MANIFEST_BYTES, Manifest, parse_manifest
from .scratch import DERIVED_SUFFIXES, scratch_owner, sweep_stale_scratch

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any, BinaryIO

MANIFEST_NAME = "manifest.json"
# How the generation was made (provider run or --from-graph, and whether the run was contained).
# Our own sidecar: the manifest's key set is a shared contract and stays exactly as it is, so the
# SHA-256 that covers the manifest is recorded here too (``MANIFEST_DIGEST``, see read_generation).
BUILD_RECORD_NAME = "build.json"
MANIFEST_DIGEST = "manifest_sha256"
# The coverage lists in a build record are bounded (50 paths of at most 1 KiB each, per list).
MAX_BUILD_RECORD_BYTES = 1024 * 1024
ARTIFACT_NAME = "graph.bin"


@record
class Generation:
    workspace: Workspace
    manifest: Manifest
    # Where the generation's files are when it is not yet published (publish's staging dir).
    location: Path | None = None

    @property
    def id(self) -> str:
        return self.manifest.generation

    @property
    def directory(self) -> Path:
        return self.location or self.workspace.generation_dir(self.id)

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
        process cannot set back. Questions and a plain ``status`` use the seal; ``status --verify``
        and ``audit`` never do. A seal already saying what was just verified is not written again.
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
            if self._read_seal() != seal:  # an unchanged seal is not written again (an fsync'd write)
                self._write_seal(seal)
        except BaseException:
            handle.close()
            raise
        return handle

    def seal_verified(self, token: str) -> None:
        """Seal graph.bin as verified: publish calls it (with its scratch token) right after
        writing the bytes whose digest it computed while writing them."""
        st = os.stat(self.artifact_path)
        self._write_seal(_seal_text(st, self.manifest.graph_digest), token)

    def _read_seal(self) -> bytes | None:
        try:
            return read_private_bytes(self.seal_path, 512)
        except (OSError, Refusal):
            return None

    def _write_seal(self, seal: bytes, token: str | None = None) -> None:
        try:
            ensure_private_dir(self.seal_path.parent, private_from=self.workspace.root)
            write_private_atomic(self.seal_path, seal, token=token)
        except (OSError, Refusal):
            pass  # a seal is an optimisation; without it the next question hashes again


def _seal_text(st: os.stat_result, digest: str) -> bytes:
    return f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {digest}\n".encode()


def read_current(workspace: Workspace) -> Generation:
    """The generation the ``current`` pointer names, with a validated manifest."""
    # Judge each level of the state that exists before calling the graph absent: a state root
    # that is not an owner-only directory (0755, a file) would refuse the build that "absent"
    # advises, so every reader names that problem instead, as ``build`` and ``refresh`` do.
    for directory in (workspace.root, workspace.graph_dir, workspace.directory):
        if not os.path.lexists(directory):
            raise Absent("No local graph has been built for this checkout; run `cm-graph build`.")
        try:
            check_private_dir(directory)
        except Unsafe as refusal:
            if directory == workspace.directory:
                raise
            raise UnsafeStateRoot(refusal.message) from None
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
    _check_manifest_digest(workspace.generation_dir(generation), data)
    return Generation(workspace, manifest)


def _check_manifest_digest(directory: Path, manifest: bytes) -> None:
    """Refuse a manifest that is not the one its build recorded.

    A changed byte can leave a manifest well formed (another digit of ``tracked_bytes``, another
    hex digit of ``wheel_sha256`` or ``census_digest``) and every later answer trusts it, so the
    build record holds its SHA-256. A generation another tool published has no build record (and
    one published before manifests were covered has no digest in it): it reads as before. A build
    record that is there but unreadable is damage like any other."""
    import hashlib

    try:
        raw = read_private_bytes(directory / BUILD_RECORD_NAME, MAX_BUILD_RECORD_BYTES)
    except FileNotFoundError:
        return
    except OSError:
        raise InvalidInput("The generation's build record cannot be read; remove and rebuild.") from None
    record = loads_strict(raw, "The generation's build record")
    if not isinstance(record, dict):
        raise InvalidInput("The generation's build record is not a JSON object; remove and rebuild.")
    if MANIFEST_DIGEST in record and record[MANIFEST_DIGEST] != hashlib.sha256(manifest).hexdigest():
        raise InvalidInput("The generation's manifest is not the one its build recorded; remove and rebuild.")


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


# Derives the staged generation's index; returns what the build record adds from it (or None).
DeriveIndex = Callable[["Generation"], "dict[str, Any] | None"]


def publish(
    workspace: Workspace,
    write_artifact: Callable[[BinaryIO], tuple[int, str]],
    make_manifest: Callable[[str, int, str], Manifest],
    *,
    keep_previous: bool = False,
    build_record: dict[str, Any] | None = None,
    derive_index: DeriveIndex | None = None,
) -> Manifest:
    """Take the build lock and publish (see ``publish_locked``)."""
    with build_lock_for(workspace):
        return publish_locked(
            workspace, write_artifact, make_manifest, keep_previous=keep_previous, build_record=build_record,
            derive_index=derive_index,
        )


def publish_locked(
    workspace: Workspace,
    write_artifact: Callable[[BinaryIO], tuple[int, str]],
    make_manifest: Callable[[str, int, str], Manifest],
    *,
    keep_previous: bool = False,
    build_record: dict[str, Any] | None = None,
    derive_index: DeriveIndex | None = None,
) -> Manifest:
    """Publish a new generation atomically; the caller holds the lock.

    ``write_artifact`` writes graph.bin into a fresh private file and returns (size, sha256);
    ``make_manifest`` turns (generation, size, sha256) into the manifest. Everything is staged in
    a private sibling directory. ``derive_index`` derives (and so validates) the index from the
    *staged* generation before anything is renamed: when it refuses, nothing is published and
    the staging and its index files are removed. Only then is the staging renamed into place and
    the pointer moved, so a reader sees either no new generation or a whole, indexed one, and a
    failure anywhere (a full disk included: reason ``io``) leaves the previous generation current.

    A generation that is not complete does not replace a usable current one: it is published
    for inspection and named by the ``attempt`` pointer, and the usable one stays current (see
    ``settle_pointer``). ``derive_index`` is None only for callers publishing a generation as
    another tool would (tests of the importer's refusals). What it returns is added to the build
    record (what only the derived index shows, such as the definitions the graph lacks), so the
    record is written after it, still inside the staging directory.
    """
    sweep_stale_scratch(workspace, build_lock_held=True)
    sweep_removed(workspace)
    try:
        ensure_private_dir(workspace.generations_dir, private_from=workspace.root)
        generation = new_generation_id()
        with scratch_owner(workspace, claim=generation) as token:
            return _publish_owned(
                workspace, generation, token, write_artifact, make_manifest, keep_previous=keep_previous,
                build_record=build_record, derive_index=derive_index,
            )
    except OSError as error:  # the owner record itself could not be made (or removed)
        raise storage_refusal(error, "publishing the generation") from None


def _publish_owned(
    workspace: Workspace,
    generation: str,
    token: str,
    write_artifact: Callable[[BinaryIO], tuple[int, str]],
    make_manifest: Callable[[str, int, str], Manifest],
    *,
    keep_previous: bool,
    build_record: dict[str, Any] | None,
    derive_index: DeriveIndex | None,
) -> Manifest:
    """``publish_locked``'s steps, with ``token`` naming this publication's scratch (its owner
    record claims ``generation``, whose index files exist before its directory does)."""
    staging = workspace.generations_dir / f".{token}.staging"
    final = workspace.generation_dir(generation)
    try:
        os.mkdir(staging, 0o700)
        manifest = _stage(staging, generation, write_artifact, make_manifest)
        staged = Generation(workspace, manifest, staging)
        staged.seal_verified(token)
        learnt = derive_index(staged) if derive_index is not None else None
        if build_record is not None:
            _write_build_record(staging, manifest, {**build_record, **(learnt or {})})
        os.rename(staging, final)
        fsync_dir(workspace.generations_dir)
        settle_pointer(workspace, manifest, keep_previous=keep_previous)
    except BaseException as error:
        _discard(workspace, generation, staging, final)
        if isinstance(error, OSError):
            raise storage_refusal(error, "publishing the generation") from None
        raise
    return manifest


def _stage(
    staging: Path,
    generation: str,
    write_artifact: Callable[[BinaryIO], tuple[int, str]],
    make_manifest: Callable[[str, int, str], Manifest],
) -> Manifest:
    """Write graph.bin and the manifest into ``staging``, each fsynced."""
    fd = create_exclusive(staging / ARTIFACT_NAME)
    with os.fdopen(fd, "wb") as handle:
        size, digest = write_artifact(handle)
        handle.flush()
        os.fsync(handle.fileno())
    manifest = make_manifest(generation, size, digest)
    _write_staged(staging, MANIFEST_NAME, manifest.serialise())
    return manifest


def _write_build_record(staging: Path, manifest: Manifest, build_record: dict[str, Any]) -> None:
    """The build record, bound to the manifest by its SHA-256, fsynced with its directory."""
    import hashlib

    digest = hashlib.sha256(manifest.serialise()).hexdigest()
    _write_staged(staging, BUILD_RECORD_NAME, dumps_canonical({**build_record, MANIFEST_DIGEST: digest}))


def _write_staged(staging: Path, name: str, content: bytes) -> None:
    fd = create_exclusive(staging / name)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())
    fsync_dir(staging)


def _discard(workspace: Workspace, generation: str, staging: Path, final: Path) -> None:
    """Remove everything a failed publication of ``generation`` made (never anything else)."""
    import shutil

    current = _pointer_target(workspace.current_pointer)
    if current != generation:
        shutil.rmtree(final, ignore_errors=True)
        for path in derived_files(workspace, generation):
            try:
                os.unlink(path)
            except OSError:
                pass
    shutil.rmtree(staging, ignore_errors=True)


def storage_refusal(error: OSError, doing: str) -> Refusal:
    """An I/O failure while ``doing`` as a refusal: the boundary's reason code for its errno
    class (``disk_full``, ``read_only``, ...) and one sentence that names no path."""
    import errno

    from ..base.refusals import refusal_for_os_error

    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return Refusal(f"The disk filled up while {doing}; free space and try again.", reason="disk_full")
    if error.errno == errno.EROFS:
        return Refusal(f"The state directory is read-only, so {doing} failed.", reason="read_only")
    return refusal_for_os_error(error)


def derived_files(workspace: Workspace, generation: str) -> list[Path]:
    """The files under ``indexes/`` derived from ``generation``: its index and seals."""
    return [workspace.indexes_dir / f"{generation}{suffix}" for suffix in DERIVED_SUFFIXES]


ATTEMPT_NAME = "attempt"


def _pointer_target(path: Path) -> str | None:
    try:
        value = read_private_bytes(path, 64).decode("ascii", "replace").strip()
    except (OSError, Refusal):
        return None
    return value if is_generation_id(value) else None


def read_attempt(workspace: Workspace) -> Generation | None:
    """The newest published generation that was kept from becoming current, if it still exists."""
    generation = _pointer_target(workspace.directory / ATTEMPT_NAME)
    if generation is None:
        return None
    try:
        return read_generation(workspace, generation)
    except Refusal:
        return None


def usable_current(workspace: Workspace) -> Generation | None:
    """The current generation when it could answer for its own commit: complete and intact."""
    try:
        current = read_current(workspace)
        if current.manifest.completeness != "complete":
            return None
        current.open_verified_artifact(trust_seal=True).close()
    except (OSError, Refusal):
        return None
    return current


def settle_pointer(workspace: Workspace, manifest: Manifest, *, keep_previous: bool) -> None:
    """Make the just-published generation current, unless it is incomplete and a usable
    generation is current: then it is only named by ``attempt`` and the usable one is kept.
    Pruning never removes the generation kept current (nor the new one)."""
    kept = None if manifest.completeness == "complete" else usable_current(workspace)
    attempt = workspace.directory / ATTEMPT_NAME
    if kept is None:
        write_private_atomic(workspace.current_pointer, f"{manifest.generation}\n".encode("ascii"))
        try:
            os.unlink(attempt)
        except FileNotFoundError:
            pass
        keep = {manifest.generation}
    else:
        write_private_atomic(attempt, f"{manifest.generation}\n".encode("ascii"))
        keep = {kept.id, manifest.generation}
    if not keep_previous:
        prune(workspace, keep=keep)


def build_lock_for(workspace: Workspace):  # type: ignore[no-untyped-def]
    ensure_private_dir(workspace.directory, private_from=workspace.root)
    return build_lock(workspace.lock_path)


def prune(workspace: Workspace, *, keep: set[str]) -> None:
    """Delete every generation not in ``keep``, then the derived files of generations that no
    longer exist (ours, or those another tool pruned). Scratch is left to the ownership-aware
    sweep (``scratch``), so a concurrent derivation's temp files are never touched."""
    import shutil  # publishing and removal only: questions never pay for it

    for entry in os.listdir(workspace.generations_dir):
        if is_generation_id(entry) and entry not in keep:
            shutil.rmtree(workspace.generations_dir / entry, ignore_errors=True)
    remove_orphaned_indexes(workspace)


def remove_orphaned_indexes(workspace: Workspace) -> list[str]:
    """Delete index files and seals whose generation no longer exists; the names removed."""
    removed: list[str] = []
    try:
        names = os.listdir(workspace.indexes_dir)
    except OSError:
        return removed
    for name in sorted(names):
        owner = name[:32]
        if not is_generation_id(owner) or name[32:] not in DERIVED_SUFFIXES:
            continue
        if os.path.isdir(workspace.generation_dir(owner)):
            continue
        try:
            os.unlink(workspace.indexes_dir / name)
            removed.append(name)
        except OSError:
            continue
    return removed


def remove_graph_state(workspace: Workspace) -> bool:
    """Delete the checkout's generations and indexes under the build lock; True if any existed.

    The workspace directory is first renamed out of the way in one step, then deleted: a reader
    without the lock sees the whole state or none of it, never a generation half deleted (which
    it would have to call damaged). A removal killed before it finished leaves the renamed
    directory, which the next removal (or publication) under the lock deletes."""
    import shutil

    if not os.path.lexists(workspace.directory):
        return False
    with build_lock_for(workspace):
        doomed = workspace.graph_dir / f".{workspace.directory.name}.{new_generation_id()}{REMOVING_SUFFIX}"
        os.rename(workspace.directory, doomed)
        fsync_dir(workspace.graph_dir)
        shutil.rmtree(doomed)
        sweep_removed(workspace)
    return True


REMOVING_SUFFIX = ".removing"


def sweep_removed(workspace: Workspace) -> None:
    """Delete what removals of this checkout that were killed midway left (the caller holds the
    build lock, so no removal is running)."""
    import shutil

    prefix = f".{workspace.directory.name}."
    try:
        names = os.listdir(workspace.graph_dir)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(REMOVING_SUFFIX):
            shutil.rmtree(workspace.graph_dir / name, ignore_errors=True)


def still_current(workspace: Workspace, generation: str) -> bool:
    """Whether the ``current`` pointer still names ``generation`` and its directory is there: a
    reader that met missing files in a generation that is no longer current was reading a graph
    being replaced or removed, not a damaged one."""
    return _pointer_target(workspace.current_pointer) == generation and os.path.isdir(
        workspace.generation_dir(generation)
    )
