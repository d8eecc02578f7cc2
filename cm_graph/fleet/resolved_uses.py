"""Resolved cross-repository uses: the members' Python files resolved together, so that
``import httpcore; httpcore.ConnectionPool(...)`` in one member binds to the class another member
defines, at the line that calls it.

A member's own resolved layer (``index/pyresolve.py``) records nothing for a use of a package it
does not contain: to its resolver that package is external. The fleet has what was missing, the
other members' files, so it runs the same resolver (the same scope rules, aliases, re-exports
through ``__init__``, typed receivers; nothing imported or run) over the union of the covered
members' Python files, each member's paths under a prefix of its own number, and keeps every
reference from one member onto a definition of another. It is a function of the members' blobs,
like the index's layer, so the fleet file stays byte-identical when re-derived.

Two honesty rules: a use is kept only when the definition's module lies under the package its
member declares (``import_root``: a package-qualified symbol, never a module that merely shares a
name such as ``utils``), and a module several members' files claim (two copies of one package) is
not chosen between: the site gets a row for each member's copy, and the answer calls it
ambiguous.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.git import CensusEntry
from ..index.pymodules import ModuleMap
from ..index.pyresolve import read_python_blobs, resolve_python

UseRow = tuple[str, int, str, int, int, str, str, str, str, int, str, int, str, str]
_CHAIN = re.compile(rb"[A-Za-z0-9_.]*\Z")
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class MemberSources:
    """One covered member's Python files as its bound commit holds them (a file too large to
    parse is given as its line count, as the index's resolver takes it)."""

    member: int
    files: list[tuple[str, bytes | int]] = field(default_factory=list)


def read_sources(member: int, checkout: Path, rows: Iterable[tuple[str, str, int]]) -> MemberSources:
    """The blobs of ``(path, blob, size)`` rows (the files the member's resolved layer covers)."""
    entries = [CensusEntry(path, "100644", blob, size) for path, blob, size in rows]
    return MemberSources(member, list(read_python_blobs(checkout, entries)) if entries else [])


MemberPackage = tuple[str, str, str, str]  # (ecosystem, package, version, import root)


def prefixed_sources(sources: list[MemberSources]) -> tuple[dict[str, bytes | int], dict[str, tuple[int, str]]]:
    """Every member's files under a prefix of its own number (``2/src/x.py``), as one resolver
    reads them together, and each prefixed path's (member, path); both empty unless two members
    have files (one member alone has no use of another's)."""
    contents: dict[str, bytes | int] = {}
    owner: dict[str, tuple[int, str]] = {}
    for source in sources:
        for path, content in source.files:
            prefixed = f"{source.member}/{path}"
            contents[prefixed] = content
            owner[prefixed] = (source.member, path)
    if len({member for member, _path in owner.values()}) < 2:
        return {}, {}
    return contents, owner


def resolved_uses(sources: list[MemberSources], members: dict[int, MemberPackage]) -> list[UseRow]:
    """The ``uses`` rows of these members (``members``: number -> (ecosystem, package, version,
    import root))."""
    contents, owner = prefixed_sources(sources)
    if not contents:
        return []
    layer = resolve_python(contents.items())
    modules = ModuleMap(contents)
    paths = [row[0] for row in layer.files]
    definitions = {row[0]: row for row in layer.definitions}
    by_inner: dict[tuple[str, str], int] = {}
    for number, file, _parent, _kind, _name, qualname, *_rest in layer.definitions:
        path = paths[file - 1]
        by_inner[(path, inner_name(qualname, modules.modules[path].qualified))] = number
    sites = _Sites(contents, modules)
    rows: list[UseRow] = []
    for file, line, column, role, target, name, _enclosing in layer.references:
        if target is None:
            continue
        path = paths[file - 1]
        using = owner[path][0]
        defined = definitions[target]
        target_path = paths[defined[1] - 1]
        if owner[target_path][0] == using:
            continue
        module = modules.modules[target_path].name
        inner = inner_name(defined[5], modules.modules[target_path].qualified)
        copies = [p for p in modules.files_named(module) if owner[p][0] != using] or [target_path]
        for copy in copies:
            found = by_inner.get((copy, inner))
            if found is None:
                continue
            candidate = definitions[found]
            member, original = owner[copy]
            ecosystem, package, version, root = members[member]
            if not root or module.split(".")[0] != root:
                continue  # not under the package its member declares: not a package-qualified symbol
            form, written, through = sites.form(path, line, column, role, name, candidate, module)
            rows.append((
                candidate[4], using, owner[path][1], line, column, role, form, written, through,
                member, original, candidate[7], ".".join(p for p in (module, inner) if p),
                scip_symbol(ecosystem, package, version, module, inner, candidate[3]),
            ))
    return rows


def inner_name(qualname: str, module: str) -> str:
    """A definition's name inside its module or file (``Client.send`` of
    ``pkg._client.Client.send``, ``Application.use`` of ``1.lib.application.Application.use``)."""
    if qualname == module:
        return ""
    return qualname[len(module) + 1:] if qualname.startswith(module + ".") else qualname


def scip_symbol(ecosystem: str, package: str, version: str, module: str, inner: str, kind: str) -> str:
    """The SCIP-style key ``<manager> <package> <version> <descriptor>``: ``pypi httpcore 1.0.5
    httpcore._async.connection_pool/ConnectionPool#`` (``#`` a type, ``().`` a callable, a
    module ``/``; ``.`` for a version the manifest does not give)."""
    descriptor = module + "/"
    if inner:
        *outer, leaf = inner.split(".")
        descriptor += "".join(f"{part}#" for part in outer) + (f"{leaf}#" if kind == "class" else f"{leaf}().")
    return " ".join(part.replace(" ", "_") or "." for part in (ecosystem, package, version, descriptor))


class _Sites:
    """How a site names what it uses, read from the using file's own text and imports."""

    def __init__(self, contents: dict[str, bytes | int], modules: ModuleMap) -> None:
        self.contents = contents
        self.modules = modules
        self._files: dict[str, tuple[list[bytes], dict[str, tuple[str, str]], dict[tuple[int, str], str]]] = {}

    def _file(self, path: str) -> tuple[list[bytes], dict[str, tuple[str, str]], dict[tuple[int, str], str]]:
        if path not in self._files:
            content = self.contents[path]
            source = content if isinstance(content, bytes) else b""
            self._files[path] = (source.splitlines(), *self._imports(path, source))
        return self._files[path]

    def _imports(self, path: str, source: bytes) -> tuple[dict[str, tuple[str, str]], dict[tuple[int, str], str]]:
        """Each name the file's imports bind, as (module, imported name: '' for a module), and
        the module of each ``from`` import's name by (line, name)."""
        bound: dict[str, tuple[str, str]] = {}
        from_modules: dict[tuple[int, str], str] = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source, feature_version=(3, 11))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return bound, from_modules
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bound[alias.asname] = (alias.name, "")
                    else:
                        head = alias.name.split(".")[0]
                        bound[head] = (head, "")
                        from_modules[(node.lineno, alias.name)] = alias.name
            elif isinstance(node, ast.ImportFrom):
                module = self.modules.absolute(path, node.module, node.level)
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    full = f"{module}.{alias.name}"
                    bound[alias.asname or alias.name] = (full, "") if self.modules.files_named(full) else (
                        module, alias.name)
                    from_modules[(alias.lineno, alias.name)] = module
        return bound, from_modules

    def form(self, path: str, line: int, column: int, role: str, name: str, target: Any,
             module: str) -> tuple[str, str, str]:
        """(form, written, through) of one site; ``through`` is the module the site names when
        it is not the defining ``module`` (a re-export), else ''."""
        lines, bound, from_modules = self._file(path)
        kind, own_name = target[3], target[4]
        if role == "import":
            named = from_modules.get((line, name), "")
            return "import", name, named if named and kind != "module" and named != module else ""
        written = written_at(lines, line, column, name)
        head, _, rest = written.partition(".")
        if rest:
            binding = bound.get(head)
            if binding is not None and binding[1] == "":
                parts = [binding[0], *rest.split(".")[:-1]]
                named = ".".join(parts)
                return "module_attribute", written, named if named != module else ""
            return "member", written, ""
        binding = bound.get(written)
        if binding is not None and binding[1]:
            form = "alias" if binding[1] != written else "imported_name"
            return form, written, binding[0] if binding[0] != module and kind != "module" else ""
        return ("alias" if written != own_name and kind != "method" else "name"), written, ""


def written_at(lines: list[bytes], line: int, column: int, name: str) -> str:
    """The dotted text ending in ``name`` at the site (``httpcore.ConnectionPool``,
    ``self._pool.handle_request``); the bare name when the text is not there as expected
    (an expression over several lines)."""
    if not 0 < line <= len(lines):
        return name
    text = lines[line - 1]
    start = column - 1
    word = _IDENTIFIER.match(text, start) if 0 <= start < len(text) else None
    if word is None or word.group().decode("utf-8", "replace") != name:
        return name
    chain = _CHAIN.search(text[:start])
    before = chain.group() if chain is not None and text[:start].endswith(b".") else b""
    before = before.lstrip(b".0123456789")
    return (before + word.group()).decode("utf-8", "replace")
