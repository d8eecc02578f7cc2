"""Paging a cut section: the cursor that names the rest of it, pinned to the answer it pages.

A section cut by ``--max-items`` or the character budget says how many more it holds, and its
cursor (in the answer's ``pages``; the first cut section's also as a next action) asks for the
page: the same question with ``--cursor``. The cursor names the section and the
offset of the first item not shown, the bounds the first answer was asked with (so the page
knows which answer it continues), the generation it was read from and a prefix of that answer's
``answer_id``. A page is served only while asking the first question again gives that same
answer: after a refresh (another generation) the cursor is ``cursor_stale``; for another intent,
target or budget it is ``cursor_mismatch``. Both are refusals with one sentence, never a page of
some other answer.

The cursor is plain text (``section.offset.max_chars.max_items.generation.answer``) an agent can
copy from the command line or pass as the tool's ``cursor`` argument; nothing in it is a secret.
"""

from __future__ import annotations

import re

from ..base.errors import InvalidInput
from ..base.records import record

GENERATION_CHARS, ANSWER_CHARS = 12, 16  # the prefixes a cursor pins: enough to tell answers apart
_CURSOR = re.compile(r"([a-z_]{1,40})\.([0-9]{1,6})\.([0-9]{4,7})\.([0-9]{1,3})\.([0-9a-f]{12})\.([0-9a-f]{16})",
                     re.ASCII)


@record
class Cursor:
    section: str
    offset: int  # the first item of the section the page shows
    max_chars: int  # the bounds of the answer it pages
    max_items: int
    generation: str  # prefixes of the paged answer's generation and answer_id
    answer: str

    def text(self) -> str:
        return (f"{self.section}.{self.offset}.{self.max_chars}.{self.max_items}.{self.generation}."
                f"{self.answer}")


def cursor_for(section: str, offset: int, max_chars: int, max_items: int, generation: str, answer_id: str) -> str:
    """The cursor of the items of ``section`` from ``offset`` on, in the answer ``answer_id``."""
    return Cursor(section, offset, max_chars, max_items, generation[:GENERATION_CHARS],
                  answer_id.removeprefix("sha256:")[:ANSWER_CHARS]).text()


def parse_cursor(value: object) -> Cursor | None:
    """The cursor ``value`` spells (None for no cursor); a malformed one is ``invalid``."""
    if value is None:
        return None
    found = _CURSOR.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        raise InvalidInput("The cursor is not one this tool gave: pass it exactly as a next action names it.")
    section, offset, chars, items, generation, answer = found.groups()
    return Cursor(section, int(offset), int(chars), int(items), generation, answer)


def check_generation(cursor: Cursor, generation: str) -> None:
    """Refuse a page of an answer of another generation (``cursor_stale``): the graph was rebuilt
    meanwhile, so the answer it continues is gone (checked before anything is read)."""
    if generation[:GENERATION_CHARS] != cursor.generation:
        raise InvalidInput(
            f"The cursor pages an answer of generation {cursor.generation}, which is no longer the current one "
            "(the graph was refreshed); ask the question again without --cursor.", reason="cursor_stale")


def check_answer(cursor: Cursor, answer_id: str | None) -> None:
    """Refuse a page when the question asked now gives another answer than the one the cursor
    pins (``cursor_mismatch``: another intent, target or budget than the cursor's; None: no
    answer with that section to page)."""
    if answer_id is None or answer_id.removeprefix("sha256:")[:ANSWER_CHARS] != cursor.answer:
        raise InvalidInput(
            "The cursor pages another answer than this intent and target give now; pass it with the intent and "
            "target of the answer that named it.", reason="cursor_mismatch")
