"""A diff's changed lines mapped onto definitions: added, modified, deleted or renamed.

For one file of the diff (``classify_file``), each changed line goes to the innermost definition
holding it on its side (old lines onto the old side's ranges, new lines onto the new side's), so
an insertion above a function shifts it without touching it, and an edit of a method is the
method's, not its class's. A definition on both sides (same key) is ``modified`` when a changed
line falls in it on either side and its own text differs (a diff that aligns identical lines
differently touches no definition: it is named in ``aligned_unchanged``); on one side only it is
``deleted`` or ``added``. In a renamed file the definitions found on both sides are ``renamed``
(with ``body_changed``). Changed lines no definition holds are the file's ``module_level`` lines;
a side whose ranges are unknown leaves its lines ``unmapped``.

Then, over the whole diff (``match_renames``), a deleted and an added definition of one kind whose
own text is the same but for the name (a rename) or whose name and text are the same (a move to
another file or class) become one ``renamed`` definition, when the match is one to one; never a
guess between several.
"""

from __future__ import annotations

from typing import Any

from ..base.records import record
from .defranges import DefRange, SideDefs, own_text, owners
from .diffread import FileChange


@record
class Changed:
    """One changed definition, with its old and new ranges (None on the side it is missing from)."""

    change: str  # added | modified | deleted | renamed
    kind: str
    old_path: str | None
    new_path: str | None
    old: DefRange | None
    new: DefRange | None
    source: str  # where its ranges came from (defranges.SideDefs.source), the weaker side's
    sources: tuple[str | None, str | None] = (None, None)  # each side's (old, new)
    body_changed: bool = True
    old_text: bytes | None = None
    new_text: bytes | None = None


def spans(lines: list[int]) -> list[list[int]]:
    """Sorted line numbers as ``[first, last]`` runs."""
    runs: list[list[int]] = []
    for number in sorted(set(lines)):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return runs


_WEAKER = ("none", "line_only", "parsed", "index")


def _weaker(one: str, other: str) -> str:
    return min(one, other, key=_WEAKER.index)


def classify_file(change: FileChange, old: SideDefs, new: SideDefs) -> tuple[list[Changed], dict[str, Any]]:
    """The changed definitions of one file and its line facts (``module_level``, ``unmapped``)."""
    old_owner, new_owner = owners(old), owners(new)
    facts: dict[str, Any] = {"module_level": {"old": [], "new": []}, "unmapped": {"old": [], "new": []},
                             "aligned_unchanged": []}
    touched_old: set[str] = set()
    touched_new: set[str] = set()
    for side, numbers, owner, touched in (("old", change.old_lines, old_owner, touched_old),
                                          ("new", change.new_lines, new_owner, touched_new)):
        defs = old if side == "old" else new
        loose = []
        for number in numbers:
            key = owner.get(number)
            if key is None:
                loose.append(number)
            else:
                touched.add(key)
        where = "unmapped" if defs.source == "none" else "module_level"
        facts[where][side] = spans(loose)
    old_by = {d.key: d for d in old.definitions}
    new_by = {d.key: d for d in new.definitions}
    renamed_file = change.status == "renamed"
    found: list[Changed] = []
    source = _weaker(old.source, new.source)

    def text(side: SideDefs, item: DefRange, owned: dict[int, str]) -> bytes | None:
        return own_text(side, item, owned)

    for key, was in old_by.items():
        now = new_by.get(key)
        if now is None:
            found.append(Changed("deleted", was.kind, change.old_path, change.new_path, was, None, old.source,
                                 (old.source, None),
                                 old_text=own_text(old, was, old_owner, anonymous=True)))
            continue
        before, after = text(old, was, old_owner), text(new, now, new_owner)
        hit = key in touched_old or key in touched_new
        differs = hit and (before is None or after is None or before != after)
        if hit and not differs:
            facts["aligned_unchanged"].append(key)
        if renamed_file:
            found.append(Changed("renamed", was.kind, change.old_path, change.new_path, was, now, source,
                                 (old.source, new.source), body_changed=differs))
        elif differs:
            found.append(Changed("modified", was.kind, change.old_path, change.new_path, was, now, source,
                                 (old.source, new.source)))
    for key, now in new_by.items():
        if key not in old_by:
            found.append(Changed("added", now.kind, change.old_path, change.new_path, None, now, new.source,
                                 (None, new.source),
                                 new_text=own_text(new, now, new_owner, anonymous=True)))
    return found, facts


def match_renames(found: list[Changed]) -> list[Changed]:
    """``found`` with each one-to-one (deleted, added) pair of one kind and one own text (the
    name aside) made a ``renamed`` definition; the rest as they were, in their order."""
    def signature(item: Changed, text: bytes | None) -> tuple[str, bytes] | None:
        if text is None:
            return None
        return (item.kind, text)

    deleted: dict[tuple[str, bytes], list[int]] = {}
    added: dict[tuple[str, bytes], list[int]] = {}
    for at, item in enumerate(found):
        if item.change == "deleted":
            key = signature(item, item.old_text)
            if key is not None:
                deleted.setdefault(key, []).append(at)
        elif item.change == "added":
            key = signature(item, item.new_text)
            if key is not None:
                added.setdefault(key, []).append(at)
    merged: dict[int, Changed] = {}
    dropped: set[int] = set()
    for key, olds in deleted.items():
        news = added.get(key, [])
        if len(olds) != 1 or len(news) != 1:
            continue
        was, now = found[olds[0]], found[news[0]]
        assert was.old is not None and now.new is not None
        if was.old.name != now.new.name and key[1].count(b"\n") < 1:
            continue  # a one-line definition renamed is too little text to tell it from another
        merged[olds[0]] = Changed("renamed", was.kind, was.old_path, now.new_path, was.old, now.new,
                                  _weaker(was.source, now.source), (was.sources[0], now.sources[1]),
                                  body_changed=False)
        dropped.add(news[0])
    return [merged.get(at, item) for at, item in enumerate(found) if at not in dropped]
