"""The text index's scanner: which code lines of a blob mention a name the graph defines, and how.

The provider misses calls through a package (``pkg.func(``), methods called on instances and
callbacks it cannot resolve; the names themselves are still on the lines. So the importer reads
every code blob it already reads for line counts, and records, for each name some symbol of the
graph is called by, every line that uses it outside strings and comments. It is a lexer, not a
parser (one per comment family: ``#`` languages, and C-like ones with ``//``, ``/* */`` and
template strings), so a mention is textual evidence, never a relationship.

Only names the graph defines are indexed (not every identifier), which keeps the table a small
fraction of the index; a name used on more than ``MAX_KEPT`` lines is counted, not listed (a
``get`` or an ``__init__`` would otherwise be most of the file and no help to anyone).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from itertools import accumulate, compress

MAX_KEPT = 2000  # lines per name the index lists; a more common name is only counted
MAX_SCANNED_BYTES = 2 * 1024 * 1024  # a larger blob is generated or minified: not scanned
FORMS = ("qualified_call", "call", "qualified", "name")  # strongest first
_STRENGTH = {form: rank for rank, form in enumerate(FORMS)}

_TOKEN = re.compile(r"\n|[A-Za-z_$][\w$]*")
_NAME = re.compile(r"[A-Za-z_][\w$]*\Z")
_NOISY = re.compile(r"[\"'#/`]")  # a character that could open a string or a comment
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_HASH_LANGUAGES = (".py", ".pyi", ".pyw", ".rb", ".sh", ".bash", ".pl", ".r", ".jl", ".nim", ".cr", ".ex", ".exs")
# Multi-line strings and comments, found with str.find (a few per file): a mention inside one is
# prose, not code. Line comments and one-line strings are judged on the mention's own line.
_HASH_BLOCKS = (('"""', '"""'), ("'''", "'''"))
_C_BLOCKS = (("/*", "*/"),)
# A line that is only a line comment (str.lstrip's whitespace is the pattern's \s).
_HASH_COMMENT_LINE = re.compile(r"^[^\S\n]*#[^\n]*", re.MULTILINE)
_C_COMMENT_LINE = re.compile(r"^[^\S\n]*//[^\n]*", re.MULTILINE)
# Words a language reserves (or gives a meaning in some position: `from`, `of`, `type`, `get`):
# a function may carry one as its name (rxjs's `from()`), but only a call or a qualified use of
# it is a mention; the bare word is the keyword.
_KEYWORDS = frozenset({
    "and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue",
    "declare", "def", "default", "del", "delete", "elif", "else", "enum", "except", "export", "extends",
    "finally", "for", "from", "function", "get", "global", "if", "implements", "import", "in", "infer",
    "instanceof", "interface", "is", "keyof", "lambda", "let", "module", "namespace", "new", "nonlocal",
    "not", "of", "or", "pass", "private", "protected", "public", "raise", "readonly", "return",
    "satisfies", "self", "set", "static", "super", "switch", "this", "throw", "try", "type", "typeof",
    "var", "void", "while", "with", "yield",
})
_DEFINING_LINE = ("def ", "async def ", "function ", "async function ", "fn ", "pub fn ", "func ")
# A name right after one of these words is being defined or declared, not used.
_DECLARING = frozenset({
    "def", "class", "function", "fn", "struct", "enum", "trait", "interface", "type", "const", "let",
    "var", "func", "async", "module", "namespace", "impl",
})


def defined_name(label: str) -> str | None:
    """The name a symbol is called by, from its graph label (``.load()`` -> ``load``), or None
    when the label is no identifier (a file, an anonymous function)."""
    name = label.lstrip(".")
    cut = name.find("(")
    if cut >= 0:
        name = name[:cut]
    name = name.strip()
    return name if len(name) >= 2 and _NAME.match(name) else None


def scan_blob(
    path: str, data: bytes, names: frozenset[str], skip: frozenset[str] | set[str] = frozenset()
) -> Iterator[tuple[str, int, str]]:
    """(name, line, form) for every line of ``data`` using a name of ``names`` (but not of
    ``skip``), one per name and line (its strongest form), in line order then name order.

    The blob is cut into identifiers and newlines by one regular expression, and the tokens
    that are wanted names are picked and given their line numbers by C-level iteration
    (``map``, ``compress``, ``accumulate``); only those hits cost Python steps."""
    if len(data) > MAX_SCANNED_BYTES or b"\0" in data[:8192]:
        return
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    hashed = path.lower().endswith(_HASH_LANGUAGES)
    tokens = _TOKEN.findall(_code_only(text, lines, hashed))
    present = names.intersection(tokens).difference(skip)
    if not present:
        return
    wanted = list(map(present.__contains__, tokens))
    # (line index, name) of every wanted token, deduplicated: all of it C-level iteration.
    line_of = compress(accumulate(map("\n".__eq__, tokens)), wanted)
    pairs = set(zip(line_of, compress(tokens, wanted), strict=True))
    for index, name in sorted(pairs):
        form = _strongest_form(lines[index], name, hashed)
        if form is not None:
            yield name, index + 1, form


def _code_only(text: str, lines: list[str], hashed: bool) -> str:
    """``text`` with the lines no mention can be on emptied (their newlines kept, so every line
    keeps its number): the lines strictly inside a multi-line string or block comment, and the
    lines that are only a line comment. ``_form`` finds no use on either (a mention inside a
    block is prose; a name after a line comment's marker, with no quote before it, is in the
    comment), so their tokens would only cost a Python step each to be refused; emptied, they
    never become tokens, and sympy's docstrings are a third of its text."""
    inside = _block_lines(text, _HASH_BLOCKS if hashed else _C_BLOCKS)
    if inside:
        kept = lines.copy()
        for number in inside:
            kept[number - 1] = ""
        text = "\n".join(kept)
    return (_HASH_COMMENT_LINE if hashed else _C_COMMENT_LINE).sub("", text)


def _block_lines(text: str, delimiters: tuple[tuple[str, str], ...]) -> set[int]:
    """The line numbers strictly inside a multi-line string or block comment (its first and
    last lines are judged by the one-line rules)."""
    inside: set[int] = set()
    for opening, closing in delimiters:
        at = text.find(opening)
        while at >= 0:
            end = text.find(closing, at + len(opening))
            end = len(text) if end < 0 else end + len(closing)
            first = text.count("\n", 0, at) + 1
            last = first + text.count("\n", at, end)
            inside.update(range(first + 1, last))
            at = text.find(opening, end)
    return inside


def _strongest_form(line: str, name: str, hashed: bool) -> str | None:
    """The strongest use of ``name`` on ``line`` (None when every occurrence is a definition,
    in a string or comment, or a keyword argument / assignment target / object key)."""
    best: str | None = None
    size = len(name)
    at = line.find(name)
    while at >= 0:
        end = at + size
        if (at == 0 or line[at - 1] not in _WORD_CHARS) and (end == len(line) or line[end] not in _WORD_CHARS):
            form = _form(line, at, end, hashed)
            if form == "name" and name in _KEYWORDS:
                form = None  # `import { x } from './y'` is not a use of a function named from
            if form is not None and (best is None or _STRENGTH[form] < _STRENGTH[best]):
                best = form
        at = line.find(name, end)
    return best


def _in_line_noise(before: str, hashed: bool) -> bool:
    """Whether the text before a name on its line leaves it inside a one-line string or a line
    comment (quotes counted without escapes: a lexer's guess, good for code as written)."""
    quotes = ('"', "'") if hashed else ('"', "'", "`")
    comment = "#" if hashed else "//"
    cut = before.find(comment)
    if cut >= 0 and not any(before.count(q, 0, cut) % 2 for q in quotes):
        return True
    return any(before.count(q) % 2 for q in quotes)


def _form(text: str, start: int, end: int, hashed: bool) -> str | None:
    """How the name at text[start:end] (one line) is used, or None inside a string or comment, for a
    definition, a keyword argument, an assignment target or an object key."""
    before = text[:start]
    if _NOISY.search(before) is not None and _in_line_noise(before, hashed):
        return None
    if before.count("(") > before.count(")") and before.lstrip().startswith(_DEFINING_LINE):
        return None  # a parameter of the function this line defines
    before = before.rstrip()
    declared = before.rstrip(" \t*")
    if declared and declared.rsplit(None, 1)[-1] in _DECLARING:
        return None
    after = text[end:end + 3].lstrip(" \t")
    if after.startswith(("=", ":")) and not after.startswith(("==", "=>", "::", ":=")):
        if not before.endswith((".", "::", "->")) or after.startswith("="):
            return None
    qualified = before.endswith((".", "::", "->", "?."))
    called = after.startswith("(") or (after.startswith("!") and after[1:2] in "([{")  # Rust macros
    if qualified:
        return "qualified_call" if called else "qualified"
    return "call" if called else "name"


class MentionTable:
    """The mentions found so far, by name, packed (8 bytes a line) and bounded: once a name has
    more than ``MAX_KEPT`` lines it is ``common``, its lines are dropped and later files skip it,
    so memory and time stay a few units per kept mention whatever the repository."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.common: set[str] = set()
        self._lines: dict[str, array[int]] = {}

    def add_file(self, path: str, found: list[tuple[str, int, str]]) -> None:
        """Record ``found`` (``scan_blob``'s rows) for the next file; files come in path order."""
        self.paths.append(path)
        file = len(self.paths)
        for name, line, form in found:
            if name in self.common:
                continue
            packed = self._lines.setdefault(name, array("q"))
            packed.append((file << 24) | (line << 2) | _STRENGTH[form])
            if len(packed) > MAX_KEPT:
                self.common.add(name)
                del self._lines[name]

    def name_rows(self) -> Iterator[tuple[str, int, int]]:
        """(name, total, kept) in name order; a common name's total is ``MAX_KEPT + 1``."""
        for name in sorted(self._lines.keys() | self.common):
            packed = self._lines.get(name)
            yield (name, len(packed), 1) if packed is not None else (name, MAX_KEPT + 1, 0)

    def mention_rows(self) -> Iterator[tuple[str, int, int, str]]:
        """(name, file, line, form) of every kept name, in primary-key order."""
        for name in sorted(self._lines):
            for value in sorted(self._lines[name]):
                yield name, value >> 24, (value >> 2) & 0x3FFFFF, FORMS[value & 3]
