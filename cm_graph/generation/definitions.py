"""The definitions the graph lacks (extraction gaps) as a build record keeps them: said in one
line, and looked up by the name a target spells.

``index/definition_gaps.py`` finds them when a build derives its index; the record keeps them
under ``coverage.definitions``, so status, doctor, ``ask`` and ``code_context`` read the same facts.
"""

from __future__ import annotations

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

    from .store import Generation

MAX_GAP_FILES_SAID = 5
MAX_GAP_NAMES_SAID = 8  # per file: effect's Schema.ts has 139, one unreadable table cell


def recorded_definitions(generation: Generation) -> dict[str, Any] | None:
    """The build record's ``coverage.definitions`` of ``generation``; None for a record from
    before they were counted (or no readable record)."""
    coverage = (generation.build_record() or {}).get("coverage")
    definitions = coverage.get("definitions") if isinstance(coverage, dict) else None
    return definitions if isinstance(definitions, dict) else None


def recorded_gaps(generation: Generation) -> dict[str, list[dict[str, Any]]]:
    """The definitions ``generation``'s graph lacks, per file (empty when none were counted)."""
    return gaps_by_path(recorded_definitions(generation))


def gaps_by_path(definitions: dict[str, Any] | None) -> dict[str, list[dict[str, Any]]]:
    """path -> its gap names ({name, line, lines}) from the build record's ``definitions``."""
    return {item["path"]: list(item["names"]) for item in (definitions or {}).get("by_file", [])}


def spelled(target: str) -> tuple[str | None, str, str]:
    """(path, owner, name) a target spells: ``path::name``, ``Owner.name``, ``name``, ``.name()``."""
    if "::" in target:
        path, _, name = target.rpartition("::")
        return path, "", name.strip().lstrip(".").split("(", 1)[0].strip()
    bare = target.lstrip(".").split("(", 1)[0].strip()
    owner, _, name = bare.rpartition(".")
    return None, owner.rsplit(".", 1)[-1], name


def named_gaps(gaps: dict[str, list[dict[str, Any]]], target: str) -> list[tuple[str, dict[str, Any]]]:
    """(path, gap) of every dropped definition ``target`` names, by path then line."""
    path, _owner, name = spelled(target)
    return [(where, item) for where, names in sorted(gaps.items()) for item in names
            if item["name"] == name and (path is None or where == path)]


def gaps_sentence(definitions: dict[str, Any]) -> str | None:
    """The extraction gaps of a build record's ``definitions`` in one line, the files with the
    most first ("3 definitions in 2 file(s): a.py 2 (f, g); b.py 1 (h)"); None when there is none."""
    total = int(definitions.get("gaps", 0))
    if not total:
        return None
    files = definitions.get("by_file") or []
    named = "; ".join(f"{item['path']} {item['count']} ({_names(item)})" for item in files[:MAX_GAP_FILES_SAID])
    rest = int(definitions.get("files", 0)) - MAX_GAP_FILES_SAID
    more = f"; {rest} more file(s)" if rest > 0 else ""
    return f"{total} definitions in {definitions.get('files', 0)} file(s): {named}{more}"


def _names(item: dict[str, Any]) -> str:
    """A file's first dropped names, and how many more it has (``count``: every one, listed or not)."""
    shown = [n["name"] for n in item["names"][:MAX_GAP_NAMES_SAID]]
    rest = int(item["count"]) - len(shown)
    return ", ".join(shown) + (f", …and {rest} more" if rest > 0 else "")
