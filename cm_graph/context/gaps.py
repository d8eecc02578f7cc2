"""Definitions the graph lacks (extraction gaps), in an answer: found by name, labelled textual.

The build record keeps the definitions the text of the bound commit holds and the graph does
not (``index/definition_gaps.py``: jinja2's ``Environment.compile``, immer's ``IProduce``). A
target that resolves to nothing but names such a definition is answered from the text: its
defining line is the anchor, ``evidence: textual``, with the gap named; an answer whose anchor or
items sit in a file with gaps says what the graph lacks there, since its sections cannot hold it.
"""

from __future__ import annotations

from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..generation.definitions import named_gaps, spelled
from .shape import LIST_HEAD, CitationBook, listed, tag
from .textual import TEXTUAL, mention_facts

GAP_FILES_SAID = 3


def textual_definition(
    connection: apsw.Connection, gaps: dict[str, list[dict[str, Any]]], target: str
) -> dict[str, Any] | None:
    """The dropped definition ``target`` names (the first by path, then line), as an anchor
    labelled textual; None when it names none. ``Owner.name`` keeps the files that define the
    owner, when the graph knows the owner at all."""
    _path, owner, _name = spelled(target)
    found = named_gaps(gaps, target)
    if owner and found:
        owners = {row[1] for row in connection.execute(query_sql("nodes_named"), {"name": owner, "limit": 500})}
        owned = [(where, item) for where, item in found if where in owners]
        found = owned or ([] if owners else found)
    if not found:
        return None
    where, item = found[0]
    return {"label": item["name"], "kind": "symbol", "path": where, "line": item["line"], "lines": item["lines"],
            "evidence": TEXTUAL, "gap": True, "others": len(found) - 1}


def textual_answer(
    connection: apsw.Connection, anchor: dict[str, Any], target: str, commit: str, book: CitationBook
) -> str:
    """The prose of an answer from the text alone: where the definition is, that the provider
    dropped it, and the lines that use the name, when the text index lists them."""
    where = f"{anchor['path']}#L{anchor['line']}"
    lines = f"; {anchor['lines']} defining lines" if anchor["lines"] > 1 else ""
    sentences = [
        f"`{target}` is not in the graph: the provider dropped it (an extraction gap). The text of commit "
        f"{commit[:12]} defines {tag(anchor['label'], anchor['cite'])} at {where} (textual{lines}), so nothing the "
        "graph holds reaches it or is reached from it."]
    if anchor["others"]:
        sentences.append(f"{anchor['others']} more dropped definition(s) carry this name.")
    facts = mention_facts(connection, anchor["label"], 0)
    rows = [row for row in facts["rows"] if (row[0], row[1]) != (anchor["path"], anchor["line"])]
    if facts["common"]:
        sentences.append(f"`{anchor['label']}` is used on too many lines of this commit to list them.")
    elif rows:
        named = [tag(f"{path}#L{line}", book.cite(path, line)) for path, line, _form in rows[:LIST_HEAD]]
        sentences.append(f"{len(rows)} line(s) use it by name (textual): {listed(named, len(rows))}.")
    else:
        sentences.append(f"The text index lists the uses of names the graph defines only, so the uses of "
                         f"`{anchor['label']}` are not counted: search the text for it.")
    return " ".join(sentences)


def gaps_note(gaps: dict[str, list[dict[str, Any]]], paths: list[str]) -> str | None:
    """One sentence naming the files of ``paths`` (the anchor's first, at most ``GAP_FILES_SAID``)
    with gaps and what the graph lacks in each."""
    said: list[str] = []
    for path in dict.fromkeys(paths):
        names = gaps.get(path)
        if names and len(said) < GAP_FILES_SAID:
            named = ", ".join(f"{item['name']} at L{item['line']}" for item in names[:LIST_HEAD])
            more = f", …and {len(names) - LIST_HEAD} more" if len(names) > LIST_HEAD else ""
            said.append(f"{path} ({len(names)}: {named}{more})")
    if not said:
        return None
    return (f"The graph lacks definitions the text holds (extraction gaps) in {'; '.join(said)}, so what it says "
            f"of {'that file' if len(said) == 1 else 'those files'} is incomplete.")


def item_paths(anchor: dict[str, Any], sections: dict[str, Any]) -> list[str]:
    """The anchor's file, then every listed item's, in section order."""
    paths = [anchor["path"]]
    for section in sections.values():
        paths.extend(item["path"] for item in section.get("items", []) if item.get("path"))
    return paths
