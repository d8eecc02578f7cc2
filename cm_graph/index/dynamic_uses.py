"""The text index's third pass: the uses of a defined name that no call graph sees, because
they spell the name rather than call it.

A function emitted by name into generated code (jinja2's ``compiler.py`` writes
``"markup_join"`` into the template's code), exported in ``__all__``, looked up with
``getattr(obj, "name")`` or by a dispatch prefix (``getattr(self, f"visit_{kind}")``), used as a
decorator or put into a registry (a dict or list of callables, a ``register(func)`` call), or
named in a template or config file is used, though no caller reaches it and no code line calls
it. The main pass (``mentions.py``) skips strings by its rules; this one reads them, and a few
code contexts, and tags each line with its *dynamic form*, strongest first (``DYNAMIC_FORMS``):

- ``decorator``: the name is the last identifier of the chain right after a line's ``@``;
- ``registry``: the name (or the last identifier of a chain), not called, is an element of a
  ``[...]`` list literal or a ``{...}`` dict/set/object literal on one line, the value of a
  one-line dict entry (``"abs": abs,``), or an argument of a registering call
  (``register``/``add_``/``connect``/``subscribe``/``append``...);
- ``export``: a string in Python's ``__all__`` (``= [...]``, ``+= [...]``, ``.extend(...)``),
  a name in JavaScript's ``export { ... }``, ``export default x`` or ``module.exports = {...}``;
- ``getattr``: the whole string named by ``getattr``/``hasattr``/``setattr``/``delattr``,
  ``attrgetter`` or ``methodcaller``;
- ``dispatch``: a dispatch prefix (a name's leading part up to an underscore, which at least two
  defined names share: ``visit_``) that such a call's string starts with, followed by a
  placeholder (``{``, ``%``) or the string's end (``"visit_" + kind``); posted under the prefix;
- ``string``: any other string literal naming it as code would: the whole string, or a word
  that is an identifier by its spelling (an underscore, or a capital after its first letter),
  or one beside code punctuation (``name(``, ``.name``, ``mod:name``, ``x|name``); never a
  docstring (a triple-quoted string that starts its line and follows no opener or operator: not
  an argument, an element or an operand) nor a string over 2,000 characters;
- ``template`` / ``config``: the same words in a tracked template or config file
  (``TEMPLATE_EXTENSIONS``, ``CONFIG_EXTENSIONS``, ``CONFIG_NAMES``), which the provider does
  not graph: the importer scans those too.

A dynamic form is posted beside the line's code form (the rank's ``DYNAMIC_BIT``), never
instead of it: the main pass's postings are exactly what they were.

**Why it is shaped like this.** It rides on the main pass: the strings are the main tokenizer's
string tokens (their lines from its newline counts, the ``getattr`` before one from the tokens
before it on its line), and the code contexts are checked only on the lines of the main pass's
hits that hold a bracket, an ``@``, a registering word or a trailing comma. Only ``__all__`` and
JavaScript's exports take a regular expression over the blob, and only when it spells them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import compress, count, repeat

DYNAMIC_FORMS = ("decorator", "registry", "export", "getattr", "dispatch", "string", "template", "config")
DYNAMIC_BIT = 8  # a posting's rank: 0..5 the code forms, 8 + index in DYNAMIC_FORMS a dynamic one
MAX_STRING = 2000  # a longer string literal is prose or a data blob: its words are not read

TEMPLATE_EXTENSIONS = (".html", ".htm", ".jinja", ".jinja2", ".j2", ".tmpl", ".tpl", ".mako", ".hbs", ".mustache",
                       ".ejs", ".erb", ".twig", ".njk", ".liquid", ".xml")
CONFIG_EXTENSIONS = (".toml", ".cfg", ".ini", ".yaml", ".yml", ".json", ".conf", ".properties")
CONFIG_NAMES = ("setup.cfg", "pyproject.toml", "tox.ini", "setup.py.in", "Makefile", "Procfile")
_LOCKFILE = re.compile(r"(?:^|/)[^/]*lock[^/]*$|(?:^|/)package\.json$", re.IGNORECASE)

_RANK = {form: DYNAMIC_BIT + index for index, form in enumerate(DYNAMIC_FORMS)}
IDENT = r"[A-Za-z_$][\w$]*"  # an identifier: the main lexer's too (mentions.py imports it)
_CHAIN = IDENT + r"(?:[ \t]*(?:\.|::|->|\?\.)[ \t]*" + IDENT + r")*"
_WORDS = re.compile(r"[A-Za-z_$](?<![\w$].)[\w$]+")  # from a word's start: the lookbehind after its first letter
_HASH = (".py", ".pyi", ".pyw")
_JS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_QUOTES = ('"', "'", "`")
_GETTERS = frozenset({"getattr(", "hasattr(", "setattr(", "delattr(", "attrgetter(", "methodcaller("})
_OPENS_VALUE = ("(", "[", "{", ",", "=", "+", "%")  # a string after one of these is a value, not prose


def _word(word: str) -> str:
    """``word`` not right after a word character, ``$`` or ``.``, its first letter first."""
    return re.escape(word[0]) + r"(?<![\w$.]" + re.escape(word[0]) + ")" + re.escape(word[1:])


_PY_ALL = re.compile(_word("__all__") + r"[ \t]*(?:\+?=|\.extend[ \t]*\(|\.append[ \t]*\()[ \t]*"
                     r"(?P<all>[\[(]?[^\])]*[\])]?)")
_JS_EXPORT = re.compile(
    "(?:" + _word("export") + r"[ \t]*\{(?P<exports>[^}]*)\}|" + _word("export") + r"[ \t]+default[ \t]+"
    r"(?P<default>" + _CHAIN + r")[ \t]*;?[ \t]*$|" + _word("module") + r"\.exports[ \t]*=[ \t]*"
    r"(?:\{(?P<module>[^}]*)\}|(?P<single>" + _CHAIN + r")))", re.MULTILINE)
_CHAIN_IN = re.compile(r'"[^"\n]*"?|' + r"'[^'\n]*'?|(?<![\w$.])(?P<chain>" + _CHAIN + r")(?P<suffix>[ \t]*[(=:]?)")
_QUALIFIER = re.compile(r"[ \t]*(?:\.|::|->|\?\.)[ \t]*")
# A line of a hit worth a closer look: a bracket, a decorator, a registering word, a trailing comma.
_CANDIDATE = re.compile(r"[@\[{]|register|connect|subscribe|append|extend|add_|,[ \t]*\r?$")
_DECORATOR = re.compile(r"[ \t]*@[ \t]*(" + _CHAIN + ")")
_ENTRY = re.compile(r"[ \t]*(?:" + IDENT + r"|\"[^\"\n]*\"|'[^'\n]*')[ \t]*:[ \t]*(" + _CHAIN + r")[ \t]*,[ \t]*\r?\Z")
_REGISTERING = re.compile(r"(?<![A-Za-z0-9$])_?(?:register\w*|add_\w+|connect|subscribe|append|extend)[ \t]*\Z")
_IMPORTING = re.compile(r"[ \t]*(?:import(?![\w$])|from(?![\w$])|export[ \t]*\{)")
# A region holding these is code (a comprehension, a block, an assignment), not a literal.
_NOT_LITERAL = re.compile(r"(?<![\w$])(?:for|if|lambda|return|await|yield)(?![\w$])|=|;")
_DESTRUCTURING = re.compile(r"(?<![\w$])(?:const|let|var|for)[ \t]*\(?[ \t]*\Z")
_SIGNATURE_STRING = re.compile(r'"([^"\\\n]*)"|' + r"'([^'\\\n]*)'")
_WHOLE = re.compile(r"[ \t]*(?:" + IDENT + r"[.:])*(" + IDENT + r")[ \t]*\Z")
_PREFIX = re.compile(r"([A-Za-z_][\w]*_)(?:\{|%|\Z)")
_STARTS_PREFIX = re.compile(r"[\"'`][A-Za-z_]\w*_(?:\{|%|[\"'`])")
_BEFORE, _AFTER = ".:|", "(.:"


def dispatch_prefixes(names: Iterable[str]) -> list[str]:
    """The dispatch prefixes of ``names``, sorted: each leading part up to and with an underscore
    (at least three characters, short of the whole name) that two or more names share."""
    seen: dict[str, int] = {}
    for name in set(names):
        at = name.find("_", 2)
        while 0 < at < len(name) - 1:
            prefix = name[:at + 1]
            seen[prefix] = seen.get(prefix, 0) + 1
            at = name.find("_", at + 1)
    return sorted(prefix for prefix, shared in seen.items() if shared >= 2)


def is_text_file(path: str) -> bool:
    """Whether the importer scans a tracked file no node names, as a template or config file."""
    return text_form(path) is not None


def text_form(path: str) -> str | None:
    """``template`` or ``config`` for a file of such a kind (a lockfile or ``package.json`` is
    neither: its names are packages), else None."""
    lowered = path.lower()
    if _LOCKFILE.search(path):
        return None
    if lowered.endswith(TEMPLATE_EXTENSIONS):
        return "template"
    if lowered.endswith(CONFIG_EXTENSIONS) or path.rsplit("/", 1)[-1] in CONFIG_NAMES:
        return "config"
    return None


Found = list[tuple[int, int, int]]  # (id, line, rank)


def _words(content: str, line: int, form: str, codes: dict[str, int], found: Found) -> None:
    """The code-like words of a string's content (or a text file's) starting at ``line``: the
    whole string, an identifier by its spelling (an underscore, a capital after the first
    letter), or a word beside code punctuation."""
    whole = _WHOLE.match(content)
    whole_word = whole[1] if whole else None
    rank = _RANK[form]
    for match in _WORDS.finditer(content):
        word = match[0]
        code = codes.get(word)
        if not code:
            continue
        start, end = match.start(), match.end()
        before = content[start - 1] if start else ""
        after = content[end] if end < len(content) else ""
        if (word == whole_word or "_" in word.strip("_") or any(c.isupper() for c in word[1:])
                or (before != "" and before in _BEFORE) or (after != "" and after in _AFTER)):
            found.append(((code >> 2) - 1, line + content.count("\n", 0, start), rank))


def text_uses(text: str, form: str, codes: dict[str, int]) -> Found:
    """The names a template or config file's text (with a leading newline) spells as code."""
    found: Found = []
    _words(text, 0, form, codes, found)
    return found


def code_uses(
    path: str, text: str, tokens: list[str], ends: list[int], hits: Iterable[tuple[int, int]],
    names: tuple[str, ...], codes: dict[str, int], prefixes: dict[str, int],
) -> Found:
    """The dynamic uses in a code blob: its string tokens (``tokens``, with ``ends``: the line
    each ends on), the code contexts of the main pass's ``hits`` ((id, line) of each name's code
    use), its ``__all__`` or JavaScript exports; ``names`` by id, ``codes`` and ``prefixes`` as
    ``mentions.Vocabulary`` holds them."""
    found: Found = []
    hashed = path.lower().endswith(_HASH)
    exported = _all_lines(text) if hashed and "__all__" in text else ()
    for at in _named_strings(tokens, codes):
        _string(tokens, ends, at, exported, codes, prefixes, found)
    # A defining line is one token to the end of its parameters: the strings of its annotations.
    for at in compress(count(), map(str.startswith, tokens, repeat("\n"))):
        token = tokens[at]
        if len(token) > 1 and ('"' in token or "'" in token):
            first = ends[at] - token.count("\n")
            for quoted in _SIGNATURE_STRING.finditer(token):
                content = quoted[1] if quoted[1] is not None else quoted[2]
                _words(content, first + token.count("\n", 0, quoted.start()), "string", codes, found)
    lines: list[str] | None = None
    candidate: dict[int, bool] = {}
    for number, line in hits:
        if lines is None:
            lines = text.split("\n")
        worth = candidate.get(line)
        if worth is None:
            worth = candidate[line] = _CANDIDATE.search(lines[line]) is not None
        if worth:
            form = _context(lines[line], names[number], hashed)
            if form is not None:
                found.append((number, line, _RANK[form]))
    if path.lower().endswith(_JS) and ("export" in text or "module.exports" in text):
        for match in _JS_EXPORT.finditer(text):
            group = match.lastgroup
            assert group is not None
            base = text.count("\n", 0, match.start(group))
            for chain in _CHAIN_IN.finditer(match[group]):
                if chain["chain"] is not None and not chain["suffix"].strip():
                    code = codes.get(_QUALIFIER.split(chain["chain"])[-1])
                    if code:
                        found.append(((code >> 2) - 1, base + match[group].count("\n", 0, chain.start()),
                                      _RANK["export"]))
    return found


def _named_strings(tokens: list[str], codes: dict[str, int]) -> list[int]:
    """The indices of the string tokens that hold a word ``codes`` spells or start with a dispatch
    prefix, in order: most strings hold neither, and are passed over on a test of their words."""
    named = []
    for at in compress(count(), map(str.startswith, tokens, repeat(_QUOTES))):
        token = tokens[at]
        if not codes.keys().isdisjoint(_WORDS.findall(token)) or _STARTS_PREFIX.match(token):
            named.append(at)
    return named


def _all_lines(text: str) -> frozenset[int]:
    """The lines Python's ``__all__`` assignments (and ``+=``, ``.extend``, ``.append``) span."""
    spanned: set[int] = set()
    for match in _PY_ALL.finditer(text):
        first = text.count("\n", 0, match.start("all"))
        spanned.update(range(first, first + match["all"].count("\n") + 1))
    return frozenset(spanned)


def _string(
    tokens: list[str], ends: list[int], at: int, exported: Iterable[int], codes: dict[str, int],
    prefixes: dict[str, int], found: Found,
) -> None:
    """One string token's dynamic uses: an export in ``__all__``, a getattr name or dispatch
    prefix, else its code-like words; none for a docstring or an overlong string."""
    token = tokens[at]
    quote = 3 if token[:3] in ('"""', "\'\'\'") else 1
    closed = len(token) >= 2 * quote and token.endswith(token[:quote])
    content = token[quote:len(token) - quote] if closed else token[quote:]
    if len(content) > MAX_STRING:
        return
    line = ends[at] - token.count("\n")
    if quote == 3 and at and tokens[at - 1].startswith("\n") and (
            at < 2 or not tokens[at - 2].rstrip().endswith(_OPENS_VALUE)):
        return  # a docstring, or a string standing as a statement: prose
    whole = _WHOLE.match(content)
    if whole is not None and line in exported:
        code = codes.get(whole[1])
        if code:
            found.append(((code >> 2) - 1, line, _RANK["export"]))
        return
    back = at - 1
    while back >= max(0, at - 4) and not tokens[back].startswith("\n"):
        if tokens[back].lstrip(".:->?").replace(" ", "").replace("\t", "") in _GETTERS:  # `operator.attrgetter(`
            code = codes.get(whole[1]) if whole is not None else None
            if code:
                found.append(((code >> 2) - 1, line, _RANK["getattr"]))
                return
            prefix = _PREFIX.match(content)
            if prefix and prefix[1] in prefixes:
                found.append((prefixes[prefix[1]], line, _RANK["dispatch"]))
                return
            break
        back -= 1
    _words(content, line, "string", codes, found)


def _context(text: str, name: str, hashed: bool) -> str | None:
    """``decorator`` or ``registry`` when a code line uses ``name`` so, else None (an import
    list or an ``export { ... }`` list is no registry: the export pass reads the latter)."""
    if _IMPORTING.match(text):
        return None
    if text.lstrip().startswith("@"):
        decorator = _DECORATOR.match(text)
        if decorator and _QUALIFIER.split(decorator[1])[-1] == name:
            return "decorator"
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        bounded = (not start or not (text[start - 1].isalnum() or text[start - 1] in "_$")) and (
            end >= len(text) or not (text[end].isalnum() or text[end] in "_$"))
        if bounded and _held(text, start, end, hashed):
            return "registry"
        start = text.find(name, end)
    return None


def _unmatched(text: str, positions: range, nesting: str, ending: str) -> int:
    """The first of ``positions`` holding a bracket of ``ending`` no bracket of ``nesting`` met on
    the way pairs with: the literal holding a name, walking out from it (-1: none)."""
    depth = 0
    for at in positions:
        if text[at] in nesting:
            depth += 1
        elif text[at] in ending:
            if not depth:
                return at
            depth -= 1
    return -1


def _held(text: str, start: int, end: int, hashed: bool) -> bool:
    """Whether the name at ``start:end`` of a line is a value held by a literal or a registering
    call: an element of a one-line list or braces literal, an argument of ``register(...)``,
    ``connect(...)``..., or the value of a dict entry line (``"abs": abs,``); never called,
    assigned or a key."""
    after = text[end:].lstrip(" \t")[:1]
    if after in ("(", "=") or (after == ":" and not text[end:].lstrip(" \t").startswith("::")):
        return False
    opener = _unmatched(text, range(start - 1, -1, -1), ")]}", "([{")
    if opener < 0:
        entry = _ENTRY.match(text)
        return entry is not None and entry.end(1) == end
    close = _unmatched(text, range(end, len(text)), "([{", ")]}")
    close = len(text) if close < 0 else close
    if _NOT_LITERAL.search(text, opener + 1, close):
        return False
    kind, before = text[opener], text[opener - 1] if opener else ""
    if kind == "(":
        return _REGISTERING.search(text, 0, opener) is not None
    if kind == "[" and (before.isalnum() or before in "_$)]"):
        return False  # a subscript: `Dict[str, X]`
    return _DESTRUCTURING.search(text, 0, opener) is None
