"""Resolve a target the way an agent writes it, to one anchor, never by picking one of several.

First the seed's three exact tiers (label, label without its argument list, path; for a path
the file's own node is the anchor). Only when they match nothing, the qualified forms of the one
target grammar ``ask`` shares (``query/targets.py``: ``path::name#L<n>``, ``path#L<n>``,
``path::name``, ``Class.method``, ``module.func``, a method without its leading dot). More than
one definition is ``ambiguous`` with the candidates; nothing at all is ``unresolved`` with ranked
suggestions.
A variable binding of the name (the provider's node for ``const parse = require('./parse')``)
ranks after every real definition (``bindings_among.sql`` says how one is told apart), and one
real definition resolves with the bindings it was preferred over named in the answer.
"""

from __future__ import annotations

import json

import apsw

from ..base.errors import InvalidInput
from ..base.records import record
from ..base.rules import is_bounded_text
from ..base.sqlfiles import query_sql
from ..query.questions import MAX_TARGET_CHARS
from ..query.suggest import suggestions
from ..query.targets import NAMES_READ, definitions_first, path_spelling, qualified_nodes

MAX_CANDIDATES = 12


@record
class Resolution:
    status: str  # resolved | ambiguous | unresolved
    anchors: tuple[int, ...]  # the one anchor, or the first MAX_CANDIDATES candidates
    total: int  # how many candidates there were (at least, when the read stopped)
    via: str  # label | path | path_line | path_name | owner_name | module_name | reexport | method | none
    suggestions: tuple[str, ...] = ()
    set_aside: tuple[int, ...] = ()  # same-named variable bindings ranked after the one definition


def resolve(connection: apsw.Connection, target: object) -> Resolution:
    if not is_bounded_text(target, MAX_TARGET_CHARS):
        raise InvalidInput(
            f"The target must be non-empty single-line text of at most {MAX_TARGET_CHARS} characters."
        )
    assert isinstance(target, str)
    bindings = {"target": target, "limit": NAMES_READ, "within": None}
    exact = [row[0] for row in connection.execute(query_sql("resolve_target"), bindings)]
    if exact:
        files = _file_nodes(connection, exact, target)
        if files:
            return _settle(files, "path")
        return _definitions_first(connection, exact, target)
    via, nodes = qualified_nodes(connection, target)
    if via == "path":  # a path as a shell spells it (./pkg/mod.py): the file's own node, as above
        nodes = _file_nodes(connection, nodes, path_spelling(target)) or nodes
    if nodes:
        return _settle(nodes, via)
    ranked = dict.fromkeys(str(item["target"]) for item in suggestions(connection, target))
    return Resolution("unresolved", (), 0, "none", tuple(ranked)[:MAX_CANDIDATES])


def followable(connection: apsw.Connection, node: int, path: str, label: str, line: int | None) -> str | None:
    """The shortest target that resolves to exactly ``node``: ``path::label``, else (another
    definition of the name in that file) ``path::label#L<line>``, else ``path#L<line>``; each is
    checked by resolving it, so an ambiguous answer never offers a spelling that is ambiguous
    again. None for a candidate without a path (nothing to name it by but its label)."""
    if not path:
        return None
    spellings = [f"{path}::{label}"] + ([f"{path}::{label}#L{line}", f"{path}#L{line}"] if line else [])
    for spelling in spellings:
        if not is_bounded_text(spelling, MAX_TARGET_CHARS):
            continue
        found = resolve(connection, spelling)
        if found.status == "resolved" and found.anchors == (node,):
            return spelling
    return None


def _settle(nodes: list[int], via: str, bindings: tuple[int, ...] = ()) -> Resolution:
    """One definition resolves (the ``bindings`` set aside for it are named, never hidden);
    several are ambiguous, with the bindings ranked after every definition."""
    nodes = sorted(set(nodes))
    if len(nodes) == 1:
        return Resolution("resolved", (nodes[0],), 1 + len(bindings), via, (), bindings)
    ranked = nodes + sorted(set(bindings))
    return Resolution("ambiguous", tuple(ranked[:MAX_CANDIDATES]), len(ranked), via)


def _definitions_first(connection: apsw.Connection, exact: list[int], target: str) -> Resolution:
    """A name the label tier matches: a binding, manifest key or declaration-only member of it is
    no definition of it, so the real definitions come first (``query/targets.py``)."""
    real, aside = definitions_first(connection, exact, target)
    return _settle(real, "label", tuple(aside))


def _file_nodes(connection: apsw.Connection, nodes: list[int], target: str) -> list[int]:
    """A path target anchors on the file's own node (labelled with the file's base name)."""
    base = target.rsplit("/", 1)[-1]
    rows = connection.execute(query_sql("describe_nodes"), {"nodes": json.dumps(nodes)})
    return [row[0] for row in rows if row[2] == target and row[1] == base]
