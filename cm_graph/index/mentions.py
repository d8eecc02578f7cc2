"""The text index's scanner: which code lines of a blob mention a name the graph defines, and how.

The provider misses calls through a package (``pkg.func(``), methods called on instances and
callbacks it cannot resolve; the names themselves are still on the lines. So the importer scans
every code blob it cites and records, for each name some symbol of the graph is called by, every
line that uses it outside strings and comments. It is a lexer, not a parser (one per comment
family), so a mention is textual evidence, never a relationship.

**The rules** (docs/index-format.md#the-text-index states them for users, and
``tests/support/lexer_reference.py`` implements them a character at a time, as the definition
this scanner is held to):

- *Strings and comments hold no uses.* ``#`` languages (``_HASH_LANGUAGES``): ``#`` to the end of
  the line; ``\"\"\"``/``'''`` strings, which may span lines; ``"`` and ``'`` strings, which end
  at their closing quote or the end of the line (a backslash escapes the next character). Every
  other file: ``//`` to the end of the line; ``/* */`` and backtick strings, which may span
  lines; ``"`` and ``'`` as above; in JavaScript/TypeScript a regex literal (``/`` after
  punctuation that cannot end an operand, or after ``return``); in Rust, ``'`` opens only a
  character literal (a lifetime ``'a`` is code) and raw strings ``r#"..."#`` may span lines.
- *An identifier* is ``[A-Za-z_$][\\w$]*`` from a word's start, of two characters or more.
- *A definition is not a use.* A defining line (its code starts, after indentation and modifiers
  such as ``export``/``pub``/``async``, with ``def`` or, elsewhere, ``function``/``fn``/``func``)
  uses nothing up to the end of its parameter list (found by parentheses alone, one level of
  nesting, possibly over several lines); one that starts with a declaring word (``_DECLARING``:
  ``class X``, ``const x``...) declares the name after it; a Python import's module path names
  modules, not uses.
- *The form*: ``.``, ``::``, ``->`` or ``?.`` right before the identifier makes it qualified;
  ``(`` after it (spaces or tabs between allowed; Rust's ``!(``, ``![``, ``!{`` too) a call.
  ``=`` after it (not ``==``/``=>``) makes it an assignment target or keyword argument, not a use;
  ``:`` after it (not ``::``/``:=``) makes an unqualified identifier an object key, label or
  annotated parameter outside the ``#`` family, not a use. A reserved word (``_KEYWORDS``) used
  bare is the keyword, not a function of that name. A line's mention of a name is its strongest
  form: ``raise`` > ``catch`` > ``qualified_call`` > ``call`` > ``qualified`` > ``name``.
- *Raise and catch sites* (Python; JavaScript/TypeScript) are a second pass (``_site_mentions``)
  that skips the same strings and comments and nothing else: ``raise`` + a dotted chain,
  ``except``/``except*`` + a chain or a parenthesised list of chains only, ``throw new`` + a
  chain, ``catch (e: Chain) {``, and ``instanceof`` + a chain inside a catch block (braces
  counted outside strings, comments and regex literals); the chain's last identifier is raised or
  caught. A bare ``raise``, ``except Exception`` and ``throw err`` name nothing.

**Why it is shaped like this.** A build scans every cited blob (25 MB on sympy), so the Python
steps are per blob, not per token: one regular expression cuts a blob into tokens (strings,
comments and defining lines are single tokens), and C-level iteration (``map``, ``compress``,
``accumulate``, dict lookups) turns them into packed integers ``name id << 40 | line << 2 |
rank``. Only names the graph defines are looked up; a name used on more than ``MAX_KEPT`` lines
is counted, not listed (a ``get`` would otherwise be most of the file and no help to anyone),
and once a scan sees it that often it stops looking it up.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import accumulate, compress, count, repeat
from operator import add, and_, getitem, itemgetter, lshift, mul, ne, or_, rshift

from .dynamic_uses import DYNAMIC_BIT, DYNAMIC_FORMS, code_uses, dispatch_prefixes, text_form, text_uses
from .dynamic_uses import IDENT as _IDENT
from .pymodules import is_python_path

MAX_KEPT = 2000  # lines per name the index lists; a more common name is only counted
MAX_SCANNED_BYTES = 2 * 1024 * 1024  # a larger blob is generated or minified: not scanned
# Strongest first: a mention's rank. A raise or catch site (``raise X``, ``except X``, ``throw new
# X``, ``catch (e: X)``) is what a line does with the name whatever else it does with it.
CODE_FORMS = ("raise", "catch", "qualified_call", "call", "qualified", "name")
# A posting's rank: 0..5 a code form (the strongest on the line), 8..15 a dynamic one
# (``dynamic_uses.py``: a string, an export, a registry...), posted beside the code form.
FORMS = (*CODE_FORMS, "", "", *DYNAMIC_FORMS)
LINE_SHIFT = 4  # packed mention: ... | line << LINE_SHIFT | rank
# A posting: file << FILE_SHIFT | line << LINE_SHIFT | rank (a scanned blob is at most 2 MiB, so a
# line holding a name of two characters is below 2**21).
FILE_SHIFT = 25
# A packed mention: id << ID_SHIFT | line << LINE_SHIFT | rank, and | file << FILE_SHIFT in a
# table (a census has at most 50,000 files, under 2**16): 64 bits for 2**23 names, so a worker
# hands its mentions over as they are.
ID_SHIFT = 41
_LINE_MASK = (1 << (FILE_SHIFT - LINE_SHIFT)) - 1
_RANK_MASK = (1 << LINE_SHIFT) - 1
_POSTING_MASK = (1 << ID_SHIFT) - 1

_HASH_LANGUAGES = (".py", ".pyi", ".pyw", ".rb", ".sh", ".bash", ".pl", ".r", ".jl", ".nim", ".cr", ".ex", ".exs")
_SUFFIX = r"(?:[ \t]*(?:\(|![(\[{]|=(?![=>])|:(?![:=])))?"
_MODIFIERS = (r"(?:(?:export|pub|async|static|default|public|private|protected|override|unsafe|extern|inline"
              r"|declare|abstract)[ \t]+)*")
_PARAMETERS = r"\((?:[^()]|\([^()]*\))*\)?"
# A line that starts (after its indentation and modifiers) by defining a function is one token up
# to the end of its parameter list; one that starts by declaring a class, type or variable is one
# token up to the declared name. No name's spelling matches either.
_DECLARING = ("class", "struct", "enum", "trait", "interface", "type", "impl", "module", "namespace", "const",
              "let", "var", "macro_rules!")
_DECLARATION = r"(?:" + "|".join(_DECLARING) + r")[ \t*]+" + _IDENT
# In Python, an import's module path (`from a.b import c`, `import a.b`) names modules, not uses.
_MODULE_PATH = r"from[ \t]+[\w.]+(?=[ \t]+import\b)|import[ \t]+[\w.]+"
_HASH_DEFINING = (r"\n[ \t]*" + _MODIFIERS + r"(?:def[ \t]+" + _IDENT + r"[ \t]*" + _PARAMETERS + "|"
                  + _DECLARATION + "|" + _MODULE_PATH + ")")
_C_DEFINING = (r"\n[ \t]*" + _MODIFIERS + r"(?:(?:function\*?|fn|func)[ \t]+(?:\([^()\n]*\)[ \t]*)?[^(\n]*"
               + _PARAMETERS + "|" + _DECLARATION + ")")
# Strings and comments as "unrolled loops" (a run of plain characters, then one special one),
# which the regex engine scans a run at a time.
_ONE_LINE_STRINGS = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|' + r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"
_BLOCK_COMMENT = r"/\*[^*]*(?:\*(?!/)[^*]*)*(?:\*/|\Z)"
_TEMPLATE = r"`[^`\\]*(?:\\[\s\S][^`\\]*)*`?"
_HASH_NOISE = (r'#[^\n]*|"""[^"]*(?:"(?!"")[^"]*)*(?:"""|\Z)|' + r"'''[^']*(?:'(?!'')[^']*)*(?:'''|\Z)|"
               + _ONE_LINE_STRINGS)
_C_NOISE = r"//[^\n]*|" + _BLOCK_COMMENT + "|" + _TEMPLATE + "|" + _ONE_LINE_STRINGS
_RUST_NOISE = (r"//[^\n]*|" + _BLOCK_COMMENT + "|" + _TEMPLATE + "|" + r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|'
               + r"'(?:\\[^'\n]*|[^'\\\n])'")
# JavaScript's regular expression literal: a `/` right after punctuation that cannot end an
# operand (or after `return`), up to its closing `/` on the line (a backtick or quote inside one
# is not a string). Elsewhere a `/` is division.
_REGEX_LITERAL = (r"/(?:(?<=[(,=:\[!&|?{};]/)|(?<=[(,=:\[!&|?{};] /)|(?<=return /))(?![/*])"
                  r"(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[A-Za-z]*")
_JS_NOISE = r"//[^\n]*|" + _BLOCK_COMMENT + "|" + _REGEX_LITERAL + "|" + _TEMPLATE + "|" + _ONE_LINE_STRINGS
_JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_QUALIFIERS = (".", "::", "->", "?.")
# Each branch starts with a literal or a character class, which the regex engine checks before
# entering it; identifiers come first (most tokens are), a line's indentation rides on its newline.
# Only identifiers of two or more characters become tokens (a name is never shorter, and a third
# of a blob's identifiers are one letter), each from a word's start (so neither ``1e10`` nor
# ``0xff`` holds one): numbers are never tokens.
_WORD = r"[A-Za-z_$](?<![\w$].)[\w$]+"
_QUALIFIED = "|".join(re.escape(q) + r"[A-Za-z_$][\w$]+" + _SUFFIX for q in _QUALIFIERS)


# Rust's raw strings (`r"..."`, `br#"..."#`, up to three `#`), which may span lines: tried before
# identifiers, since `br` would be one.
_RUST_RAW = "b?r(?:" + "|".join(
    '#' * n + '"[^"]*' + (f'(?:"(?!{"#" * n})[^"]*)*' if n else "") + f'(?:"{"#" * n}|\\Z)' for n in range(4)) + ")"


def _tokenizer(defining: str, noise: str, first: tuple[str, ...] = ()) -> re.Pattern[str]:
    return re.compile("|".join((*first, _WORD + _SUFFIX, _QUALIFIED, defining, r"\n[ \t]*", noise)))


@cache
def _tokenizers() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The tokenizers of the hash, C, JavaScript and Rust comment families, compiled on first use:
    only a scan (an index build, a definition gap) needs them, never a question reading the index."""
    return (_tokenizer(_HASH_DEFINING, _HASH_NOISE), _tokenizer(_C_DEFINING, _C_NOISE),
            _tokenizer(_C_DEFINING, _JS_NOISE), _tokenizer(_C_DEFINING, _RUST_NOISE, (_RUST_RAW,)))


_SUFFIX_CHARS = " \t(=:![{"
_SUFFIX_KIND = {"(": 1, "[": 1, "{": 1, "=": 2, ":": 3}  # by a token's last character; else 0
_NAME = re.compile(r"[A-Za-z_][\w$]+\Z")  # two characters at least
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
_DROP = len(FORMS)  # the rank of a token that is no use
_RAISE, _CATCH, _QUALIFIED_CALL = FORMS.index("raise"), FORMS.index("catch"), FORMS.index("qualified_call")

# Raise and catch sites: a second pass over the blob (only a Python or JavaScript/TypeScript one
# holding the keywords), skipping the same strings and comments, that finds the name a site
# raises or catches: the last identifier of a dotted chain (``raise errors.X(...)`` raises ``X``).
_CHAIN = _IDENT + r"(?:[ \t]*\.[ \t]*" + _IDENT + r")*"


def _keyword(word: str) -> str:
    """``word`` not right after a word character, ``$`` or ``.``: the lookbehind after its first
    letter, so every branch of a site pattern starts with a literal the engine can skip to."""
    return re.escape(word[0]) + r"(?<![\w$.]" + re.escape(word[0]) + ")" + re.escape(word[1:])


_PY_EXTENSIONS = (".py", ".pyi", ".pyw")
_JS_SITE_WORDS = (b"throw", b"catch")
_PY_SITE_WORDS = (b"raise", b"except")


@cache
def _site_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Python's and JavaScript's site patterns, a dotted chain, and a catch parameter's annotation,
    compiled on first use (a scan's, as ``_tokenizers``)."""
    python = re.compile(
        _HASH_NOISE + "|" + _keyword("raise") + r"[ \t]+(?P<raise>" + _CHAIN + r")|" + _keyword("except")
        + r"\*?(?![\w$])[ \t]*(?:(?P<catch>" + _CHAIN + r")|\((?P<caught>[ \t\r\n,]*(?:" + _CHAIN
        # a chain ends at a word's end: else one long name splits into chains in exponentially many
        # ways before a `(` the group cannot take (anyio's `except (A, get_cancelled_exc_class()):`)
        + r"(?![\w$])[ \t\r\n,]*)*)\))")
    javascript = re.compile(
        _JS_NOISE + "|" + _keyword("throw") + r"[ \t]+new[ \t]+(?P<raise>" + _CHAIN + r")|" + _keyword("catch")
        + r"(?![\w$])[ \t]*(?:\((?P<param>[^()]*)\))?[ \t\r\n]*(?P<block>\{)|" + _keyword("instanceof")
        + r"[ \t]+(?P<instance>" + _CHAIN + r")|(?P<open>\{)|(?P<close>\})")
    annotation = re.compile(r"[ \t\r\n]*" + _IDENT + r"[ \t\r\n]*:[ \t\r\n]*(" + _CHAIN + r")[ \t\r\n]*\Z")
    return python, javascript, re.compile(_CHAIN), annotation


def _rank_table(hashed: bool) -> tuple[int, ...]:
    """The rank of a token by ``qualification * 4 + suffix kind``: qualification 0 bare, 1
    qualified, 2 a bare reserved word; suffix kind 0 none, 1 call, 2 ``=``, 3 ``:``."""
    table = []
    for qualification in (0, 1, 2):
        for kind in (0, 1, 2, 3):
            if kind == 2 or (kind == 3 and not hashed and qualification != 1):
                table.append(_DROP)
            elif qualification == 1:
                table.append(_QUALIFIED_CALL if kind == 1 else _QUALIFIED_CALL + 2)
            elif kind == 1:
                table.append(_QUALIFIED_CALL + 1)
            else:
                table.append(_DROP if qualification == 2 else _QUALIFIED_CALL + 3)
    return tuple(table)


_RANKS = {True: _rank_table(True), False: _rank_table(False)}


def names_of(labels: Iterable[str]) -> list[str]:
    """The names the text index looks for, sorted: those the symbol and test labels are called by
    (``defined_name`` of each, computed a step at a time over all of them: a large graph has
    tens of thousands of labels, and both processes of a build need the names)."""
    cut = map(itemgetter(0), map(str.partition, map(str.lstrip, labels, repeat(".")), repeat("(")))
    stripped = list(map(str.strip, cut))
    return sorted(set(compress(stripped, map(_NAME.match, stripped))))


def module_names(paths: Iterable[str]) -> set[str]:
    """The names the graph's Python modules are loaded by in a string, sorted out of their node
    paths: each file's stem, a package's directory for its ``__init__`` (identifiers only). A
    plugin loaded by name (``Markdown(extensions=['admonition'])``, ``INSTALLED_APPS``,
    ``import_module('pkg.admonition')``) is reached by no edge; the text index posts the strings
    that name its module, so a test that loads it by name is found (``context/named_modules.py``)."""
    found: set[str] = set()
    for path in paths:
        if not is_python_path(path):
            continue
        parts = path.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        if stem == "__init__":
            stem = parts[-2] if len(parts) > 1 else ""
        if _NAME.match(stem):
            found.add(stem)
    return found


def defined_name(label: str) -> str | None:
    """The name a symbol is called by, from its graph label (``.load()`` -> ``load``), or None
    when the label is no identifier (a file, an anonymous function)."""
    name = label.lstrip(".")
    cut = name.find("(")
    if cut >= 0:
        name = name[:cut]
    name = name.strip()
    return name if _NAME.match(name) else None


class Vocabulary:
    """The names a scan looks for, numbered in sorted order (so every process that scans part of
    a build numbers them alike), as the token texts that spell them: ``codes`` maps a token
    without its suffix (``load``, ``.load``, ``::load``...) to ``(id + 1) << 2 | qualification``
    (never 0, so a code is its own hit mask)."""

    def __init__(self, names: Iterable[str]) -> None:
        defined = sorted(set(names))
        self.names = vocabulary_names(defined)
        number = {name: at for at, name in enumerate(self.names)}
        bases = [(number[name] + 1) << 2 for name in defined]  # (id + 1) << 2
        self.codes = dict(zip(defined, bases, strict=True))
        for keyword in _KEYWORDS.intersection(defined):
            self.codes[keyword] |= 2
        for qualifier in _QUALIFIERS:
            self.codes.update(zip(map(qualifier.__add__, defined), map(or_, bases, repeat(1)), strict=True))
        # The dispatch prefixes (``visit_``) a ``getattr`` string may start with, by id: looked
        # up in strings only, never as a code token.
        self.prefixes = {prefix: number[prefix] for prefix in dispatch_prefixes(defined)}

    def forget(self, ids: Iterable[int]) -> None:
        """Stop looking for these names (a common name: its lines are no longer listed)."""
        for number in ids:
            name = self.names[number]
            for spelling in (name, *(qualifier + name for qualifier in _QUALIFIERS)):
                self.codes.pop(spelling, None)


def vocabulary_names(names: Iterable[str]) -> tuple[str, ...]:
    """The names a text index numbers, sorted: the defined ``names`` and their dispatch prefixes
    (``dynamic_uses.dispatch_prefixes``), under which a ``getattr`` dispatch is posted."""
    defined = set(names)
    return tuple(sorted(defined.union(dispatch_prefixes(defined))))


def tokenizer_for(path: str) -> re.Pattern[str]:
    """The tokenizer of ``path``'s comment family (by its extension)."""
    lowered = path.lower()
    hash_tokens, c_tokens, js_tokens, rust_tokens = _tokenizers()
    return (hash_tokens if lowered.endswith(_HASH_LANGUAGES) else js_tokens if lowered.endswith(_JS_EXTENSIONS)
            else rust_tokens if lowered.endswith(".rs") else c_tokens)


def scan_packed(path: str, data: bytes, vocabulary: Vocabulary) -> list[int]:
    """Every mention in ``data``, packed ``id << ID_SHIFT | line << LINE_SHIFT | rank``, one per
    name and line (its strongest form), ascending; [] for a binary or oversized blob."""
    if len(data) > MAX_SCANNED_BYTES or b"\0" in data[:8192]:
        return []
    # The leading newline lets a defining first line match like any other (it is line 0's end).
    text = "\n" + data.decode("utf-8", errors="replace")
    form = text_form(path)
    if form is not None:  # a template or config file: only its dynamic uses
        return _strongest(_packed(text_uses(text, form, vocabulary.codes)))
    tokenizer = tokenizer_for(path)
    sites = _site_mentions(path, data, text, vocabulary.codes)
    tokens = tokenizer.findall(text)
    ends = list(accumulate(map(str.count, tokens, repeat("\n"))))  # the line each token ends on
    codes = list(map(vocabulary.codes.get, map(str.rstrip, tokens, repeat(_SUFFIX_CHARS))))
    at = list(compress(count(), codes))  # a code is never 0: ids count from 1
    packed: list[int] = []
    if at:
        hit_codes = list(filter(None, codes))
        lines = compress(ends, codes)  # each hit's line
        kinds = map(_SUFFIX_KIND.get, map(getitem, map(tokens.__getitem__, at), repeat(-1)), repeat(0))
        slots = map(add, map(mul, map(and_, hit_codes, repeat(3)), repeat(4)), kinds)
        ranks = list(map(_RANKS[tokenizer is _tokenizers()[0]].__getitem__, slots))
        used = list(map(ne, ranks, repeat(_DROP)))
        ids = map(lshift, map(add, map(rshift, compress(hit_codes, used), repeat(2)), repeat(-1)), repeat(ID_SHIFT))
        packed = list(map(or_, map(or_, ids, map(lshift, compress(lines, used), repeat(LINE_SHIFT))),
                          compress(ranks, used)))
    hits = zip(map(rshift, packed, repeat(ID_SHIFT)), map(and_, map(rshift, packed, repeat(LINE_SHIFT)),
                                                          repeat(_LINE_MASK)), strict=True)
    dynamic = code_uses(path, text, tokens, ends, hits, vocabulary.names, vocabulary.codes, vocabulary.prefixes)
    if not packed and not sites and not dynamic:
        return []
    return _strongest([*packed, *sites, *_packed(dynamic)])


def _packed(found: list[tuple[int, int, int]]) -> list[int]:
    """(id, line, rank) triples packed as a scan's mentions are."""
    return [number << ID_SHIFT | line << LINE_SHIFT | rank for number, line, rank in found]


def _strongest(packed: list[int]) -> list[int]:
    """The strongest code form and the strongest dynamic form per (name, line), ascending: sorted
    descending, a dict keyed by the value less its rank's low bits (the dynamic bit stays in the
    key) keeps each key's last (lowest) value."""
    descending = sorted(packed, reverse=True)
    strongest = dict(zip(map(rshift, descending, repeat(LINE_SHIFT - 1)), descending, strict=True))
    return list(reversed(strongest.values()))


def _site_mentions(path: str, data: bytes, text: str, codes: dict[str, int]) -> list[int]:
    """The raise and catch sites of a Python or JavaScript/TypeScript blob, packed like its
    mentions (rank ``raise`` or ``catch``), for the names ``codes`` still looks up; [] for any
    other blob, or one without the keywords."""
    lowered = path.lower()
    python, javascript, chains, annotation = _site_patterns()
    if lowered.endswith(_PY_EXTENSIONS):
        pattern, words = python, _PY_SITE_WORDS
    elif lowered.endswith(_JS_EXTENSIONS):
        pattern, words = javascript, _JS_SITE_WORDS
    else:
        return []
    if not any(word in data for word in words):
        return []
    found: list[int] = []
    line, last = 0, 0

    def add(chain: str, end: int, rank: int) -> None:
        nonlocal line, last
        name = chain.rpartition(".")[2].lstrip(" \t")
        code = codes.get(name)
        if code:
            start = end - len(name)
            line += text.count("\n", last, start)
            last = start
            found.append(((code >> 2) - 1) << ID_SHIFT | line << LINE_SHIFT | rank)

    depth, catching = 0, []  # JavaScript: brace depth, and the depths catch blocks opened at
    for match in pattern.finditer(text):
        kind = match.lastgroup
        if kind is None:  # a string or comment
            continue
        if kind == "raise" or kind == "catch":
            add(match[kind], match.end(kind), _RAISE if kind == "raise" else _CATCH)
        elif kind == "caught":
            offset = match.start(kind)
            for chain in chains.finditer(match[kind]):
                add(chain[0], offset + chain.end(), _CATCH)
        elif kind == "block":
            depth += 1
            catching.append(depth)
            annotated = annotation.match(match["param"] or "")
            if annotated:
                add(annotated[1], match.start("param") + annotated.end(1), _CATCH)
        elif kind == "instance":
            if catching:
                add(match[kind], match.end(kind), _CATCH)
        elif kind == "open":
            depth += 1
        else:  # close
            if catching and catching[-1] == depth:
                catching.pop()
            depth = max(0, depth - 1)
    return found


def unpack(value: int) -> tuple[int, int, int]:
    """(id, line, rank) of a packed mention."""
    return value >> ID_SHIFT, (value >> LINE_SHIFT) & _LINE_MASK, value & _RANK_MASK


def scan_blob(
    path: str, data: bytes, names: Iterable[str], *, dynamic: bool = False
) -> list[tuple[str, int, str]]:
    """``scan_packed``'s mentions as (name, line, form), in line order then name order: the
    readable form, for tests and for a person checking a file; the code forms only, unless
    ``dynamic`` (then the dynamic forms only)."""
    vocabulary = Vocabulary(names)
    found = [unpack(value) for value in scan_packed(path, data, vocabulary)]
    return sorted(((vocabulary.names[number], line, FORMS[rank]) for number, line, rank in found
                   if (rank >= DYNAMIC_BIT) == dynamic), key=lambda row: (row[1], row[0]))


class Scanner:
    """Scans blobs one after another against one vocabulary, and stops looking up a name once
    more than ``MAX_KEPT`` lines have used it (checked every ``_RECOUNT_EVERY`` mentions), so time
    and memory stay a few units per kept mention whatever the repository. The importer's thread
    and the scan worker (``scan_worker.py``) both scan through one of these. A name it stops
    looking up is still common in the table: the lines it found before are all there."""

    _RECOUNT_EVERY = 200_000

    def __init__(self, names: Iterable[str]) -> None:
        self.vocabulary = Vocabulary(names)
        self._forgotten: set[int] = set()
        self._counts: Counter[int] = Counter()
        self._since_recount = 0

    def scan(self, path: str, data: bytes) -> list[int]:
        found = scan_packed(path, data, self.vocabulary)
        if found:
            self._counts.update(map(rshift, found, repeat(ID_SHIFT)))
            self._since_recount += len(found)
            if self._since_recount >= self._RECOUNT_EVERY:
                self.recount()
        return found

    def recount(self) -> None:
        self._since_recount = 0
        newly = [number for number, seen in self._counts.items() if seen > MAX_KEPT and number not in self._forgotten]
        self._forgotten.update(newly)
        self.vocabulary.forget(newly)


class MentionTable:
    """The text index's rows, from each scanned file's packed mentions in path order: a name's
    postings (``file << FILE_SHIFT | line << LINE_SHIFT | rank``, ascending, little-endian
    unsigned 64-bit) and its tally. A name seen on more than ``MAX_KEPT`` lines is common:
    counted as ``MAX_KEPT + 1``, no posting listed (so whichever scanner found which lines, and
    whenever one stopped looking a common name up, the rows are the same). ``names`` are the
    defined names; the table numbers them with their dispatch prefixes (``vocabulary_names``), as
    a ``Vocabulary`` does."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = vocabulary_names(names)
        self.paths: list[str] = []
        self._postings: list[int] = []

    def add_file(self, path: str, found: list[int]) -> None:
        """Record the next file (``scan_packed``'s output for it)."""
        self.paths.append(path)
        if found:
            self._postings.extend(map(or_, found, repeat(len(self.paths) << FILE_SHIFT)))

    def name_rows(self) -> Iterator[tuple[str, int, int, bytes]]:
        """(name, total, kept, postings) in name order."""
        keys = self._postings
        keys.sort()  # by name, then file and line: each file's run is already sorted
        postings = array("Q", map(and_, keys, repeat(_POSTING_MASK)))
        if sys.byteorder == "big":
            postings.byteswap()
        start = 0
        while start < len(keys):
            number = keys[start] >> ID_SHIFT
            end = bisect_left(keys, (number + 1) << ID_SHIFT, start)
            if end - start > MAX_KEPT:
                yield self.names[number], MAX_KEPT + 1, 0, b""
            else:
                yield self.names[number], end - start, 1, postings[start:end].tobytes()
            start = end


def read_postings(blob: bytes) -> Iterator[tuple[int, int, str]]:
    """(file, line, form) of a name's postings, as ``MentionTable`` wrote them."""
    packed = array("Q")
    packed.frombytes(blob)
    if sys.byteorder == "big":
        packed.byteswap()
    for value in packed:
        yield value >> FILE_SHIFT, (value >> LINE_SHIFT) & _LINE_MASK, FORMS[value & _RANK_MASK]
