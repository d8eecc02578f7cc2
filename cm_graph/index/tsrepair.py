"""One repair of TypeScript text that the pinned tree-sitter grammar misreads, tried only when a
file's first parse has errors.

An interface's call signatures may each stand on a line of their own with no ``;`` between them
(``<T>(fn: T): T`` then ``<T>(name: string, fn: T): T``, or ``(name: string): X``): TypeScript's
own parser ends a member at the line break, tree-sitter's grammar (0.23.2) reads the next line's
``<``/``(`` as continuing the type before it, and its error recovery then loses the declarations
that follow, up to a hundred lines of real code (mobx's ``api/action.ts``: ``isAction`` and
``runInAction`` were no exports). The repair puts the missing ``;`` at the end of the member's
last line, inside interface bodies only, where a member never continues onto a line that starts
with ``<`` or ``(``. Nothing moves: line numbers are unchanged, and so is every column of text
that was there (the ``;`` is appended at a line's end). ``jsscope`` keeps the repaired tree only
when it has fewer erroneous bytes than the first, so a file the repair does not help reads as
before.
"""

from __future__ import annotations

import re

_INTERFACE = re.compile(rb"^(export\s+)?(default\s+)?(declare\s+)?interface\b")
_SIGNATURE_START = (b"<", b"(")
# A line ending so continues onto the next: no member ends there.
_CONTINUES = (b"{", b",", b"(", b"[", b"|", b"&", b"<", b"=", b"=>", b":", b"?", b";")


def separated_signatures(content: bytes) -> bytes:
    """``content`` with a ``;`` after each interface member that a call signature line follows."""
    lines = content.split(b"\n")
    inside, depth, opened, last_code = False, 0, False, None
    changed = False
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not inside:
            if not _INTERFACE.match(stripped):
                continue
            inside, depth, opened, last_code = True, 0, False, None
        elif stripped.startswith(_SIGNATURE_START) and last_code is not None:
            before = lines[last_code].rstrip()
            if not before.endswith(_CONTINUES) and b"//" not in before and b"/*" not in before:
                lines[last_code] = before + b";" + lines[last_code][len(before):]
                changed = True
        code = stripped.split(b"//", 1)[0]
        depth += code.count(b"{") - code.count(b"}")
        opened = opened or b"{" in code
        if opened and depth <= 0:
            inside = False
        elif code and not code.startswith((b"*", b"/*")):
            last_code = number
    return b"\n".join(lines) if changed else content
