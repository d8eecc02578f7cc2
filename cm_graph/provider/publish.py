"""Turn provider output into a published generation bound to one commit.

Used by ``cm-graph build --from-graph`` (output a user already has) and by tests and fixtures, so
every generation, whoever made it, goes through one packing, manifest and publish path.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from ..base.errors import InvalidInput
from ..base.git import BlobReader, Census, Revision, read_census, refuse_partial_clone, resolve_revision
from ..generation import artifact
from ..generation.coverage import Coverage, assess, open_inventory, read_admitted, read_inventory
from ..generation.layout import Workspace
from ..generation.manifest import PINNED_PROVIDER, Manifest, ProviderPin
from ..generation.store import Generation, publish, publish_locked


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


BUILD_RECORD_SCHEMA = "cm_graph.buildRecord.v1"


def publish_output(
    workspace: Workspace,
    output_dir: Path,
    *,
    bound: Revision,
    census: Census,
    provider: ProviderPin,
    keep_previous: bool = False,
    built_at: datetime | None = None,
    lock_held: bool = False,
    build_record: dict[str, Any] | None = None,
    exclude: tuple[str, ...] = (),
    coverage: Coverage | None = None,
    derive_index: Callable[[Generation], None] | None = None,
) -> tuple[Manifest, Coverage]:
    """Judge coverage (unless ``coverage`` carries over a same-tree generation's), pack
    ``graph.json`` (and the inventory when it is a plain file), derive the index from the staged
    generation and only then publish it: as the new current
    generation of ``bound``, or, when it is partial and a usable generation is current, beside
    it for inspection (``generation.settle_pointer``). The build record keeps the coverage facts
    (scope exclusions, empty and uncovered inputs with reasons, ``--exclude``). ``derive_index``
    replaces the importer's derivation for a caller that can write the same index cheaper (a
    same-tree refresh, ``indexrebind``)."""
    inventory_path = output_dir / artifact.INVENTORY_MEMBER
    if coverage is None:
        with BlobReader(workspace.checkout) as blobs:
            coverage = assess(
                census, read_inventory(inventory_path), blobs, admitted=read_admitted(output_dir), exclude=exclude
            )
    members = [artifact.GRAPH_MEMBER]
    handle = open_inventory(inventory_path)
    if handle is not None:
        handle.close()
        members.append(artifact.INVENTORY_MEMBER)

    def write_artifact(destination: BinaryIO) -> tuple[int, str]:
        return artifact.pack(output_dir, members, destination)

    factory = make_manifest_factory(bound, census, coverage, provider, built_at or datetime.now(UTC))
    publisher = publish_locked if lock_held else publish
    record = dict(build_record or {"schema": BUILD_RECORD_SCHEMA, "origin": "from_graph", "contained": None})
    if coverage.notes:
        record["partial_because"] = list(coverage.notes)
    record["coverage"] = coverage.to_record()
    derive = derive_index or derive_fresh_index

    def derive_and_learn(staged: Generation) -> dict[str, Any]:
        """Derive the index, then what only it shows: the definitions the graph lacks (a
        same-tree generation carries its predecessor's, the same graph's)."""
        derive(staged)
        if coverage.definitions is None:
            coverage.definitions = find_definition_gaps(staged, census)
        return {"coverage": coverage.to_record()}

    manifest = publisher(
        workspace, write_artifact, factory, keep_previous=keep_previous, build_record=record,
        derive_index=derive_and_learn,
    )
    return manifest, coverage


def find_definition_gaps(staged: Generation, census: Census) -> dict[str, Any]:
    """The staged generation's extraction gaps (``index/definition_gaps.py``), as the build
    record keeps them."""
    import apsw

    from ..index.definition_gaps import find_gaps

    connection = apsw.Connection(str(staged.workspace.index_path(staged.id)), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        with BlobReader(staged.workspace.checkout) as blobs:
            return find_gaps(connection, census, blobs).to_record()
    finally:
        connection.close()


def derive_fresh_index(staged: Generation) -> None:
    """Derive the staged generation's index into its final path: the importer's validation of
    graph.json decides whether the generation is published at all."""
    from ..index.importer import build_index

    build_index(staged, staged.workspace.index_path(staged.id))


def publish_provider_output(
    workspace: Workspace,
    output_dir: Path,
    *,
    revision: str = "HEAD",
    provider: ProviderPin = PINNED_PROVIDER,
    keep_previous: bool = False,
    built_at: datetime | None = None,
    exclude: tuple[str, ...] = (),
) -> tuple[Manifest, Coverage]:
    """Pack ``output_dir`` (a ``graphify-out/`` a user already has) as a new current generation."""
    output_dir = Path(output_dir)
    graph = output_dir / artifact.GRAPH_MEMBER
    if not graph.is_file() or graph.is_symlink():
        raise InvalidInput("The provider output directory has no regular graph.json.")
    checkout = workspace.checkout
    bound = resolve_revision(checkout, revision)
    refuse_partial_clone(checkout)
    census = read_census(checkout, bound.commit)
    return publish_output(
        workspace, output_dir, bound=bound, census=census, provider=provider,
        keep_previous=keep_previous, built_at=built_at, exclude=exclude,
    )
