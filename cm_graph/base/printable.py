"""Repository text made safe to print: the one definition of a character no output may carry raw.

A tracked file may be named ``a\\x1b]52;c;…\\x07.py`` (an OSC 52 clipboard write), a definition or
a docstring may hold ``\\x1b[2J`` or U+009B (the one-byte CSI), and a path may hold U+202E (the
right-to-left override Trojan Source hides code with). Printed raw, each one is an instruction to
the terminal, or reorders what a reader sees; so every path, name, label, docstring and commit
message any command or surface prints goes through this module, in one of three spellings of
the same character class (``UNPRINTABLE``):

- ``printable`` for text a person or a host reads (tables, plain lines, stderr refusals, and
  the prose fields of an answer, ``printable_prose``): each such character spelled visibly as Python writes it
  (``\\x1b``, ``\\u202e``, ``\\n``), so the name is still recognisable, never dropped;
- ``printable_json`` for JSON text printed or sent (``--json``, MCP text content, REST bodies,
  ``export``): each such character as a JSON ``\\uXXXX`` escape, so the decoded value is the
  exact name (a citation stays exact) while the bytes carry no control character;
- ``UNPRINTABLE`` itself for a format with its own escape (``export --format sql``:
  ``char(27)``).

A backslash is not escaped: ``printable`` is for reading, not for parsing back, and leaving it
keeps every ordinary name byte-identical (``printable(printable(x)) == printable(x)``).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

# C0 controls (tab and newline included: inside a name they forge table rows), DEL, C1
# controls, the bidirectional formatting characters (LRM, RLM, ALM; the embeddings, overrides
# and isolates U+202A..U+202E, U+2066..U+2069), the line and paragraph separators, and lone
# surrogates (a file name that is not UTF-8, decoded with surrogateescape).
_PAST_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
UNPRINTABLE = re.compile(f"[\x00-\x1f{_PAST_C0}]")
_JSON_UNPRINTABLE = re.compile(f"[{_PAST_C0}]")  # json.dumps escapes C0 inside strings itself
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _spelled(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: str) -> str:
    """``text`` with every ``UNPRINTABLE`` character spelled visibly (``\\x1b``, ``\\u202e``);
    ordinary text is returned as it is."""
    return UNPRINTABLE.sub(_spelled, text)


def printable_json(text: str) -> str:
    """JSON text (from ``json.dumps``) with every ``UNPRINTABLE`` character written as its
    ``\\uXXXX`` escape.

    ``json.dumps`` escapes every C0 control inside a string itself, so a raw tab, newline or CR
    in its text is the document's own whitespace and stays; DEL, C1, the bidi controls, the
    separators and lone surrogates it writes raw, and JSON's syntax being ASCII, those stand only
    inside strings, where the escape decodes to the same character: the same value, printable."""
    return _JSON_UNPRINTABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


# The fields of an answer that are sentences for a person (an MCP host prints them as they
# are), as against the structured fields (``path``, ``label``, ``target``, ``cite``), which keep
# the exact name so a citation, a comparison or a second question stays exact.
PROSE_FIELDS = frozenset({"answer", "detail", "next_action", "why", "command"})


def printable_prose(value: Any) -> Any:
    """``value`` (a JSON-ready answer) with the string of every ``PROSE_FIELDS`` key, at any
    depth, made ``printable`` in place; returned for chaining. Only containers are descended
    into (an answer's rows are mostly scalars, and the budget's fit walks a hub's answer several
    times)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                if key in PROSE_FIELDS:
                    value[key] = printable(item)
            elif isinstance(item, (dict, list)):
                printable_prose(item)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                printable_prose(item)
    return value
