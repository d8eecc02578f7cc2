"""The one target grammar ``ask`` and ``code_context`` share: the spellings past the seed's tiers.

The seed's three tiers come first, always (the label, the label without its argument list, the
path: ``sql/resolve_target.sql``); ``query``, whose packets are the seed's, reads a target by
them alone. Only when they match nothing do ``ask`` (the operator's and the agents') and
``code_context`` read it as one of the qualified forms an agent writes, and the ones
``code_context`` itself suggests: ``path::name#L<n>`` or ``path#L<n>`` (the definition at that
line, which tells apart two same-named definitions of one file), ``path::name``,
``Class.method`` (by the provider's ``method``/``contains``/``defines`` edges), ``module.func``
or ``pkg.module.func`` (against the node's file), a public import path through the package's
re-export (``httpx.Client``: ``reexports``) and a method without its leading dot (the
pinned provider labels methods ``.name()``). A reading names every node it matches; what is done
with several (``ask`` seeds them all, ``code_context`` calls them ambiguous) is the caller's.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator

import apsw

from ..base.sqlfiles import query_sql
from ..index.graphmodel import callable_base

_LINE_SUFFIX = re.compile(r"(.+)#L([1-9][0-9]{0,8})", re.ASCII)
_PATH_PART = re.compile(r"([^:#]*/[^:#]*)((?:::|#L).*)?", re.ASCII | re.DOTALL)
NAMES_READ = 500  # definitions read per name: far past any seed or candidate bound


def qualified_nodes(connection: apsw.Connection, target: str, within: str | None = None) -> tuple[str, list[int]]:
    """(how it was read, the nodes) of the first qualified reading of ``target`` that names a
    node (among definitions in ``within``, a file or directory, when given), or ``("none", [])``."""
    for via, nodes in _readings(connection, target):
        if within is not None:
            nodes = _under(connection, nodes, within)
        if nodes:
            return via, sorted(set(nodes))
    return "none", []


def path_spelling(target: str) -> str:
    """``target`` with its path written as the graph records it: ``./``, ``//`` and ``dir/..``
    folded (``./pkg/mod.py::load`` is ``pkg/mod.py::load``), as a shell's completion writes a
    path; unchanged when it writes no path, or one that leaves the repository."""
    spelled = _PATH_PART.fullmatch(target)
    if not spelled:
        return target
    path = posixpath.normpath(spelled.group(1))
    if path in (".", "") or path.startswith(("/", "../")) or path == "..":
        return target
    return path + (spelled.group(2) or "")


def _readings(connection: apsw.Connection, target: str) -> Iterator[tuple[str, list[int]]]:
    """(via, nodes) for each qualified reading of the target, in the order they are tried."""
    spelled = path_spelling(target)
    if spelled != target:  # the seed's path tier, of the path as the graph records it
        rows = connection.execute(query_sql("resolve_target"), {"target": spelled, "limit": NAMES_READ, "within": None})
        yield "path", [row[0] for row in rows]
        target = spelled
    located = _LINE_SUFFIX.fullmatch(target)
    if located:  # path::name#L<n> or path#L<n>: the definition at that line
        place, line = located.group(1), int(located.group(2))
        path, _, name = place.rpartition("::") if "::" in place else (place, "", "")
        rows = connection.execute(query_sql("nodes_at_line"), {"path": path, "line": line, "limit": NAMES_READ})
        wanted = _spellings(name.strip()) - {""}
        yield "path_line", [node for node, label in rows if not wanted or _spellings(label) & wanted]
        return
    if "::" in target:
        path, _, name = target.rpartition("::")
        name = name.strip()
        yield "path_name", [node for node, where in _named(connection, callable_base(name) or name) if where == path]
        return
    bare = target.lstrip(".")
    if "." in bare.rstrip("()"):
        owner, _, name = bare.rstrip("()").rpartition(".")
        named = _named(connection, name)
        owned = [row[0] for row in connection.execute(
            query_sql("owners_of"), {"nodes": json.dumps([n for n, _ in named]), "owner": owner.rsplit(".", 1)[-1]}
        )]
        yield "owner_name", owned
        module = owner.replace(".", "/")
        yield "module_name", [node for node, where in named if _module_of(where) in (module, module + "/__init__")
                              or _module_of(where).endswith("/" + module)]
        yield "reexport", [node for node, _ in reexports(connection, [n for n, _ in named], module)]
        return
    yield "method", [node for node, _ in _named(connection, callable_base(bare) or bare)]


ENTRY_FILES = ("/__init__.py", ".py", "/index.ts", "/index.js", "/mod.rs", "/lib.rs")  # a package's public face


def reexports(connection: apsw.Connection, nodes: list[int], module: str) -> list[tuple[int, str]]:
    """(node, entry file) of each of ``nodes`` the package ``module`` (``httpx``, ``pkg/sub``)
    imports or re-exports in its entry file: the public import path of a definition that lives in
    a private module (``httpx.Client`` is ``httpx/_client.py``'s ``Client``). Read from the
    provider's import edges, so a name the package merely defines elsewhere is not one."""
    if not nodes:
        return []
    paths = [module + suffix for suffix in ENTRY_FILES]
    rows = connection.execute(query_sql("reexported_by"), {"nodes": json.dumps(sorted(set(nodes))),
                                                           "paths": json.dumps(paths)})
    return [(row[0], row[1]) for row in rows]


def definitions_first(
    connection: apsw.Connection, exact: list[int], target: str, within: str | None = None
) -> tuple[list[int], list[int]]:
    """(the definitions, the nodes set aside for them) of a name the label tier matches. A
    variable binding (``const parse = require(...)``), a manifest key (``package.json``'s
    ``"diff"`` devDependency or ``"build"`` script) or a declaration-only member (a ``.d.ts``
    enum member) is no definition of the name: all read as a symbol without an argument list and
    without outgoing relationships (``bindings_among.sql``). The real definitions come first,
    including the functions the seed's second tier would have found (``parse()``), which the
    label tier hides; with none, the matches stand as they are, nothing set aside."""
    rows = connection.execute(query_sql("bindings_among"), {"nodes": json.dumps(sorted(set(exact)))})
    bound = {row[0] for row in rows}
    if not bound:
        return exact, []
    real = [node for node in exact if node not in bound]
    if "(" not in target:
        named = [row[0] for row in connection.execute(query_sql("callables_named"),
                                                      {"name": target, "limit": NAMES_READ})]
        real += _under(connection, named, within) if within is not None else named
    if not real:
        return exact, []
    return real, sorted(bound)


def reexport_entry(connection: apsw.Connection, node: int, target: str) -> str | None:
    """The entry file through which ``target``, a public import path, re-exports ``node``."""
    module = target.lstrip(".").rstrip("()").rpartition(".")[0].replace(".", "/")
    found = reexports(connection, [node], module)
    return found[0][1] if found else None


def _spellings(label: str) -> set[str]:
    """A name as written and without its leading dot or argument list (``.load()``, ``load()``,
    ``.load``, ``load`` are one method), as ``path::name`` reads it (``nodes_named.sql``)."""
    bare = label.lstrip(".")
    return {label, bare, callable_base(label) or label, callable_base(bare) or bare}


def _named(connection: apsw.Connection, name: str) -> list[tuple[int, str]]:
    rows = connection.execute(query_sql("nodes_named"), {"name": name, "limit": NAMES_READ})
    return [(row[0], row[1]) for row in rows]


def _under(connection: apsw.Connection, nodes: list[int], within: str) -> list[int]:
    """The nodes defined in ``within`` or under it (as ``resolve_target.sql`` reads ``:within``)."""
    rows = connection.execute(query_sql("describe_nodes"), {"nodes": json.dumps(sorted(set(nodes)))})
    return [row[0] for row in rows if row[2] == within or row[2].startswith(within + "/")]


def _module_of(path: str) -> str:
    stem, dot, _ = path.rpartition(".")
    return stem if dot and "/" not in path[len(stem):] else path
