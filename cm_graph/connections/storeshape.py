"""The connection store's file shapes, validated once where they are read.

The store is private, but it is still a file on disk that another tool, an older cm-graph, a
crash or a hand edit may have left in any JSON shape. Everything that reads a connection state
or a packet index goes through these validators first, so later code can index into the values
without a ``TypeError`` ever reaching the operator: a wrong shape is one refusal (``invalid``)
with the one remedy that works, reconnecting.
"""

from __future__ import annotations

import re
from typing import Any

from ..base.errors import InvalidInput
from ..base.rules import bounded_text, is_bounded_text
from ..evidence.authorization import string_list

LOCAL_CONNECTION_SCHEMA = "code_mower.contextLocalGraphConnection.v1"
INDEX_SCHEMA = "code_mower.contextPacketIndex.v1"
PROVIDER = "graphify"
MAX_ENTRIES = 16
STATE_KEYS = frozenset({
    "schema", "connection", "provider", "kind", "state", "repository_root", "repositories", "recipients",
})
_ENTRY_REQUIRED = frozenset({"key", "handle", "reference", "generation", "usage"})
_ENTRY_OPTIONAL = frozenset({"request", "failure_reason", "deliveries"})
_REQUEST_KEYS = frozenset({"repository", "work_item", "query", "source", "policy"})
_HEX64 = re.compile(r"[0-9a-f]{64}")
HANDLE = re.compile(r"[0-9a-f]{32}")
UNSUPPORTED_STATE = "The saved connection state is not one this reader supports; reconnect."
CORRUPT_INDEX = "The packet index is corrupt; disconnect and reconnect."


def check_connection_state(value: Any, name: str) -> dict[str, Any]:
    """A saved ``code_mower.contextLocalGraphConnection.v1`` for ``name``, every field typed."""
    if not isinstance(value, dict) or set(value) != STATE_KEYS or value["schema"] != LOCAL_CONNECTION_SCHEMA \
            or value["connection"] != name or value["provider"] != PROVIDER \
            or value["kind"] != "repository" or value["state"] not in ("verified", "disconnected"):
        raise InvalidInput(UNSUPPORTED_STATE)
    root = value["repository_root"]
    if not is_bounded_text(root, 4096) or not root.startswith("/"):
        raise InvalidInput(UNSUPPORTED_STATE)
    try:
        string_list(value["repositories"], "The saved repositories")
        string_list(value["recipients"], "The saved recipients")
    except InvalidInput:
        raise InvalidInput(UNSUPPORTED_STATE) from None
    return value


def check_index(value: Any) -> list[dict[str, Any]]:
    """A ``code_mower.contextPacketIndex.v1``'s entries, each an object of the expected shape."""
    if not isinstance(value, dict) or value.get("schema") != INDEX_SCHEMA \
            or not isinstance(value.get("entries"), list) or len(value["entries"]) > MAX_ENTRIES:
        raise InvalidInput(CORRUPT_INDEX)
    entries = value["entries"]
    for entry in entries:
        _check_entry(entry)
    if len({entry["handle"] for entry in entries}) != len(entries):
        raise InvalidInput(CORRUPT_INDEX)
    return entries


def _check_entry(entry: Any) -> None:
    if not isinstance(entry, dict) or not _ENTRY_REQUIRED <= set(entry) <= _ENTRY_REQUIRED | _ENTRY_OPTIONAL:
        raise InvalidInput(CORRUPT_INDEX)
    reference = entry["reference"]
    well_formed = (
        isinstance(entry["key"], str) and _HEX64.fullmatch(entry["key"]) is not None
        and isinstance(entry["handle"], str) and HANDLE.fullmatch(entry["handle"]) is not None
        and is_bounded_text(entry["generation"])
        and entry["usage"] is None
        and (reference is None or (
            isinstance(reference, dict) and set(reference) == {"path", "sha256"}
            and isinstance(reference["path"], str)
            and isinstance(reference["sha256"], str) and _HEX64.fullmatch(reference["sha256"]) is not None
        ))
        and ("failure_reason" not in entry or is_bounded_text(entry["failure_reason"]))
        and ("deliveries" not in entry or isinstance(entry["deliveries"], list))
    )
    if not well_formed:
        raise InvalidInput(CORRUPT_INDEX)
    if "request" in entry:
        _check_request(entry["request"])


def _check_request(request: Any) -> None:
    if not isinstance(request, dict) or set(request) != _REQUEST_KEYS or not isinstance(request["policy"], dict):
        raise InvalidInput(CORRUPT_INDEX)
    try:
        for key in ("repository", "work_item", "source"):
            bounded_text(request[key], "A saved request field")
        bounded_text(request["query"], "A saved query", 2000)
    except InvalidInput:
        raise InvalidInput(CORRUPT_INDEX) from None
