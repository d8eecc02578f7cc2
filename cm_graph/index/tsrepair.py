"""Two repairs of TypeScript text that the pinned tree-sitter grammar (0.23.2) misreads, tried
only when a file's first parse has errors (``repaired``).

Variance annotations on type parameters (TypeScript 4.7: ``class Versioned<out A>``,
``interface Pending<in A, in E>``) are not in the grammar: the declaration they open is an error,
and so, often, is the rest of the file. The repair
writes spaces over each ``in``/``out`` that opens a type parameter (after ``<`` or ``,``, before
its name), which erases what the resolver never reads (variance) and keeps every byte where it
was.

An interface's (or a type literal's) call signatures may each stand on a line of their own with
no ``;`` between them (``<T>(fn: T): T`` then ``<T>(name: string, fn: T): T``, or ``(name:
string): X``): TypeScript's own parser ends a member at the line break, the grammar reads the next
line's ``<``/``(`` as continuing the type before it, and its error recovery then loses the
declarations that follow, up to a hundred lines of real code (mobx's ``api/action.ts``:
``isAction`` and ``runInAction`` were no exports; effect's overloads, written so throughout).
The repair puts the missing ``;`` at the end of the member's last line, inside bodies of type
members only (an interface's; a type literal that a declaration's annotation or a type alias
opens, effect's ``export const map: {``), where a member never continues onto a line that starts
with ``<`` or ``(`` (the ``;`` is appended at a line's end).

Nothing moves: line numbers are unchanged, and so is every column of text that was there. On
effect 3.10.0, 185 of its 360 source files parse with errors (2.18 MB of erroneous top-level
statements); repaired, 18 (97 KB).
``jsscope`` keeps the repaired tree only when it has fewer erroneous bytes than the first, so a
file the repairs do not help reads as before.
"""

from __future__ import annotations

import re

# ``<out A``, ``, in out B``: the variance words of a type parameter (a name follows them).
_VARIANCE = re.compile(rb"(?<=[<,])([ \t\r\n]*)((?:(?:in|out)[ \t\r\n]+)+)(?=[A-Za-z_$])")
# Where a body of type members opens: an interface, or a type literal a declaration's annotation
# or a type alias opens at the line's end (``export const map: {``, ``type F = {``).
_TYPE_BODY = re.compile(rb"^(export\s+)?(default\s+)?(declare\s+)?(interface\b|"
                        rb"(const|let|var)\s+[\w$]+\s*:\s*\{\s*$|type\s+[\w$]+[^=]*=\s*\{\s*$)")
_SIGNATURE_START = (b"<", b"(")
# A line ending so continues onto the next: no member ends there.
_CONTINUES = (b"{", b",", b"(", b"[", b"|", b"&", b"<", b"=", b"=>", b":", b"?", b";")


def repaired(content: bytes) -> bytes:
    """``content`` with both repairs made (the same bytes when neither applies)."""
    return separated_signatures(without_variance(content))


def without_variance(content: bytes) -> bytes:
    """``content`` with spaces over the variance words of its type parameters (newlines kept)."""
    return _VARIANCE.sub(lambda m: m.group(1) + re.sub(rb"[^\r\n]", b" ", m.group(2)), content)


def separated_signatures(content: bytes) -> bytes:
    """``content`` with a ``;`` after each type member that a call signature line follows."""
    lines = content.split(b"\n")
    inside, depth, opened, last_code = False, 0, False, None
    changed = False
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not inside:
            if not _TYPE_BODY.match(stripped):
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
