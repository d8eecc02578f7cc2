"""Turn provider output into a published generation bound to one commit.

Used by ``cm-graph build --from-graph`` (output a user already has) and by tests and fixtures, so
every generation, whoever made it, goes through one packing, manifest and publish path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from . import artifact
from .errors import InvalidInput
from .generation import publish
from .gitio import BlobReader, Census, Revision, read_census, refuse_partial_clone, resolve_revision
from .inventory import MAX_INVENTORY_BYTES, Coverage, assess
from .layout import Workspace
from .manifest import PINNED_PROVIDER, Manifest, ProviderPin


def read_inventory_file(output_dir: Path) -> bytes | None:
    """The provider's per-file inventory (``manifest.json``), or None when absent or too big."""
    path = output_dir / artifact.INVENTORY_MEMBER
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_INVENTORY_BYTES + 1)
    return data if len(data) <= MAX_INVENTORY_BYTES else None


def make_manifest_factory(
    bound: Revision, census: Census, coverage: Coverage, provider: ProviderPin, built_at: datetime
) -> Callable[[str, int, str], Manifest]:
    """A manifest bound to ``bound`` for whatever generation id and artifact digest publish gets."""
    stamp = built_at.astimezone(UTC).replace(microsecond=0).isoformat()

    def make_manifest(generation: str, size: int, digest: str) -> Manifest:
        return Manifest(
            generation=generation,
            commit=bound.commit,
            tree=bound.tree,
            provider=provider,
            built_at=stamp,
            tracked_files=len(census.entries),
            tracked_bytes=census.tracked_bytes,
            census_digest=census.digest(),
            graph_digest=digest,
            graph_bytes=size,
            completeness=coverage.completeness,
            skipped_paths=census.skipped,
            indexed_files=coverage.indexed_files,
            unsupported_inputs=coverage.unsupported_inputs,
        )

    return make_manifest


def publish_provider_output(
    workspace: Workspace,
    output_dir: Path,
    *,
    revision: str = "HEAD",
    provider: ProviderPin = PINNED_PROVIDER,
    keep_previous: bool = False,
    built_at: datetime | None = None,
) -> tuple[Manifest, Coverage]:
    """Pack ``output_dir`` (a ``graphify-out/``) as a new current generation of ``revision``."""
    output_dir = Path(output_dir)
    graph = output_dir / artifact.GRAPH_MEMBER
    if not graph.is_file() or graph.is_symlink():
        raise InvalidInput("The provider output directory has no regular graph.json.")
    checkout = workspace.checkout
    bound = resolve_revision(checkout, revision)
    refuse_partial_clone(checkout)
    census = read_census(checkout, bound.commit)
    inventory = read_inventory_file(output_dir)
    with BlobReader(checkout) as blobs:
        coverage = assess(census, inventory, blobs)
    members = [artifact.GRAPH_MEMBER]
    if inventory is not None:
        members.append(artifact.INVENTORY_MEMBER)

    def write_artifact(handle: BinaryIO) -> tuple[int, str]:
        return artifact.pack(output_dir, members, handle)

    manifest = publish(
        workspace, write_artifact,
        make_manifest_factory(bound, census, coverage, provider, built_at or datetime.now(UTC)),
        keep_previous=keep_previous,
    )
    return manifest, coverage
