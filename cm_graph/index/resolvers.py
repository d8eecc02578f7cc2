"""Which resolver reads which file, and one layer from theirs: Python's (``pyresolve``) for
``.py``/``.pyi``, JavaScript/TypeScript's (``jsresolve``) for ``.js``/``.mjs``/``.cjs``/``.jsx``/
``.ts``/``.tsx``/``.mts``/``.cts`` (not ``.d.ts`` declarations).

Each resolver numbers its own rows by rank; merged, the files are renumbered by path and the
definitions and references by the same ranks over the union, so the layer is still one function
of the blobs. A commit with files of one language only gets that resolver's layer untouched (a
Python-only repository's rows are what they were before JavaScript was read; only the schema
version, 11, differs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .jsmanifest import is_manifest
from .jsresolve import resolve_javascript
from .jsscope import is_js_path, language_of
from .pymodules import is_python_path
from .pyresolve import LANGUAGE as PYTHON
from .pyresolve import resolve_python
from .resolved import DefinitionRow, ReferenceRow, ResolvedLayer


def is_resolved_path(path: str) -> bool:
    return is_python_path(path) or is_js_path(path)


def file_language(path: str) -> str:
    return PYTHON if is_python_path(path) else language_of(path)


def resolve_blobs(blobs: Iterable[tuple[str, bytes | int]]) -> ResolvedLayer:
    """The resolved layer of these ``(path, content)`` files, each read by its language's resolver.
    A fault of one resolver (a bug meeting some file) costs its own language's files only: they
    are listed ``failed``, and the other language's rows are kept (``package.json`` manifests are
    read by JavaScript's, when there is a JS/TS file to read them for)."""
    python: list[tuple[str, bytes | int]] = []
    javascript: list[tuple[str, bytes | int]] = []
    manifests: list[tuple[str, bytes | int]] = []
    for path, content in blobs:
        (python if is_python_path(path) else manifests if is_manifest(path) else javascript).append((path, content))
    if javascript:  # a manifest only tells the JavaScript resolver what a package name binds
        javascript += manifests
    if not javascript:
        return _guarded(resolve_python, python)
    if not python:
        return _guarded(resolve_javascript, javascript)
    return merge(_guarded(resolve_python, python), _guarded(resolve_javascript, javascript))


def _guarded(resolve: Callable[[list[tuple[str, bytes | int]]], ResolvedLayer],
             blobs: list[tuple[str, bytes | int]]) -> ResolvedLayer:
    """``resolve(blobs)``, or their failed layer when the resolver itself raises: the same blobs
    fail the same way, so the layer is still one function of them."""
    try:
        return resolve(blobs)
    except Exception:  # noqa: BLE001 - a resolver fault costs its language's resolved rows, never the index
        return failed_layer(blobs)


def failed_layer(blobs: list[tuple[str, bytes | int]]) -> ResolvedLayer:
    """The layer of files a resolver failed on: listed, marked ``failed``, with no rows."""
    return ResolvedLayer([(path, file_language(path), "", "failed") for path, _ in sorted(blobs)
                          if not is_manifest(path)], [], [])


def merge(*layers: ResolvedLayer) -> ResolvedLayer:
    """Layers of disjoint files as one, renumbered by rank over the union."""
    files = sorted((row, index, old) for index, layer in enumerate(layers)
                   for old, row in enumerate(layer.files, start=1))
    file_number = {(index, old): new for new, (_, index, old) in enumerate(files, start=1)}
    keyed: list[tuple[int, int, int, DefinitionRow]] = []
    for index, layer in enumerate(layers):
        for position, row in enumerate(layer.definitions):
            keyed.append((file_number[(index, row[1])], index, position, row))
    keyed.sort(key=lambda item: (item[0], item[1], item[2]))
    definition_number = {(index, row[0]): new for new, (_, index, _, row) in enumerate(keyed, start=1)}
    definitions: list[DefinitionRow] = [
        (new, file, definition_number[(index, row[2])] if row[2] is not None else None, *row[3:])
        for new, (file, index, _, row) in enumerate(keyed, start=1)]
    references: list[tuple[int, int, int, str, int, str, int]] = [
        (file_number[(index, row[0])], row[1], row[2], row[3],
         definition_number[(index, row[4])] if row[4] is not None else 0, row[5], definition_number[(index, row[6])])
        for index, layer in enumerate(layers) for row in layer.references]
    references.sort()
    ordered: list[ReferenceRow] = [
        row if row[4] else (row[0], row[1], row[2], row[3], None, row[5], row[6]) for row in references]
    return ResolvedLayer([row for row, _, _ in files], definitions, ordered)
