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
  docstring (a triple-quoted string that starts its line) nor a string over 500 characters;
- ``template`` / ``config``: the same words in a tracked template or config file
  (``TEMPLATE_EXTENSIONS``, ``CONFIG_EXTENSIONS``, ``CONFIG_NAMES``), which the provider does
  not graph: the importer scans those too.

A dynamic form is posted beside the line's code form (the rank's ``DYNAMIC_BIT``), never
instead of it: the main pass's postings are exactly what they were.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

DYNAMIC_FORMS = ("decorator", "registry", "export", "getattr", "dispatch", "string", "template", "config")
DYNAMIC_BIT = 8  # a posting's rank: 0..5 the code forms, 8 + index in DYNAMIC_FORMS a dynamic one
MAX_STRING = 500  # a longer string literal is prose, SQL or a template body: its words are not read

TEMPLATE_EXTENSIONS = (".html", ".htm", ".jinja", ".jinja2", ".j2", ".tmpl", ".tpl", ".mako", ".hbs", ".mustache",
                       ".ejs", ".erb", ".twig", ".njk", ".liquid", ".xml")
CONFIG_EXTENSIONS = (".toml", ".cfg", ".ini", ".yaml", ".yml", ".json", ".conf", ".properties")
CONFIG_NAMES = ("setup.cfg", "pyproject.toml", "tox.ini", "setup.py.in", "Makefile", "Procfile")
_LOCKFILE = re.compile(r"(?:^|/)[^/]*lock[^/]*$|(?:^|/)package\.json$", re.IGNORECASE)

_RANK = {form: DYNAMIC_BIT + index for index, form in enumerate(DYNAMIC_FORMS)}
_IDENT = r"[A-Za-z_$][\w$]*"
_CHAIN = _IDENT + r"(?:[ \t]*(?:\.|::|->|\?\.)[ \t]*" + _IDENT + r")*"
_WORDS = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]+")
_HASH = (".py", ".pyi", ".pyw")
_JS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")

_PY_STRING = (r'(?P<prefix>[rRbBuUfF]{0,2})(?P<string>"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\Z)'
              r"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)"
              r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?' + r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?)")
_C_STRING = (r'(?P<prefix>)(?P<string>"[^"\\\n]*(?:\\.[^"\\\n]*)*"?' + r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"
             r"|`[^`\\]*(?:\\[\s\S][^`\\]*)*`?)")
_C_COMMENT = r"//[^\n]*|/\*[^*]*(?:\*(?!/)[^*]*)*(?:\*/|\Z)"
# The code contexts: a decorator line, a one-line list or braces literal, a dict entry line, a
# registering call's arguments, Python's __all__, JavaScript's exports, an import (skipped).
_DECORATOR = r"(?m:^[ \t]*@[ \t]*(?P<decorator>" + _CHAIN + r"))"
_LIST = r"(?<![\w$)\]])\[(?P<list>[^\[\]\n]*)\]"
_BRACES = r"\{(?P<braces>[^{}\n]*)\}"
_ENTRY = (r"(?m:^[ \t]*(?:" + _IDENT + r"|\"[^\"\n]*\"|'[^'\n]*')[ \t]*:[ \t]*(?P<entry>" + _CHAIN
          + r")[ \t]*,[ \t]*$)")
_REGISTERING = (r"(?<![\w$])(?:\w*register\w*|add_\w+|connect|subscribe|append|extend)"
                r"[ \t]*\((?P<call>[^()\n]*)\)")
_PY_ALL = r"(?<![\w$.])__all__[ \t]*(?:\+?=|\.extend[ \t]*\(|\.append[ \t]*\()[ \t]*(?P<all>[\[(]?[^\])]*[\])]?)"
_JS_EXPORT = (r"(?<![\w$.])(?:export[ \t]*\{(?P<exports>[^}]*)\}|export[ \t]+default[ \t]+(?P<default>" + _CHAIN
              + r")[ \t]*;?[ \t]*$|module\.exports[ \t]*=[ \t]*(?:\{(?P<module>[^}]*)\}|(?P<single>" + _CHAIN + r")))")
_JS_IMPORT = r"(?<![\w$.])import[ \t]*\{[^}]*\}"
_CONTEXTS = "|".join((_DECORATOR, _LIST, _BRACES, _ENTRY, _REGISTERING))
_PY_PASS = re.compile(r"#[^\n]*|" + _PY_ALL + "|" + _PY_STRING + "|" + _CONTEXTS)
_JS_PASS = re.compile(_C_COMMENT + "|" + _JS_IMPORT + "|" + _JS_EXPORT + "|" + _C_STRING + "|" + _CONTEXTS,
                      re.MULTILINE)
_C_PASS = re.compile(_C_COMMENT + "|" + _C_STRING + "|" + _CONTEXTS)
# Inside a context: strings (skipped: the string pass reads them) and chains, with what follows.
_INNER = re.compile(r'(?P<string>"[^"\\\n]*(?:\\.[^"\\\n]*)*"?' + r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?|`[^`]*`?)"
                     r"|(?<![\w$.])(?P<chain>" + _CHAIN + r")(?P<suffix>[ \t]*[(=:]?)")
# A region holding these is code (a comprehension, a block, a destructuring), not a literal.
_NOT_LITERAL = re.compile(r"(?<![\w$])(?:for|if|lambda|return|await|yield)(?![\w$])|=|;")
_DESTRUCTURING = re.compile(r"(?:(?<![\w$])(?:const|let|var|for)[ \t]*\(?[ \t]*)\Z")
_GETTER = re.compile(r"(?:(?:get|has|set|del)attr[ \t]*\([^()\n]*,|(?:attrgetter|methodcaller)[ \t]*\()[ \t]*\Z")
_WHOLE = re.compile(r"[ \t]*(?:" + _IDENT + r"[.:])*(" + _IDENT + r")[ \t]*\Z")
_PREFIX = re.compile(r"([A-Za-z_][\w]*_)(?:\{|%|\Z)")
_BEFORE, _AFTER = ".:|", "(.:"
_QUALIFIER = re.compile(r"[ \t]*(?:\.|::|->|\?\.)[ \t]*")


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


def _codeish(word: str, before: str, after: str, whole: bool) -> bool:
    """Whether a word in a string or text file names code: the whole string, an identifier by its
    spelling (an underscore, a capital after the first letter), or beside code punctuation."""
    return (whole or "_" in word.strip("_") or any(c.isupper() for c in word[1:])
            or (before != "" and before in _BEFORE) or (after != "" and after in _AFTER))


class DynamicScan:
    """One blob's dynamic uses, for the names ``codes`` spells (``mentions.Vocabulary.codes``)
    and the dispatch prefixes ``prefixes`` numbers: ``add`` collects (id, line, rank)."""

    def __init__(self, text: str, codes: dict[str, int], prefixes: dict[str, int]) -> None:
        self.text, self.codes, self.prefixes = text, codes, prefixes
        self.found: list[tuple[int, int, int]] = []
        self._line, self._last = 0, 0

    def _line_at(self, offset: int) -> int:
        if offset < self._last:  # contexts come in offset order, but a chain may sit before the last word
            return self.text.count("\n", 0, offset)
        self._line += self.text.count("\n", self._last, offset)
        self._last = offset
        return self._line

    def add(self, name: str, offset: int, form: str) -> None:
        code = self.codes.get(name)
        if code:
            self.found.append(((code >> 2) - 1, self._line_at(offset), _RANK[form]))

    def chains(self, region: str, offset: int, form: str) -> None:
        """Every chain of ``region`` (at ``offset``) that is not called, assigned or a key, as
        ``form``; its strings as strings."""
        for match in _INNER.finditer(region):
            if match["string"] is not None:
                self.quoted(match["string"], offset + match.start("string"), offset + match.start("string"))
                continue
            if match["suffix"].strip():
                continue
            name = _QUALIFIER.split(match["chain"])[-1]
            self.add(name, offset + match.end("chain") - len(name), form)

    def words(self, content: str, offset: int, form: str) -> None:
        """The code-like words of a string's content (or a text file's), as ``form``."""
        whole = _WHOLE.match(content)
        whole_word = whole[1] if whole else None
        for match in _WORDS.finditer(content):
            word = match[0]
            if word not in self.codes or word.startswith("$"):
                continue
            start, end = match.start(), match.end()
            before = content[start - 1] if start else ""
            after = content[end] if end < len(content) else ""
            if _codeish(word, before, after, word == whole_word):
                self.add(word, offset + start, form)

    def quoted(self, quoted: str, start: int, token_start: int) -> None:
        """A string literal ``quoted`` (quotes included) at ``start``, its prefix at ``token_start``."""
        quote = 3 if quoted[:3] in ('"""', "'''") else 1
        line_start = self.text.rfind("\n", 0, token_start) + 1
        if quote == 3 and not self.text[line_start:token_start].strip():
            return  # a docstring, or a string standing as a statement: prose
        content = quoted[quote:len(quoted) - quote] if len(quoted) >= 2 * quote else quoted[quote:]
        if len(content) > MAX_STRING:
            return
        if _GETTER.search(self.text, line_start, token_start):
            whole = _WHOLE.match(content)
            if whole and whole[1] in self.codes:
                self.add(whole[1], start + quote + whole.start(1), "getattr")
                return
            prefix = _PREFIX.match(content)
            if prefix and prefix[1] in self.prefixes:
                self.found.append((self.prefixes[prefix[1]], self._line_at(start), _RANK["dispatch"]))
                return
        self.words(content, start + quote, "string")


def dynamic_mentions(
    path: str, text: str, codes: dict[str, int], prefixes: dict[str, int]
) -> list[tuple[int, int, int]]:
    """(id, line, rank) of every dynamic use in a blob's text (with ``mentions.scan_packed``'s
    leading newline), one per (id, line, rank); [] for a file of no language this pass reads."""
    scan = DynamicScan(text, codes, prefixes)
    form = text_form(path)
    if form is not None:
        scan.words(text, 0, form)
        return scan.found
    lowered = path.lower()
    pattern = _PY_PASS if lowered.endswith(_HASH) else _JS_PASS if lowered.endswith(_JS) else _C_PASS
    for match in pattern.finditer(text):
        kind = match.lastgroup
        if kind is None:  # a comment or an import
            continue
        if kind in ("string", "prefix"):
            scan.quoted(match["string"], match.start("string"), match.start())
        elif kind == "decorator":
            name = _QUALIFIER.split(match[kind])[-1]
            scan.add(name, match.end(kind) - len(name), "decorator")
        elif kind == "all":
            for string in re.finditer(_PY_STRING, match[kind]):
                whole = _WHOLE.match(string["string"][1:-1])
                if whole:
                    scan.add(whole[1], match.start(kind) + string.start("string") + 1 + whole.start(1), "export")
        elif kind in ("exports", "default", "module", "single"):
            scan.chains(match[kind], match.start(kind), "export")
        elif kind == "entry" or _literal(text, match, kind):  # list, braces, a registering call
            scan.chains(match[kind], match.start(kind), "registry")
    return scan.found


def _literal(text: str, match: re.Match[str], kind: str) -> bool:
    """Whether a one-line ``[...]``/``{...}`` region or a registering call's arguments hold
    values (a literal), not code: no comprehension, block, assignment or destructuring."""
    if _NOT_LITERAL.search(match[kind]):
        return False
    if kind == "call":
        return True
    line_start = text.rfind("\n", 0, match.start()) + 1
    return not _DESTRUCTURING.search(text, line_start, match.start())
