"""``cm-graph build``/``refresh``: from a revision to a published, indexed generation.

Census first (outside the lock), then inside the build lock: materialise the commit's tracked
blobs into a private scratch directory, run the verified provider there, judge completeness from
its own inventory, pack and publish atomically, and index. The scratch directory is removed on
every path; a failure anywhere leaves the previous generation current.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import AlreadyCurrent, Refusal
from ..base.git import PRIVATE_STATE, BlobReader, Census, read_census, refuse_partial_clone, resolve_revision
from ..base.privfs import create_exclusive, ensure_private_dir
from ..generation import artifact
from ..generation.coverage import Coverage, judge_oversized
from ..generation.layout import Workspace
from ..generation.manifest import Manifest
from ..generation.scope import operator_excluded
from ..generation.scratch import scratch_owner, sweep_stale_scratch
from ..generation.status import graph_status
from ..generation.store import build_lock_for, read_generation
from ..index.ensure import index_for
from ..index.format import IndexReport
from .cache import ProviderCache
from .fixedroot import fixed_root
from .publish import BUILD_RECORD_SCHEMA, publish_output
from .run import DEFAULT_TIMEOUT_SECONDS, RunReport, VerifiedProvider, run_provider
from .sametree import refresh_same_tree

# The progress stages a build reports, in order: census, materialise (with the file count),
# provider running, pack, index; or census, same tree (no provider run), index.


@dataclass(frozen=True)
class BuildResult:
    manifest: Manifest
    coverage: Coverage
    run: RunReport
    index: IndexReport


def materialisable(path: str) -> bool:
    """The materialisation rule: relative, no backslash, no empty/./.. segment, no private or
    provider-state segment. (``#`` and length are citation rules, not reasons to refuse a build.)"""
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return False
    segments = path.split("/")
    return all(
        segment not in ("", ".", "..") and segment.casefold() not in PRIVATE_STATE for segment in segments
    )


# Every materialised file is tracked, and git never ignores a tracked file; but the scratch tree
# has no .git, so the provider would apply a tracked .gitignore (ujson's lists its own tracked
# lib/) to tracked files. Not writing .gitignore files out is what keeps its rules from hiding
# them; .graphifyignore, the operator's word to the provider, is written out and honoured.
NOT_HANDED_OVER = frozenset({".gitignore"})


def handed_over(path: str, exclude: tuple[str, ...] = ()) -> bool:
    """Whether a census path is written into the provider's scratch tree: not a .gitignore and
    not left out by an operator's ``--exclude``."""
    return path.rsplit("/", 1)[-1] not in NOT_HANDED_OVER and operator_excluded(path, exclude) is None


def materialise(census: Census, checkout: Path, destination: Path, exclude: tuple[str, ...] = ()) -> int:
    """Write every census blob the provider is handed (``handed_over``) under ``destination``
    (0600 files, 0700 dirs), never following or overwriting anything, with one ``git cat-file
    --batch``; returns how many files were written."""
    os.mkdir(destination, 0o700)
    written = 0
    with BlobReader(checkout) as blobs:
        for entry in census.entries:
            if not materialisable(entry.path):
                raise Refusal("A tracked path of the bound commit is not materialisable.", reason="invalid")
            if not handed_over(entry.path, exclude):
                continue
            written += 1
            target = destination / entry.path
            try:
                if not target.parent.is_dir():
                    os.makedirs(target.parent, 0o700, exist_ok=True)
                fd = create_exclusive(target)
            except OSError:
                raise Refusal(
                    "The bound commit's tree cannot be written out: a path is both a file and a "
                    "directory, or appears twice (run `git fsck`).",
                    reason="invalid",
                ) from None
            with os.fdopen(fd, "wb") as handle:
                for chunk in blobs.chunks(entry.blob, entry.size):
                    handle.write(chunk)
    return written


def build(
    workspace: Workspace,
    provider: VerifiedProvider,
    *,
    revision: str = "HEAD",
    refresh: bool = False,
    keep_previous: bool = False,
    sandbox: str = "auto",
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    progress: Callable[[str], None] = lambda stage: None,
    exclude: tuple[str, ...] = (),
) -> BuildResult:
    checkout = workspace.checkout
    sweep_stale_scratch(workspace)  # a killed refresh's full copy of the commit goes first
    bound = resolve_revision(checkout, revision)
    if not refresh and graph_status(workspace, revision).usable:
        raise AlreadyCurrent("The graph is already current for this revision; use `cm-graph refresh`.")
    progress("census")
    refuse_partial_clone(checkout)
    census = read_census(checkout, bound.commit)
    if census.oversized:  # an oversized code file refuses before anything is materialised or run
        with BlobReader(checkout) as blobs:
            judge_oversized(census, blobs, exclude)
    reused = refresh_same_tree(
        workspace, bound, census, provider.pin, sandbox=sandbox, keep_previous=keep_previous, exclude=exclude
    )
    if reused is not None:
        progress("same tree as the current generation: published without a provider run")
        progress("index")
        manifest, coverage, run = reused
        return BuildResult(manifest, coverage, run, index_for(read_generation(workspace, manifest.generation)))
    with build_lock_for(workspace), scratch_owner(workspace) as token:
        ensure_private_dir(workspace.directory, private_from=workspace.root)
        scratch = workspace.directory / f".{token}.build"
        os.mkdir(scratch, 0o700)
        try:
            progress(f"materialise {len(census.entries):,} files")
            materialise(census, checkout, scratch / "source", exclude)
            for name in ("home", "tmp"):
                os.mkdir(scratch / name, 0o700)
            progress("provider running")
            cache = ProviderCache(workspace.directory, provider.pin, fixed_root())
            run = run_provider(provider, scratch, sandbox=sandbox, timeout=timeout, cache=cache)
            output = _collect(scratch / "source")
            progress("pack")
            manifest, coverage = publish_output(
                workspace, output, bound=bound, census=census, provider=provider.pin,
                keep_previous=keep_previous, lock_held=True, exclude=exclude,
                build_record={
                    "schema": BUILD_RECORD_SCHEMA, "origin": "provider_run", "contained": run.contained,
                    "sandbox": "bubblewrap" if run.contained else "none",
                },
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    progress("index")  # derived before publishing (publish_output); this reuses it
    report = index_for(read_generation(workspace, manifest.generation))
    return BuildResult(manifest, coverage, run, report)


def _collect(source: Path) -> Path:
    for name in (".graphify", ".graph"):
        if os.path.lexists(source / name):
            raise Refusal("The provider wrote more than one output root.", reason="provider")
    output = source / "graphify-out"
    if output.is_symlink() or not output.is_dir():
        raise Refusal("The provider wrote no graphify-out directory.", reason="provider")
    graph = output / artifact.GRAPH_MEMBER
    if graph.is_symlink() or not graph.is_file():
        raise Refusal("The provider wrote no graph.json.", reason="provider")
    return output
