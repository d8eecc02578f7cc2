"""One marked block in a text file: placed, replaced on a second run, taken out exactly.

``AGENTS.md`` and ``CLAUDE.md`` are the repository's own files, and so is a project's
``.codex/config.toml``: cm-graph may own one block in each and nothing else. The block is between
a begin and an end marker line (an HTML comment in Markdown, a ``#`` comment in TOML), so a
second ``agents init`` replaces it in place instead of adding another, and ``agents remove``
finds it again. The begin marker also records what was added before the block (``sep``): nothing
in a new file (``new``, so remove deletes the file it made), no newline after an empty file, one
blank line after text that ended with a newline, or a newline and a blank line after text that
did not; taking the block out removes exactly that, so init then remove leaves the bytes as they
were. A damaged block (a begin without its end, two begins) is refused, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..base.errors import InvalidInput

_SEPARATORS = {"0": "", "1": "\n", "2": "\n\n"}


@dataclass(frozen=True)
class Syntax:
    """How a block is marked in one kind of file: the comment that opens and closes a line."""

    opener: str
    closer: str

    def begin(self, sep: str) -> str:
        return (f"{self.opener}cm-graph agents: begin; `cm-graph agents remove` takes this block out "
                f"(sep={sep}){self.closer}\n")

    @property
    def end(self) -> str:
        return f"{self.opener}cm-graph agents: end{self.closer}\n"

    def pattern(self) -> re.Pattern[str]:
        opener, closer = re.escape(self.opener), re.escape(self.closer)
        return re.compile(rf"^{opener}cm-graph agents: begin[^\n]*\(sep=(new|0|1|2)\){closer}\n"
                          rf"(?:.*?\n)??{opener}cm-graph agents: end{closer}(?:\n|\Z)", re.M | re.S)


MARKDOWN = Syntax("<!-- ", " -->")
TOML = Syntax("# ", "")


@dataclass(frozen=True)
class Found:
    start: int
    end: int
    sep: str


def find_block(text: str, syntax: Syntax, where: str) -> Found | None:
    """The block's span and its ``sep``, None when there is none; refused when damaged."""
    begins = text.count(f"{syntax.opener}cm-graph agents: begin")
    ends = text.count(f"{syntax.opener}cm-graph agents: end")
    matches = list(syntax.pattern().finditer(text))
    if begins == ends == 0:
        return None
    if not (begins == ends == len(matches) == 1):
        raise InvalidInput(f"{where} has a damaged cm-graph agents block (its begin and end markers do not pair); "
                           "fix or delete the markers, then run the command again.")
    match = matches[0]
    return Found(match.start(), match.end(), match.group(1))


def place_block(text: str | None, body: str, syntax: Syntax, where: str) -> str:
    """``text`` with the block holding ``body`` (replaced where it is, else appended)."""
    found = find_block(text, syntax, where) if text is not None else None
    if text is not None and found is not None:
        return text[:found.start] + syntax.begin(found.sep) + body + syntax.end + text[found.end:]
    if text is None:
        return syntax.begin("new") + body + syntax.end
    sep = "0" if text == "" else "1" if text.endswith("\n") else "2"
    return text + _SEPARATORS[sep] + syntax.begin(sep) + body + syntax.end


def take_out_block(text: str, syntax: Syntax, where: str) -> str | None:
    """``text`` without the block and what was added before it; None when the block was the
    whole of a file it made (delete the file). No block: ``text`` as it is."""
    found = find_block(text, syntax, where)
    if found is None:
        return text
    before, after = text[:found.start], text[found.end:]
    if found.sep == "new":
        return None if before == after == "" else before + after
    separator = _SEPARATORS[found.sep]
    if separator and before.endswith(separator):
        before = before[:-len(separator)]
    return before + after
