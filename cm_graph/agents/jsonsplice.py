"""One server entry spliced into a host's ``mcpServers`` JSON, and taken out, as text.

``.mcp.json`` (Claude Code) and ``.cursor/mcp.json`` (Cursor) are the repository's files with the
user's other servers in them. Re-serialising the document would rewrite every key's layout; so the
document is parsed only to check it (strictly: a file that is not valid JSON, or whose
``mcpServers`` is not an object, is refused and left alone) and to find byte spans, and the entry
is inserted as text right after the opening brace of ``mcpServers`` (or, when there is none, a
``mcpServers`` member right after the document's opening brace). Every other byte stays. The
insertion has one fixed shape (a newline and a fixed indent before ``"cm-graph": ``), which is how
a second run and ``agents remove`` recognise the entry as this command's: an entry named
``cm-graph`` in any other shape is the user's, refused rather than replaced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..base.errors import Refusal, UnparsableConfig
from ..base.jsonio import loads_strict

REGISTERED_NAME = "cm-graph"  # the key of the entry in every host config
_KEY = json.dumps(REGISTERED_NAME) + ": "
_MEMBER = "\n    " + _KEY            # our entry as the first member of an existing mcpServers
_SERVERS = '\n  "mcpServers": {'  # our mcpServers as the first member of the document
_SERVERS_CLOSE = "\n  }"


@dataclass(frozen=True)
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _string_end(text: str, at: int) -> int:
    """The index after the JSON string that opens at ``at``."""
    at += 1
    while text[at] != '"':
        at += 2 if text[at] == "\\" else 1
    return at + 1


def _value_end(text: str, at: int) -> int:
    if text[at] == '"':
        return _string_end(text, at)
    if text[at] in "{[":
        depth = 0
        while True:
            if text[at] == '"':
                at = _string_end(text, at)
                continue
            depth += 1 if text[at] in "{[" else -1 if text[at] in "}]" else 0
            at += 1
            if depth == 0:
                return at
    while at < len(text) and text[at] not in ",}] \t\r\n":
        at += 1
    return at


def members(text: str, brace: int) -> list[Member]:
    """The members of the (already validated) object whose ``{`` is at ``brace``."""
    found: list[Member] = []
    at = _skip_space(text, brace + 1)
    while text[at] != "}":
        key_end = _string_end(text, at)
        value_start = _skip_space(text, _skip_space(text, key_end) + 1)
        value_end = _value_end(text, value_start)
        found.append(Member(json.loads(text[at:key_end]), at, value_start, value_end))
        at = _skip_space(text, value_end)
        if text[at] == ",":
            at = _skip_space(text, at + 1)
    return found


def _document(text: str, where: str) -> dict[str, Any]:
    try:
        document = loads_strict(text.encode("utf-8"), where)
    except Refusal as refused:
        raise UnparsableConfig(f"{refused.message} cm-graph agents leaves it as it is.") from None
    if not isinstance(document, dict):
        raise UnparsableConfig(f"{where} is not a JSON object; cm-graph agents leaves it as it is.")
    if not isinstance(document.get("mcpServers", {}), dict):
        raise UnparsableConfig(f"{where}'s mcpServers is not an object; cm-graph agents leaves it as it is.")
    return document


def _servers(text: str) -> tuple[int, Member | None]:
    """The brace of the document, and its ``mcpServers`` member (None when it has none)."""
    brace = _skip_space(text, 0)
    return brace, next((m for m in members(text, brace) if m.key == "mcpServers"), None)


def _ours(text: str, where: str) -> tuple[str, int, int] | None:
    """How our entry sits in ``text``: ("created" | "servers" | "member", span start, span end),
    the span being exactly what ``place_entry`` added; None when there is no ``cm-graph`` entry.
    An entry of that name in another shape is the user's: refused."""
    brace, servers = _servers(text)
    if servers is None:
        return None
    entry = next((m for m in members(text, servers.value_start) if m.key == REGISTERED_NAME), None)
    if entry is None:
        return None
    if (text[brace + 1:entry.value_start] == _SERVERS + _MEMBER
            and text[entry.value_end:].startswith(_SERVERS_CLOSE)):
        end = entry.value_end + len(_SERVERS_CLOSE)
        if brace == 0 and text == "{" + text[1:end] + "\n}\n":
            return "created", 0, len(text)
        return "servers", brace + 1, end + (1 if text[end:end + 1] == "," else 0)
    if text[servers.value_start + 1:entry.value_start] == _MEMBER:
        end = entry.value_end + (1 if text[entry.value_end:entry.value_end + 1] == "," else 0)
        return "member", servers.value_start + 1, end
    raise UnparsableConfig(f"{where} already registers a server named {REGISTERED_NAME} that cm-graph agents did "
                           "not write; remove that entry (or rename it), then run the command again.")


def place_entry(text: str | None, entry: dict[str, Any], where: str) -> str:
    """``text`` with ``entry`` as ``mcpServers["cm-graph"]`` (replacing ours, else inserted)."""
    value = json.dumps(entry)  # ASCII: a path's bidi or control character is written as its escape
    if text is None:
        return "{" + _SERVERS + _MEMBER + value + _SERVERS_CLOSE + "\n}\n"
    _document(text, where)
    ours = _ours(text, where)
    if ours is not None:
        _, servers = _servers(text)
        assert servers is not None
        old = next(m for m in members(text, servers.value_start) if m.key == REGISTERED_NAME)
        placed = text[:old.value_start] + value + text[old.value_end:]
    else:
        brace, servers = _servers(text)
        if servers is None:
            more = "," if members(text, brace) else ""
            placed = text[:brace + 1] + _SERVERS + _MEMBER + value + _SERVERS_CLOSE + more + text[brace + 1:]
        else:
            more = "," if members(text, servers.value_start) else ""
            at = servers.value_start + 1
            placed = text[:at] + _MEMBER + value + more + text[at:]
    if _document(placed, where).get("mcpServers", {}).get(REGISTERED_NAME) != entry:
        raise UnparsableConfig(f"{where} could not take the entry without changing other text; "
                               "cm-graph agents leaves it as it is.")
    return placed


def take_out_entry(text: str, where: str) -> str | None:
    """``text`` without our entry (exactly what ``place_entry`` added); None when the file is
    only what it created (delete it); ``text`` itself when there is no entry."""
    _document(text, where)
    ours = _ours(text, where)
    if ours is None:
        return text
    shape, start, end = ours
    return None if shape == "created" else text[:start] + text[end:]
