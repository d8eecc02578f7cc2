"""``cm-graph changes``: the definitions a diff touched and their callers, from the bound generation.

Registered from the command table (``command_table.py``), which gives it its name and help.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..base.errors import InvalidInput
from ..base.printable import printable
from ..generation.layout import Workspace
from .command_kit import Json, MaxShare, RepoPath, StateDir, refusals_exit

_Ref = Annotated[str | None, typer.Option("--base", help="Diff the working tree against the merge base of REF and "
                                                     "HEAD.")]
_Commit = Annotated[str | None, typer.Option("--commit", help="Diff commit C against its first parent.")]
_Worktree = Annotated[bool, typer.Option("--worktree", help="Diff the working tree against HEAD (the default).")]
_Staged = Annotated[bool, typer.Option("--staged", help="Diff the staged index against HEAD.")]
_MaxItems = Annotated[int | None, typer.Option("--max-items", help="Callers and tests shown at most (default 50).")]
_Format = Annotated[str | None, typer.Option("--format", help="text (default), json, or pytest-args: the tests to "
                                                              "run as pytest node ids, one a line.")]


@refusals_exit
def changes_command(
    worktree: _Worktree = False,
    staged: _Staged = False,
    base: _Ref = None,
    commit: _Commit = None,
    range_: Annotated[str | None, typer.Option("--range", help="Diff A..B (or A...B, from their merge base).")] = None,
    max_items: _MaxItems = None,
    repo_path: RepoPath = None,
    state_dir: StateDir = None,
    json_output: Json = False,
    format_: _Format = None,
    max_share: MaxShare = None,
) -> None:
    """Which definitions a diff touched (added, modified, deleted, renamed) and who calls them."""
    from ..context.budget import MAX_ITEMS
    from ..context.changes import changes
    from ..context.diffread import DiffSpec
    from .pytest_args import check_format, check_share_with, write_pytest_args

    shape = check_format(format_, json_output)
    share = check_share_with(shape, max_share)

    chosen = [(mode, value) for mode, value in (("worktree", worktree or None), ("staged", staged or None),
                                                ("base", base), ("commit", commit), ("range", range_))
              if value is not None]
    if len(chosen) > 1:
        raise InvalidInput("Name one diff: --worktree, --staged, --base REF, --commit C or --range A..B.")
    mode, value = chosen[0] if chosen else ("worktree", None)
    spec = DiffSpec(mode, value if isinstance(value, str) else None)
    if shape == "pytest-args" and max_items is None:
        max_items = MAX_ITEMS
    document = changes(Workspace.locate(repo_path, state_dir), spec, max_items=max_items, max_share=share)
    if shape == "pytest-args":
        tests = document["tests"]
        write_pytest_args(tests["items"], tests["total"], tests["selection"])
        return
    if shape == "json":
        from ..base.jsonio import dumps_wire

        sys.stdout.write(dumps_wire(document) + "\n")
        return
    sys.stdout.write(render_changes(document))


def render_changes(document: dict[str, Any]) -> str:
    """The answer as plain lines for a terminal: every name from the repository made printable."""
    out = [printable(document["answer"]), ""]
    for entry in document["files"]:
        flags = [word for word in ("binary", "submodule", "symlink") if entry[word]]
        if not entry["in_generation"]:
            flags.append("not in the generation")
        moved = f" (from {printable(entry['old_path'])})" if entry["old_path"] not in (None, entry["path"]) else ""
        extra = f" [{', '.join(flags)}]" if flags else ""
        out.append(f"{entry['status']:<9} {printable(entry['path'])}{moved}{extra}")
        for side in ("old", "new"):
            if entry["module_level"][side]:
                out.append(f"          module_level ({side}): {_spans(entry['module_level'][side])}")
            if entry["unmapped"][side]:
                out.append(f"          unmapped ({side}): {_spans(entry['unmapped'][side])}")
    if document["definitions"]:
        out += ["", "Definitions:"]
    for item in document["definitions"]:
        old, new = item["old"], item["new"]
        where = new or old
        span = f"{where['path']}:{where['start_line']}-{where['end_line']}"
        before = ""
        if item["change"] == "renamed" and old:
            before = f" (was {printable(old['name'])} at {printable(old['path'])}:{old['start_line']})"
        line_only = " [line only]" if item.get("line_only") else ""
        out.append(f"  {item['change']:<9} {item['kind']:<8} {printable(item['name'])}  "
                   f"{printable(span)}{before}{line_only}")
    callers = document["callers"]
    if callers["status"] == "answered":
        out += ["", f"Callers ({callers['total']}, within {callers['depth']} hops):"]
        for item in callers["items"]:
            site = item.get("site") or {}
            at = f"{site.get('path')}:{site.get('line')}" if site else f"{item['path']}:{item['line']}"
            out.append(f"  hop {item['hop']} {printable(item['label'])}  {printable(at)}  "
                       f"[{', '.join(item['evidence'])}] -> {printable(', '.join(item['reaches']))}")
        if document["bounds"]["truncated"]:
            out.append(f"  ...and {callers['total'] - len(callers['items'])} more (--max-items).")
    tests = document["tests"]
    if tests["status"] == "answered":
        out += ["", f"Tests to run ({tests['total']}, within {tests['depth']} hops, nearest first):"]
        for item in tests["items"]:
            why = "; ".join(f"{step['from']} {step['relation']} ({step['evidence']}) {step['to']}"
                            for step in item["why"])
            out.append(f"  hop {item['hop']} {printable(item['id'])}  [{item['evidence']}]  {printable(why)}")
        if len(tests["items"]) < tests["total"]:
            out.append(f"  ...and {tests['total'] - len(tests['items'])} more (--max-items).")
        if tests.get("observed"):
            out.append(f"  {printable(tests['observed']['detail'])}")
    if document["unseen"]:
        out += ["", "Not seen:"] + [f"  - {printable(text)}" for text in document["unseen"]]
    return "\n".join(out) + "\n"


def _spans(spans: list[list[int]]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
