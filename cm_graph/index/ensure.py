"""Find or derive the index of a checkout's current generation.

The index is derived state: when it is missing, unreadable by this reader, or names another
generation, it is built again from the generation (never repaired in place).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

import apsw

from ..base.errors import Absent, IndexMissing, ReaderIncompatible, Refusal, Stale
from ..base.git import resolve_revision
from ..base.sqlrows import fetch_rows
from ..generation.layout import Workspace
from ..generation.scratch import sweep_stale_scratch
from ..generation.status import GRAPH_CHANGED, GraphStatus
from ..generation.store import Generation, read_current, still_current
from .format import IndexReport, IndexUnreadable, open_index
from .seal import index_is_sealed


def current_generation(workspace: Workspace, revision: str | None = None) -> Generation:
    """The current generation; with ``revision``, refuse one bound to a different commit."""
    generation = read_current(workspace)
    if revision is not None:
        bound = resolve_revision(workspace.checkout, revision)
        manifest = generation.manifest
        if (bound.commit, bound.tree) != (manifest.commit, manifest.tree):
            raise Stale("The local graph was built from a different revision; refresh it.")
    return generation


def _open_reusable(path: Path, generation: Generation, *, full: bool = False) -> apsw.Connection | None:
    """A read-only connection to a readable, private, sealed index of this generation; None means
    derive it again (a missing, foreign, damaged, shared, hard-linked, unsealed or altered file
    is replaced, never trusted). The seal is checked cheaply unless ``full`` (``indexseal``); a
    graph.bin changed since the derivation is verified in full and refused when ``corrupt``."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077 or st.st_nlink != 1:
        return None
    if not index_is_sealed(generation, path, full=full):
        return None
    try:
        connection = open_index(path)
    except (IndexUnreadable, ReaderIncompatible):
        return None
    try:
        if connection.execute("SELECT generation FROM generation").fetchall() == [(generation.id,)]:
            return connection
    except apsw.Error:
        pass
    connection.close()
    return None


def _reusable(path: Path, generation: Generation, *, full: bool = True) -> dict[str, int] | None:
    """The counts of a reusable index of this generation (see ``_open_reusable``; the seal is
    checked in full unless ``full=False``: this is the path of ``status --verify``, ``index`` and
    builds; a plain ``status`` checks it as a question does)."""
    connection = _open_reusable(path, generation, full=full)
    if connection is None:
        return None
    try:
        return dict(fetch_rows(connection.execute("SELECT name, value FROM counts"), tuple[str, int]))
    except apsw.Error:
        return None
    finally:
        connection.close()


INDEX_MISSING = "The current generation has no usable index yet; run `cm-graph index` (an agent's call builds none)."


def open_index_for(generation: Generation, *, derive: bool = True) -> apsw.Connection:
    """The question path's one open of the index of an already verified generation: the
    connection that passed the reuse checks, or, after deriving the index, a fresh one.
    ``derive=False`` (the agent surfaces) refuses with ``index_missing`` instead of deriving.

    The question trusted graph.bin's own seal, which alone could be forged: deriving here
    verifies graph.bin in full first."""
    path = generation.workspace.index_path(generation.id)
    connection = _open_reusable(path, generation)
    if connection is not None:
        return connection
    if not derive:
        raise IndexMissing(INDEX_MISSING)
    _derive(generation, path, trust_artifact_seal=False)
    return open_index(path)


def open_current_index(
    workspace: Workspace, find: Callable[[], Generation], *, derive: bool = True
) -> tuple[Generation, apsw.Connection]:
    """``find()`` the generation to answer from (it refuses an unusable graph) and open its index.

    Readers take no lock: when opening fails because the generation stopped being current
    meanwhile (a refresh pruned it, a removal took it), nothing is damaged, so the generation is
    found again, once; a graph still changing then is ``absent`` for now (``GRAPH_CHANGED``)."""
    for _attempt in range(2):
        generation = find()
        try:
            return generation, open_index_for(generation, derive=derive)
        except (Refusal, OSError):
            if still_current(workspace, generation.id):
                raise
    raise Absent(GRAPH_CHANGED)


def ensure_index(
    workspace: Workspace, revision: str | None = None, *, rebuild: bool = False
) -> IndexReport:
    """Verify the current generation, then reuse its readable index or derive it."""
    sweep_stale_scratch(workspace)
    generation = current_generation(workspace, revision)
    generation.open_verified_artifact().close()
    return index_for(generation, rebuild=rebuild)


def has_usable_index(generation: Generation) -> bool:
    """Whether a question could open this generation's index without deriving it."""
    connection = _open_reusable(generation.workspace.index_path(generation.id), generation)
    if connection is None:
        return False
    connection.close()
    return True


def index_for(generation: Generation, *, rebuild: bool = False, verify: bool = True) -> IndexReport:
    """The index of an already verified generation: reused when readable, else derived.
    ``verify=False`` trusts the index's seal as a question does (its bytes are hashed only when
    its identity or graph.bin's moved since it was sealed)."""
    started = time.perf_counter()
    path = generation.workspace.index_path(generation.id)
    if not rebuild:
        counts = _reusable(path, generation, full=verify)
        if counts is not None:
            try:
                size = os.stat(path).st_size
            except FileNotFoundError:  # pruned by a concurrent refresh: derive it again below
                return _derive(generation, path)
            return IndexReport(
                generation=generation.id,
                commit=generation.manifest.commit,
                path=path,
                counts=counts,
                bytes=size,
                seconds=time.perf_counter() - started,
                reused=True,
            )
    return _derive(generation, path)


def _derive(generation: Generation, path: Path, *, trust_artifact_seal: bool = True) -> IndexReport:
    from .importer import build_index  # the index-building code loads only when it is needed

    return build_index(generation, path, trust_artifact_seal=trust_artifact_seal)


READINESS_SCHEMA = "code_mower.contextGraphSearchReadiness.v1"


def search_readiness(status: GraphStatus, *, verify: bool = True) -> dict[str, object]:
    """Can this reader answer questions from the current generation?

    It asks the same reader a question would: the generation's index is derived (or reused)
    exactly as the first question would derive it, so status and query never disagree about
    whether the reader can consume the generation. ``verify=False`` (a plain ``status``) checks
    the index against its seal as a question does instead of hashing it.
    """
    if not status.usable or status.generation is None:
        return {"schema": READINESS_SCHEMA, "search": "unavailable", "reader": "not_checked", "reason": status.state}
    try:
        index_for(status.generation, verify=verify)
    except ReaderIncompatible as refusal:
        return {
            "schema": READINESS_SCHEMA, "search": "unavailable", "reader": "incompatible",
            "reason": "reader_incompatible", "detail": refusal.message,
            "remediation": refusal.remediation, "next_action": refusal.remediation["action"],
        }
    except Refusal as refusal:
        return {
            "schema": READINESS_SCHEMA, "search": "unavailable", "reader": "unreadable",
            "reason": "unreadable", "detail": refusal.message,
            "next_action": "Report this generation; remove and rebuild it with the pinned provider.",
        }
    from .. import __version__

    return {
        "schema": READINESS_SCHEMA, "search": "available", "reader": "compatible", "installed_cm_graph": __version__
    }
