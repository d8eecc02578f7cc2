"""Strict JSON in, canonical JSON out.

Files we are handed (manifests, authorization files) are decoded strictly: duplicate keys and
non-finite numbers are refusals, because a permissive decoder would let two readers see two
different documents. Everything we store or hash is canonical (sorted keys, compact, UTF-8) so that the
same content is always the same bytes; what we print or send is the wire form (``dumps_wire``).
"""

from __future__ import annotations

import json

from .errors import InvalidInput, Refusal
from .printable import printable_json

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any


class DuplicateKey(ValueError):
    """An object repeats a key (raised from inside a decoder, so it carries no message)."""


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A decoder's ``object_pairs_hook`` that refuses an object repeating a key."""
    result = dict(pairs)
    if len(result) != len(pairs):
        raise DuplicateKey
    return result


def repeats_a_key(data: bytes | str) -> bool:
    """Whether ``data`` is JSON in which some object repeats a key. A permissive reader (the MCP
    SDK's, the stdlib's) keeps the last of them while a validator in between may have read the
    first, so the two would act on different requests; anything that is not JSON is not judged
    here (the reader refuses it in its own words)."""
    try:
        json.loads(data, object_pairs_hook=no_duplicate_keys)
    except DuplicateKey:
        return True
    except (RecursionError, ValueError):
        return False
    return False


def sole_member(data: bytes | str, key: str) -> Any:
    """The value of ``key`` in the top-level JSON object ``data`` when it is given exactly once,
    else None (absent, repeated, or not an object): a reply to a malformed request names the
    request only when the request named itself unambiguously."""
    try:
        pairs = json.loads(data, object_pairs_hook=lambda pairs: pairs)
    except (RecursionError, ValueError):
        return None
    if not isinstance(pairs, list) or any(not isinstance(pair, tuple) for pair in pairs):
        return None
    values = [value for name, value in pairs if name == key]
    return values[0] if len(values) == 1 else None


def _no_constants(name: str) -> Any:
    raise ValueError(name)


def loads_strict(data: bytes, what: str, error: type[Refusal] = InvalidInput) -> Any:
    """Decode UTF-8 JSON, refusing duplicate keys, NaN/Infinity and over-deep nesting."""
    try:
        text = data.decode("utf-8")
        return json.loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=_no_constants)
    except DuplicateKey:
        raise error(f"{what} repeats a key.") from None
    except RecursionError:
        raise error(f"{what} is nested too deeply.") from None
    except (UnicodeDecodeError, ValueError):
        raise error(f"{what} is not valid JSON.") from None


def dumps_canonical(value: Any) -> bytes:
    """Sorted keys, no whitespace, non-ASCII kept, NaN refused: one value, one byte string."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def dumps_pretty(value: Any) -> str:
    """Sorted, indented JSON for a person's terminal (``--json``): non-ASCII kept, but no control
    or bidi character raw (``printable_json``), so printing it can never drive the terminal.
    (Stored documents are ``dumps_canonical``: their bytes stay exactly as every reader hashes them.)"""
    return printable_json(json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False))


def dumps_wire(value: Any) -> str:
    """Compact JSON in the value's own key order (an answer builds every dict in a fixed order,
    and an agent reads it top down), as ``--json`` prints an answer and MCP and REST send one: no
    control or bidi character raw (``printable_json``), the decoded values exact. A budget counts
    these characters, so it bounds what an agent actually receives."""
    return printable_json(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
