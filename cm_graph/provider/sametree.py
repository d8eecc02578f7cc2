"""Refresh without the provider when the new commit has the current generation's tree.

Why reusing the artifact is exact: the provider reads only the materialised tree (no ``.git``,
``GIT_CEILING_DIRECTORIES`` keeps its ``git rev-parse HEAD`` from finding any repository, so
``graph.json`` never gets a ``built_at_commit``), at the fixed run root, with every file's mtime
pinned and the inventory's clock stamps normalised (``fixedroot``). Nothing commit- or
time-dependent reaches ``graph.bin``: two commits with one tree give the same artifact bytes
(tests build both cold and compare). So a generation bound to the new commit is published from
the current generation's verified artifact, through the ordinary publish path (coverage
carries over: the same tree, provider and ``--exclude`` globs give the same verdict), and its
index is the reused generation's rebound to it (``indexrebind``: the same bytes a fresh
derivation writes, for a fraction of the time), or derived afresh when that index cannot serve.

Reuse needs a different commit (``refresh`` of the very commit a generation is bound to is an
explicit request to run the provider again), the same tree, the same census digest, the same
provider pin, a current generation the provider made (``--from-graph`` output is the user's,
not a run we vouch for), and, under ``--sandbox required``, one whose run was contained.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import time
from pathlib import Path

from ..base.errors import Refusal
from ..base.git import Census, Revision
from ..generation import artifact
from ..generation.coverage import Coverage
from ..generation.layout import Workspace
from ..generation.manifest import Manifest, ProviderPin
from ..generation.scratch import scratch_owner
from ..generation.store import Generation, build_lock_for, read_current
from ..index.rebind import rebind_index
from .publish import BUILD_RECORD_SCHEMA, derive_fresh_index, publish_output
from .run import RunReport

REUSABLE_ORIGINS = ("provider_run", "same_tree")


def reusable_generation(
    workspace: Workspace, bound: Revision, census: Census, pin: ProviderPin, sandbox: str,
    exclude: tuple[str, ...] = (),
) -> tuple[Generation, dict] | None:
    """The current generation and its build record when its artifact can serve ``bound``."""
    try:
        current = read_current(workspace)
    except Refusal:
        return None
    manifest = current.manifest
    if manifest.commit == bound.commit or manifest.tree != bound.tree:
        return None
    if manifest.provider != pin or manifest.census_digest != census.digest():
        return None
    record = current.build_record()
    if record is None or record.get("origin") not in REUSABLE_ORIGINS:
        return None
    if sandbox == "required" and record.get("contained") is not True:
        return None
    coverage = record.get("coverage")
    if not isinstance(coverage, dict) or coverage.get("exclude", []) != list(exclude):
        return None  # other --exclude globs hand the provider another tree
    return current, record


def publish_same_tree(
    workspace: Workspace,
    source: Generation,
    record: dict,
    *,
    bound: Revision,
    census: Census,
    pin: ProviderPin,
    keep_previous: bool,
) -> tuple[Manifest, Coverage]:
    """Publish ``source``'s artifact as a new generation bound to ``bound`` (build lock held)."""
    with scratch_owner(workspace) as token:
        return _publish_from(workspace, source, record, workspace.directory / f".{token}.build",
                             bound=bound, census=census, pin=pin, keep_previous=keep_previous)


def _publish_from(
    workspace: Workspace, source: Generation, record: dict, scratch: Path, *, bound: Revision,
    census: Census, pin: ProviderPin, keep_previous: bool,
) -> tuple[Manifest, Coverage]:
    os.mkdir(scratch, 0o700)
    try:
        output = scratch / "graphify-out"
        os.mkdir(output, 0o700)
        with source.open_verified_artifact() as handle, tarfile.open(fileobj=handle, mode="r:") as archive:
            for member in archive.getmembers():
                if member.name not in (artifact.GRAPH_MEMBER, artifact.INVENTORY_MEMBER) or not member.isreg():
                    continue
                stream = archive.extractfile(member)
                if stream is None:
                    continue
                fd = os.open(output / member.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as target:
                    shutil.copyfileobj(stream, target, 1024 * 1024)
        manifest = source.manifest
        return publish_output(
            workspace, output, bound=bound, census=census, provider=pin,
            keep_previous=keep_previous, lock_held=True, exclude=tuple(record["coverage"].get("exclude", [])),
            coverage=Coverage.carried_over(record["coverage"], manifest.indexed_files, manifest.unsupported_inputs),
            derive_index=lambda staged: _derive_rebound(source, staged),
            build_record={
                "schema": BUILD_RECORD_SCHEMA, "origin": "same_tree", "reused_generation": source.id,
                "contained": record.get("contained"), "sandbox": record.get("sandbox"),
            },
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _derive_rebound(reused: Generation, staged: Generation) -> None:
    """The new generation's index: the reused one's rebound to it (byte-identical to deriving
    it afresh, see ``indexrebind``), or derived afresh when that index cannot serve."""
    if rebind_index(reused, staged, staged.workspace.index_path(staged.id)) is None:
        derive_fresh_index(staged)


def refresh_same_tree(
    workspace: Workspace, bound: Revision, census: Census, pin: ProviderPin, *, sandbox: str,
    keep_previous: bool, exclude: tuple[str, ...] = (),
) -> tuple[Manifest, Coverage, RunReport] | None:
    """Under the build lock: publish from the current generation when it can serve ``bound``;
    None (nothing done) when it cannot."""
    with build_lock_for(workspace):
        found = reusable_generation(workspace, bound, census, pin, sandbox, exclude)
        if found is None:
            return None
        started = time.monotonic()
        manifest, coverage = publish_same_tree(
            workspace, *found, bound=bound, census=census, pin=pin, keep_previous=keep_previous
        )
    run = RunReport(contained=found[1].get("contained") is True, seconds=time.monotonic() - started)
    return manifest, coverage, run
