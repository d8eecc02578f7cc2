"""Extraction gaps: definitions the text of the commit holds and the graph does not.

The provider drops definitions silently (jinja2's ``Environment.compile``, whose id
``._compile()`` took; immer's ``types-external.ts`` after line 131; classes nested in functions).
The text index's lexer (``mentions``) already reads every defining line of a code file as one
token, its head (``def``/``class``/``function``/``interface``/``struct``/... and the name) up to
its parameter list. A lexed definition is a **gap** when no symbol or test of the graph in the
same file is called by that name: counted per file and name (an ``@overload`` stub and its body
are one definition with several lines), with its first line.

Comparing by name within the file, never by line, keeps what the graph holds at another line of
the file (an overload stub, a nested helper of the same name) from reading as a gap. Names of
one character are skipped on both sides, as the text index skips them. The gaps are computed
once, when a build derives its index (``provider/publish.py``), and kept in the build record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import apsw

from ..base.git import BlobReader, Census
from ..base.sqlfiles import query_sql
from .mentions import _HASH_LANGUAGES, _IDENT, _MODIFIERS, MAX_SCANNED_BYTES, defined_name, tokenizer_for

# The defining words whose name the provider extracts as a definition; ``const``/``let``/``var``
# and ``impl`` declare or extend, they define nothing the graph would hold as a symbol.
_HASH_WORDS = ("def", "class")
_C_WORDS = ("function", "fn", "func", "class", "struct", "enum", "trait", "interface", "type", "namespace")
_RECEIVER = r"(?:\([^()\n]*\)[ \t]*)?"  # Go's `func (r *T) Name(`


def _head(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"[ \t]*" + _MODIFIERS + r"(" + "|".join(words) + r")\*?[ \t*]+" + _RECEIVER
                      + r"(" + _IDENT + r")")


_HASH_HEAD = _head(_HASH_WORDS)
_C_HEAD = _head(_C_WORDS)
# The same heads anywhere a line starts: a fast pass that finds every defining line and some that
# are not (inside a string or a comment); only a file holding a candidate the graph lacks is
# lexed, to drop those.
_HASH_CANDIDATE = re.compile(r"^" + _HASH_HEAD.pattern, re.MULTILINE)
_C_CANDIDATE = re.compile(r"^" + _C_HEAD.pattern, re.MULTILINE)
_NAME = re.compile(r"[A-Za-z_][\w$]+\Z")
# In C and C++ ``struct X;`` and ``extern struct X x;`` name a type, they do not define one: there
# a struct, enum, union or class head defines only when its line ends, or opens a body or a base
# list, right after the name.
_C_LIKE = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".cu", ".cuh", ".m", ".mm", ".ino")
_TYPE_WORDS = frozenset({"struct", "enum", "class"})

MAX_LISTED_FILES = 200  # files the build record names, the most gaps first
MAX_LISTED_NAMES = 50  # names per listed file


def _hashed(path: str) -> bool:
    return path.lower().endswith(_HASH_LANGUAGES)


def defining_names(path: str, data: bytes) -> list[tuple[str, int]]:
    """(name, line) of every definition the lexer reads in ``data``, in line order: defining
    lines outside strings and comments, exactly as the text index tokenises them."""
    head = _HASH_HEAD if _hashed(path) else _C_HEAD
    c_like = path.lower().endswith(_C_LIKE)
    text = "\n" + data.decode("utf-8", errors="replace")
    found = []
    line = 0
    for token in tokenizer_for(path).finditer(text):
        spelled = token.group()
        if spelled.startswith("\n") and not spelled.isspace():
            match = head.match(spelled, 1)
            if match is not None and _NAME.match(match.group(2)) and (
                    not c_like or match.group(1) not in _TYPE_WORDS or _opens(text, token.start() + match.end())):
                found.append((match.group(2), line + 1))
        line += spelled.count("\n")
    return found


def _opens(text: str, after: int) -> bool:
    """Whether the line goes on, after a C type head's name, with nothing, a body or a base list."""
    end = text.find("\n", after)
    rest = text[after:end if end >= 0 else len(text)].strip()
    return not rest or rest[0] in "{:"


def _candidates(path: str, text: str) -> set[str]:
    pattern = _HASH_CANDIDATE if _hashed(path) else _C_CANDIDATE
    return {name for _word, name in pattern.findall(text) if _NAME.match(name)}


@dataclass
class DefinitionGaps:
    """Gaps per file: path -> [(name, first line, defining lines)], in name order."""

    files_read: int = 0
    by_file: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(len(names) for names in self.by_file.values())

    def to_record(self) -> dict[str, object]:
        """The build record's ``definitions``: exact totals, the files with the most gaps first
        (bounded), each with its names."""
        ranked = sorted(self.by_file.items(), key=lambda item: (-len(item[1]), item[0]))
        return {
            "files_read": self.files_read, "gaps": self.total, "files": len(self.by_file),
            "listed": len(ranked) <= MAX_LISTED_FILES and all(len(n) <= MAX_LISTED_NAMES for _p, n in ranked),
            "by_file": [
                {"path": path, "count": len(names), "names": [
                    {"name": name, "line": line, "lines": lines} for name, line, lines in names[:MAX_LISTED_NAMES]]}
                for path, names in ranked[:MAX_LISTED_FILES]
            ],
        }


def graph_names_by_path(connection: apsw.Connection) -> dict[str, set[str]]:
    """The names the graph's symbols and tests are called by, per file."""
    names: dict[str, set[str]] = {}
    for path, label in connection.execute(query_sql("definition_labels")):
        known = names.setdefault(path, set())
        name = defined_name(label) if label is not None else None
        if name is not None:
            known.add(name)
    return names


def find_gaps(connection: apsw.Connection, census: Census, blobs: BlobReader) -> DefinitionGaps:
    """The gaps of every file the graph holds a definition of (the index ``connection``), its
    committed bytes read through ``blobs``; a file over the text index's budget is not read."""
    graph = graph_names_by_path(connection)
    gaps = DefinitionGaps()
    for entry in census.entries:
        known = graph.get(entry.path)
        if known is None or entry.size > MAX_SCANNED_BYTES:
            continue
        data = b"".join(blobs.chunks(entry.blob, entry.size))
        if b"\0" in data[:8192]:
            continue
        gaps.files_read += 1
        if _candidates(entry.path, data.decode("utf-8", errors="replace")) <= known:
            continue
        missing = _missing(defining_names(entry.path, data), known)
        if missing:
            gaps.by_file[entry.path] = missing
    return gaps


def _missing(found: Iterable[tuple[str, int]], known: set[str]) -> list[tuple[str, int, int]]:
    first: dict[str, list[int]] = {}
    for name, line in found:
        if name not in known:
            first.setdefault(name, []).append(line)
    return sorted((name, lines[0], len(lines)) for name, lines in first.items())
