"""Stream a JSON object's top-level members, and the elements of its big arrays, from a file.

The provider's ``graph.json`` is one object whose ``nodes`` and ``edges`` (or ``links``) arrays
hold almost all of its bytes. This reader walks the object and those arrays itself and hands
each element to the standard library's C JSON scanner (``raw_decode``) on a window of at most a
chunk plus one element, so memory stays flat however large the document is, and each record is
built at C speed. (An event-per-token streaming parser spends most of its time in the Python
loop over events; see docs/benchmarks.md.)
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

CHUNK_CHARS = 1 << 20
_WHITESPACE = " \t\n\r"
# A decode error this close to the end of the window may just be a value cut by the window.
_BOUNDARY_SLACK = 16
_SEPARATOR = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")


class JsonStreamError(ValueError):
    """The bytes are not one well-formed JSON document (the message says how)."""


class _NonFinite(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def container_depth(value: Any) -> int:
    """Nesting depth of decoded JSON: 0 for a scalar, 1 for a flat list or object."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            pending.extend((child, level + 1) for child in item.values() if isinstance(child, (dict, list)))
        elif isinstance(item, list):
            deepest = max(deepest, level)
            pending.extend((child, level + 1) for child in item if isinstance(child, (dict, list)))
    return deepest


class TopLevelReader:
    """Iterate ``(key, value)`` over a top-level JSON object read from a binary stream.

    ``value`` is the decoded value, except that every array comes as an ``ArrayStream`` to
    iterate (or leave; the reader drains it), so no top-level array is ever held whole.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._text = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._pos = 0
        self._eof = False

    # -- the window ------------------------------------------------------------------------

    def _fill(self, chars: int | None = None) -> None:
        data = self._stream.read(chars or CHUNK_CHARS)
        if not data:
            self._eof = True
        try:
            text = self._text.decode(data, final=not data)
        except UnicodeDecodeError:
            raise JsonStreamError("graph.json is not UTF-8 text.") from None
        self._buffer = self._buffer[self._pos :] + text
        self._pos = 0

    def _peek(self) -> str:
        """The next non-whitespace character ('' at the end of the document)."""
        while True:
            buffer, pos = self._buffer, self._pos
            while pos < len(buffer) and buffer[pos] in _WHITESPACE:
                pos += 1
            self._pos = pos
            if pos < len(buffer):
                return buffer[pos]
            if self._eof:
                return ""
            self._fill()

    def _expect(self, char: str, what: str) -> None:
        if self._peek() != char:
            raise JsonStreamError(
                "graph.json ends before its document does." if not self._peek() else f"graph.json expected {what}."
            )
        self._pos += 1

    def _value(self) -> Any:
        """Decode one value at the cursor, widening the window while it may be cut short."""
        if not self._peek():
            raise JsonStreamError("graph.json ends before its document does.")
        grow = CHUNK_CHARS
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buffer, self._pos)
            except _NonFinite:
                raise JsonStreamError("graph.json holds NaN or Infinity, which JSON does not allow.") from None
            except RecursionError:
                raise JsonStreamError("graph.json is nested too deeply.") from None
            except json.JSONDecodeError as error:
                cut = error.pos >= len(self._buffer) - _BOUNDARY_SLACK or error.msg.startswith("Unterminated")
                if self._eof or not cut:
                    raise JsonStreamError(
                        "graph.json ends before its document does." if cut else "graph.json is not valid JSON."
                    ) from None
                self._fill(grow)
                grow *= 2
                continue
            except ValueError:  # e.g. an integer past the interpreter's digit limit
                raise JsonStreamError("graph.json holds a number this reader will not convert.") from None
            if end >= len(self._buffer) - _BOUNDARY_SLACK and not self._eof:
                # A number ("1." + "5") or literal may continue past the window: read on, decode again.
                self._fill(grow)
                grow *= 2
                continue
            self._pos = end
            return value

    # -- structure ---------------------------------------------------------------------------

    def members(self) -> Iterator[tuple[str, Any]]:
        if self._peek() != "{":
            raise JsonStreamError("graph.json is not a JSON object.")
        self._pos += 1
        first = True
        while True:
            char = self._peek()
            if char == "}":
                self._pos += 1
                break
            if not first:
                self._expect(",", "a comma between members")
                char = self._peek()
            first = False
            if char != '"':
                raise JsonStreamError(
                    "graph.json ends before its document does." if not char else "graph.json is not valid JSON."
                )
            key = self._value()
            self._expect(":", "a colon after a key")
            if self._peek() == "[":
                array = ArrayStream(self)
                yield key, array
                array.drain()
            else:
                yield key, self._value()
        if self._peek():
            raise JsonStreamError("graph.json has data after its document.")

    def _elements(self) -> Iterator[Any]:
        self._expect("[", "an array")
        if self._peek() == "]":
            self._pos += 1
            return
        while True:
            yield self._value()
            # Fast path: the separator and the whitespace around it, in one match.
            match = _SEPARATOR.match(self._buffer, self._pos)
            if match is not None and match.end() < len(self._buffer):
                self._pos = match.end()
                if match.group(1) == "]":
                    return
                continue
            char = self._peek()
            if char == "]":
                self._pos += 1
                return
            self._expect(",", "a comma between elements")


class ArrayStream:
    """The elements of one top-level array, decoded one at a time."""

    def __init__(self, reader: TopLevelReader) -> None:
        self._elements = reader._elements()

    def __iter__(self) -> Iterator[Any]:
        return self._elements

    def drain(self) -> None:
        for _ in self._elements:
            pass
