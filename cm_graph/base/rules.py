"""The small validators every contract in this package is built from.

They mirror the established wire contract (bounded text, identifiers, ``L<n>`` locations,
repository-scoped citation paths) so generations and packets written elsewhere read the same
here. Each returns the normalised value or raises a refusal whose message names no value.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from .errors import InvalidInput, Refusal, Unreadable

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


PRIVATE_ROOTS = frozenset({".git", ".graph", ".graphify", ".code-mower"})
MAX_LOCATION_LINE = 10_000_000
MAX_CITATION_LINE_DIGITS = 7
IDENTIFIER = r"[a-z][a-z0-9_-]{0,63}"  # a name that becomes a file or directory name
_IDENTIFIER = re.compile(IDENTIFIER)
_HEX32 = re.compile(r"[0-9a-f]{32}")
_OBJECT_NAME = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_LOCATION = re.compile(r"L([0-9]{1,31})")


# C0/C1 controls, the Unicode line separators, and lone surrogates (which no UTF-8 text can hold).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _has_control(value: str) -> bool:
    """C0/C1 controls (tab and newline included), line/paragraph separators, lone surrogates."""
    return _CONTROL.search(value) is not None


def is_bounded_text(value: Any, limit: int = 256) -> bool:
    """True for a non-blank single-line string of at most ``limit`` code points."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= limit
        and not value.isspace()
        and _CONTROL.search(value) is None
    )


def bounded_text(value: Any, what: str, limit: int = 256, error: type[Refusal] = InvalidInput) -> str:
    if not is_bounded_text(value, limit):
        raise error(f"{what} must be non-empty single-line text of at most {limit} characters.")
    return value


def identifier(value: Any, what: str, error: type[Refusal] = InvalidInput) -> str:
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(value):
        raise error(f"{what} must be a lowercase identifier ({IDENTIFIER}).")
    return value


def exact_int(value: Any, what: str, low: int, high: int, error: type[Refusal] = InvalidInput) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise error(f"{what} must be an integer from {low} to {high}.")
    return value


NOT_TEXT_CHECKOUT = ("The checkout's path is not UTF-8 text; move or rename it to a UTF-8 path (cm-graph names "
                     "the checkout in its state and its answers).")


def text_checkout(path: Any) -> Any:
    """``path`` (a checkout's top level) when its name is UTF-8 text, else refused: the
    workspace id, the connection and fleet files and every answer write it as text. (Bytes that
    are not UTF-8 in a file name reach Python as lone surrogates, which no UTF-8 text holds.)"""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(NOT_TEXT_CHECKOUT) from None
    return path


def is_generation_id(value: Any) -> bool:
    return isinstance(value, str) and bool(_HEX32.fullmatch(value))


def is_object_name(value: Any) -> bool:
    return isinstance(value, str) and bool(_OBJECT_NAME.fullmatch(value))


def is_sha256_hex(value: Any) -> bool:
    return isinstance(value, str) and bool(_HEX64.fullmatch(value))


def timestamp(value: Any, what: str, error: type[Refusal] = InvalidInput) -> datetime:
    """An ISO-8601 instant that carries a timezone (``Z`` accepted as ``+00:00``)."""
    text = bounded_text(value, what, 40, error)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise error(f"{what} must be an ISO-8601 timestamp.") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise error(f"{what} must carry a timezone.")
    return parsed


def parse_location(value: Any, what: str) -> int | None:
    """Read a provider ``source_location``: ``L<ascii digits>`` or empty/absent for no line."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 32 or not value.startswith("L"):
        raise Unreadable(f"{what} has a location that is not of the form L<line>.")
    digits = value[1:]
    if not digits or not digits.isascii() or not digits.isdigit():
        raise Unreadable(f"{what} has a location that is not of the form L<line>.")
    line = int(digits)
    if not 1 <= line <= MAX_LOCATION_LINE:
        raise Unreadable(f"{what} has a location line outside 1..{MAX_LOCATION_LINE}.")
    return line


def location_line(value: str) -> int | None:
    """The line of a non-empty ``source_location`` that ``parse_location`` accepts, else None.

    The importer's fast path: one match and no exception for the common case; anything it
    does not accept goes through ``parse_location`` for the refusal's exact message.
    """
    match = _LOCATION.fullmatch(value)
    if match is None:
        return None
    line = int(match.group(1))
    return line if 1 <= line <= MAX_LOCATION_LINE else None


@lru_cache(maxsize=1 << 16)
def path_refused(path: str) -> bool:
    """A path no repository record may carry: absolute, parent-traversing, or indexer-private.

    These are the seed's three scope failures that say the graph points outside the checkout
    or into state no indexer may read, so the graph holding one is refused. Segments are split
    on both ``/`` and ``\\`` (``..\\x`` traverses on the platform that reads it) and private
    roots compare case-folded, as the citation grammar does.

    Every other path a citation cannot name (``#``, a control character, a backslash, an empty
    or ``.`` segment, blank) is a legal git file name: a record carrying one is kept out of
    every traversal and never cited (``path_in_scope`` is False), but the graph stays usable.
    """
    if path.startswith(("/", "\\")):
        return True
    for segment in path.replace("\\", "/").split("/"):
        if segment == ".." or segment.casefold() in PRIVATE_ROOTS:
            return True
    return False


@lru_cache(maxsize=1 << 16)
def path_in_scope(path: str) -> bool:
    """A repository-relative POSIX path that a citation may name.

    Absolute, parent-traversing, backslashed, ``#``-bearing and indexer-private paths (any
    segment, case-folded) can never be checked against the bound commit, so they are out. A
    ``#`` never belongs to a citable path, so ``path#L<n>`` always splits one way.
    """
    if not path or len(path) > 1024 or "#" in path or "\\" in path or path.startswith("/"):
        return False
    if _has_control(path) or not path.strip():
        return False
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            return False
        if segment.casefold() in PRIVATE_ROOTS:
            return False
    return True


def citation_string(path: str, line: int | None) -> str:
    return path if line is None else f"{path}#L{line}"


def citation_in_scope(path: str, line: int | None) -> bool:
    """Whether ``path[#L<line>]`` parses under the packet's citation grammar."""
    if not path_in_scope(path):
        return False
    return line is None or 1 <= line and len(str(line)) <= MAX_CITATION_LINE_DIGITS
