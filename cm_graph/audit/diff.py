"""``cm-graph diff``: what changed in the code graph between two generations.

Both indexes are attached to one in-memory apsw connection, read-only, and compared in SQL by
provider id (nodes), full relationship identity (edges, call sites included), path (census),
and, for the resolved layer, by (path, qualified name, kind) for definitions and by what a
reference says, lines left out (file, caller, role, bound definition, name), for references.
Results are streamed from the cursors, so a large diff costs a cursor, not a list.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apsw

from ..base.errors import Absent, Refusal
from ..base.git import resolve_revision
from ..base.rules import is_generation_id
from ..base.sqlfiles import query_sql
from ..generation.layout import Workspace
from ..generation.store import Generation, list_generations, read_current, read_generation
from ..index.ensure import index_for
from ..index.format import configure_readonly, open_index

DIFF_SCHEMA = "cm_graph.diff.v1"
SECTIONS = {
    "nodes": (
        "diff_nodes",
        ("change", "provider_id", "old_label", "old_path", "old_line", "new_label", "new_path", "new_line"),
    ),
    "relationships": (
        "diff_edges",
        ("change", "source", "target", "relation", "confidence", "site_path", "site_line", "old_site_line"),
    ),
    "files": ("diff_census", ("change", "path", "old_blob", "new_blob")),
    "definitions": (
        "diff_definitions",
        ("change", "path", "qualname", "kind", "old_start_line", "old_end_line", "new_start_line", "new_end_line"),
    ),
    "references": (
        "diff_references", ("change", "path", "caller", "role", "target", "name", "old_count", "new_count"),
    ),
}


# Why a side's generation is gone, and how to keep the next one: the same for both forms of a side.
KEEP_PREVIOUS = ("a build or refresh keeps only the newest generation unless run with --keep-previous, so run the "
                 "next one as `cm-graph refresh --keep-previous` to keep the one it replaces.")


def resolve_side(workspace: Workspace, spec: str) -> Path:
    """An index file for a diff side: a path to an index, a generation id, or a revision."""
    if spec.endswith(".sqlite") and os.path.isfile(spec):
        open_index(Path(spec)).close()
        return Path(os.path.abspath(spec))
    return index_for(side_generation(workspace, spec)).path


def side_generation(workspace: Workspace, spec: str) -> Generation:
    """The generation a diff side names: a generation id, or a revision (the current one wins a
    tie between generations bound to that commit)."""
    if is_generation_id(spec):
        try:
            return read_generation(workspace, spec)
        except Absent:
            raise Absent(f"This checkout has no such generation; {KEEP_PREVIOUS}") from None
    commit = resolve_revision(workspace.checkout, spec).commit
    try:
        current = [read_current(workspace)]
    except Refusal:
        current = []
    for generation in current + list_generations(workspace):
        if generation.manifest.commit == commit:
            return generation
    raise Absent(f"No generation of this checkout bound to that revision is kept; {KEEP_PREVIOUS}")


def operator_exclusions(workspace: Workspace, spec: str) -> list[str] | None:
    """The ``--exclude`` globs a diff side was built with (None for an index file or a build
    record that does not say), so a diff shows when two graphs left different code out."""
    if spec.endswith(".sqlite") and os.path.isfile(spec):
        return None
    coverage = (side_generation(workspace, spec).build_record() or {}).get("coverage")
    exclude = coverage.get("exclude") if isinstance(coverage, dict) else None
    return list(exclude) if isinstance(exclude, list) else None


@dataclass
class GraphDiff:
    connection: apsw.Connection

    def rows(self, section: str) -> Iterator[dict[str, Any]]:
        statement, columns = SECTIONS[section]
        try:
            for row in self.connection.execute(query_sql(statement)):
                yield dict(zip(columns, row, strict=True))
        except apsw.Error:
            raise Refusal("An index to compare is corrupt; run `cm-graph audit`.", reason="unreadable") from None

    def close(self) -> None:
        self.connection.close()


def open_diff(old: Path, new: Path) -> GraphDiff:
    connection = apsw.Connection(":memory:", flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    try:
        connection.execute("ATTACH DATABASE ? AS old", (f"file:{old}?mode=ro",))
        connection.execute("ATTACH DATABASE ? AS new", (f"file:{new}?mode=ro",))
        configure_readonly(connection)
    except apsw.Error:
        connection.close()
        raise Refusal("An index to compare could not be opened.", reason="unreadable") from None
    return GraphDiff(connection)


def summarise(diff: GraphDiff, limit: int) -> dict[str, Any]:
    """Counts per change kind and the first ``limit`` rows of each section, in stable order."""
    result: dict[str, Any] = {"schema": DIFF_SCHEMA}
    for section in SECTIONS:
        counts: dict[str, int] = {}
        listed: list[dict[str, Any]] = []
        for row in diff.rows(section):
            counts[row["change"]] = counts.get(row["change"], 0) + 1
            if len(listed) < limit:
                listed.append(row)
        result[section] = {"counts": dict(sorted(counts.items())), "rows": listed}
    return result
