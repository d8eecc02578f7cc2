"""Stream a JSON object's top-level members, and the elements of its big arrays, from a file.

The provider's ``graph.json`` is one object whose ``nodes`` and ``edges`` (or ``links``) arrays
hold almost all of its bytes. This reader walks the object and those arrays itself and hands
the elements to the standard library's C JSON scanner on a window of at most a chunk and a half
plus one element, so memory stays flat however large the document is, and each record is built
at C speed. (An event-per-token streaming parser spends most of its time in the Python loop over
events; see docs/benchmarks.md.)

Array elements come in batches: up to 64 KiB of the window, cut after its last ``}`` followed
by a comma, is decoded in one scanner call as ``[`` + text + ``]``. That is sound because JSON is
parsed left to right: if the bracketed prefix parses completely, the cut was a separator of this
array and its elements are exactly the ones an element-at-a-time parse finds; if the scanner
stops early at a ``]``, that bracket closed this array. Anything else (a cut inside a string, a
value the scanner refuses, a record too big for the batch) falls back to one element at a time,
which gives every error its usual message.

Each batch also says whether its raw text is *clean*: no escape or raw character in it can decode
to a control character, a line separator or a lone surrogate. JSON forbids raw C0 controls inside
strings, so only escapes (``\\n``, ``\\u0000``...) and raw C1 controls or U+2028/U+2029 can produce
one; finding neither in the text proves no decoded string holds one, and the record validators
can skip their per-string scans (``rules.is_bounded_text``).

No object may repeat a key (a permissive decoder keeps the last spelling, so two readers of one
document would see two graphs). A value decoded on its own goes through a decoder that refuses a
repeated key; a batch is decoded by the plain scanner and then its keys are counted: every ``:``
of its raw text is either a pair's separator or a colon inside a string (an escaped colon,
``\\u003a``, ends a batch like the suspect escapes above, so none is hidden), so for a batch of
flat objects the raw colons equal the decoded pairs plus the colons of the decoded strings exactly
when no object lost a repeated key. One ``str.count`` settles a batch whose strings hold no colon;
only a batch the count cannot settle (nested objects, a count that disagrees) is decoded again by
the refusing decoder.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from itertools import chain, repeat
from typing import Any, Protocol

from ..base.jsonio import DuplicateKey, no_duplicate_keys

CHUNK_CHARS = 1 << 20


class ByteStream(Protocol):
    """What the reader needs of its input: ``read``, up to ``size`` bytes (b"" at the end). A file,
    a tar member, or the artifact's bounded view of one (``artifact.BoundedMember``)."""

    def read(self, size: int, /) -> bytes: ...

_WHITESPACE = " \t\n\r"
# A decode error this close to the end of the window may just be a value cut by the window.
_BOUNDARY_SLACK = 16
_SEPARATOR = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")
# Escapes that decode to C0/C1 controls, U+2028/U+2029 or a surrogate (a pair is flagged too,
# and an escaped backslash before one of these letters: both only cost a slower, exact check), and
# the escaped colon, which the batch's key count could not see in the raw text.
_SUSPECT_ESCAPE = re.compile(
    r"\\(?:[bfnrt]|u(?:00[0189][0-9a-fA-F]|003[aA]|007[fF]|202[89]|[dD][89a-fA-F][0-9a-fA-F]{2}))"
)
# The same characters written raw: DEL and C1 (U+007F-U+009F) and U+2028/U+2029, found in the
# UTF-8 bytes by a fast literal search before their places in the text are looked up at all.
_SUSPECT_C1_BYTES = re.compile(rb"\xc2[\x80-\x9f]")
_SUSPECT_RAW = re.compile("[\x7f-\x9f\u2028\u2029]")
# A batch is decoded only from a window with at least this much text left in it.
_BATCH_WINDOW = CHUNK_CHARS // 2
# At most this much text per batch: a few hundred records, small enough that the decoded objects
# are still in the CPU cache when they are validated and staged (1 MiB batches are ~15% slower).
_BATCH_CHARS = 1 << 16


class JsonStreamError(ValueError):
    """The bytes are not one well-formed JSON document (the message says how)."""


class _NonFinite(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


REPEATED_KEY = "graph.json repeats a key inside an object."
# Values decoded one at a time refuse a repeated key as they are built; batches use the plain
# scanner and count their keys (see the module's docstring).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=no_duplicate_keys)
# typeshed does not declare it, but JSONDecoder.__init__ sets ``scan_once`` (json/decoder.py).
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(  # type: ignore[attr-defined]
    parse_constant=_refuse_constant
).scan_once
_STRICT_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def _raw_suspects(data: bytes, text: str) -> list[int]:
    """Places in ``text`` of raw characters a bounded-text check refuses.

    ``data`` is the UTF-8 the text was decoded from, with the previous read's last two bytes in
    front so a character split between reads is still seen. Memory searches on the bytes rule
    the characters out almost always; only then is the text itself searched.
    """
    if data.isascii():
        return [] if data.find(b"\x7f") < 0 else [match.start() for match in _SUSPECT_RAW.finditer(text)]
    if (
        data.find(b"\x7f") < 0
        and data.find(b"\xe2\x80\xa8") < 0
        and data.find(b"\xe2\x80\xa9") < 0
        and _SUSPECT_C1_BYTES.search(data) is None
    ):
        return []
    return [match.start() for match in _SUSPECT_RAW.finditer(text)]


def _all_flat_objects(elements: list[Any], brackets: int) -> bool:
    """Whether every element is an object of scalars, given how many ``{`` and ``[`` their text
    holds: one per element leaves no room for a nested container; with more (brackets inside
    strings, say) the values are looked at, in C."""
    if set(map(type, elements)) != {dict}:
        return False
    if brackets == len(elements):
        return True
    kinds = set(map(type, chain.from_iterable(map(dict.values, elements))))
    return dict not in kinds and list not in kinds


def _keys_counted(text: str, start: int, end: int, elements: list[Any], flat: bool) -> bool:
    """Whether the raw ``text[start:end]`` the flat objects ``elements`` were decoded from spells
    no pair they lost; False when that cannot be settled here.

    Its colons are the pairs' separators plus the colons inside strings (none escaped: an escaped
    colon ends a batch), so they are at least the decoded pairs plus the colons of any of the
    decoded strings, and equal to that sum only when no object repeated a key and those strings
    hold every colon. So the count is tried against no string first (the usual batch), then the
    labels (where a provider's colons are: docstrings, ``a::b``), then every key and value."""
    if not flat:
        return False
    pairs = sum(map(len, elements))
    colons = text.count(":", start, end)
    if colons == pairs:
        return True
    try:
        labels = "".join(map(dict.get, elements, repeat("label"), repeat("")))
    except TypeError:  # a label that is not text: the record is refused later, counted below
        labels = ""
    if colons == pairs + labels.count(":"):
        return True
    keys = "".join(chain.from_iterable(elements))
    values = "".join(filter(str.__instancecheck__, chain.from_iterable(map(dict.values, elements))))
    return colons == pairs + keys.count(":") + values.count(":")


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

    def __init__(self, stream: ByteStream) -> None:
        self._stream = stream
        self._text = codecs.getincrementaldecoder("utf-8")()
        self._buffer = ""
        self._pos = 0
        self._eof = False
        # Buffer indices of raw suspect characters (see _raw_suspects), ascending.
        self._suspects: list[int] = []
        # No batch is tried before this buffer index (a batch ending there already failed).
        self._single_until = 0
        self._last_bytes = b""

    # -- the window ------------------------------------------------------------------------

    def _fill(self, chars: int | None = None) -> None:
        data = self._stream.read(chars or CHUNK_CHARS)
        if not data:
            self._eof = True
        try:
            text = self._text.decode(data, final=not data)
        except UnicodeDecodeError:
            raise JsonStreamError("graph.json is not UTF-8 text.") from None
        kept = len(self._buffer) - self._pos
        suspects = [place - self._pos for place in self._suspects if place >= self._pos]
        suspects.extend(kept + place for place in _raw_suspects(self._last_bytes + data, text))
        self._last_bytes = data[-2:]
        self._suspects = suspects
        self._single_until = max(0, self._single_until - self._pos)
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
            except DuplicateKey:
                raise JsonStreamError(REPEATED_KEY) from None
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

    def _batches(self) -> Iterator[tuple[list[Any], bool, bool]]:
        """``(elements, clean, flat)`` runs of one array's elements, in order.

        ``clean``: no string in the elements holds a character a bounded-text check refuses.
        ``flat``: every element is an object of scalars (none holds an array or an object).
        Both are False for an element decoded on its own.
        """
        self._expect("[", "an array")
        if self._peek() == "]":
            self._pos += 1
            return
        while True:
            batch = self._batch()
            if batch is not None:
                yield batch
                if self._buffer[self._pos] == "]":
                    self._pos += 1
                    return
                self._pos += 1  # the separator the batch was cut at
                continue
            yield [self._value()], False, False
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

    def _batch(self) -> tuple[list[Any], bool, bool] | None:
        """Decode the elements from the cursor to the batch's last ``},`` in one scanner call.

        Leaves the cursor on the separator after them (or on the array's ``]`` when the array
        ends first); None (cursor unmoved) means decode the next element on its own.
        """
        char = self._peek()
        if not char or char == "]":
            return None
        if not self._eof and len(self._buffer) - self._pos < _BATCH_WINDOW:
            self._fill()
        buffer, start = self._buffer, self._pos
        if start < self._single_until:
            return None
        end = buffer.rfind("},", start, start + _BATCH_CHARS)
        if end < 0:  # no record ends here (an array of strings, say): look again a batch further on
            self._single_until = start + _BATCH_CHARS
            return None
        suspect = self._first_suspect(start, end + 1)
        if suspect is not None:
            end = buffer.rfind("},", start, suspect)
            if end < 0:
                return None
        cut = end + 1
        text = "[" + buffer[start:cut] + "]"
        try:
            elements, stop = _SCAN(text, 0)
        except (StopIteration, ValueError, RecursionError, _NonFinite):
            elements, stop = None, 0
        if not isinstance(elements, list) or not elements:
            self._single_until = cut
            return None
        if stop < len(text):  # the array's own "]" closed the batch early
            cut = start + stop - 2
        self._pos = cut
        brackets = buffer.count("{", start, cut) + buffer.count("[", start, cut)
        flat = _all_flat_objects(elements, brackets)
        if not _keys_counted(buffer, start, cut, elements, flat):
            try:
                _STRICT_SCAN("[" + buffer[start:cut] + "]", 0)
            except DuplicateKey:
                raise JsonStreamError(REPEATED_KEY) from None
        return elements, True, flat

    def _first_suspect(self, start: int, end: int) -> int | None:
        """The first place in ``[start, end)`` that may decode to a refused character (or to a
        colon the key count cannot see)."""
        found = _SUSPECT_ESCAPE.search(self._buffer, start, end)
        first = found.start() if found is not None else end
        for place in self._suspects:
            if place >= start:
                first = min(first, place)
                break
        return first if first < end else None


class ArrayStream:
    """The elements of one top-level array, decoded in batches (see ``TopLevelReader._batches``)."""

    def __init__(self, reader: TopLevelReader) -> None:
        self._batches = reader._batches()

    def batches(self) -> Iterator[tuple[list[Any], bool, bool]]:
        return self._batches

    def __iter__(self) -> Iterator[Any]:
        for elements, _clean, _flat in self._batches:
            yield from elements

    def drain(self) -> None:
        for _ in self._batches:
            pass
