"""The text index's lexical rules, a character at a time: the definition ``mentions.scan_packed``
(one regular expression and C-level iteration) is held to.

It walks the text once, the way the module docstring of ``cm_graph.index.mentions`` states the
rules: strings and comments are skipped, a defining or declaring line start is skipped up to its
name or parameter list's end, and every identifier of two or more characters is judged by what
is right before and after it. Written for clarity, not speed; it shares no code with the scanner
beyond the word lists.
"""

from __future__ import annotations

from collections.abc import Iterable

from cm_graph.index import mentions

FORMS = mentions.FORMS
_MODIFIERS = ("export", "pub", "async", "static", "default", "public", "private", "protected", "override",
              "unsafe", "extern", "inline", "declare", "abstract")
_DECLARING = ("class", "struct", "enum", "trait", "interface", "type", "impl", "module", "namespace", "const",
              "let", "var", "macro_rules!")
_BEFORE_A_REGEX = "(,=:[!&|?{};"  # punctuation after which a `/` starts a JavaScript regex literal
_QUALIFIERS = ("::", "->", "?.", ".")


def _word_start(ch: str) -> bool:
    return ch.isascii() and (ch.isalpha() or ch in "_$")


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def _family(path: str) -> str:
    lowered = path.lower()
    if lowered.endswith(mentions._HASH_LANGUAGES):
        return "hash"
    if lowered.endswith(mentions._JS_EXTENSIONS):
        return "js"
    return "rust" if lowered.endswith(".rs") else "c"


def reference_scan(path: str, data: bytes, names: Iterable[str]) -> list[tuple[str, int, str]]:
    """(name, line, form) of every mention, one per name and line (the strongest), in line then
    name order, as the rules define them."""
    if len(data) > mentions.MAX_SCANNED_BYTES or b"\0" in data[:8192]:
        return []
    wanted = set(names)
    family = _family(path)
    text = "\n" + data.decode("utf-8", errors="replace")
    best: dict[tuple[str, int], int] = {}
    line = 0
    at = 0
    while at < len(text):
        ch = text[at]
        raw = _rust_raw_end(text, at) if family == "rust" else None
        if raw is not None:
            line += text.count("\n", at, raw)
            at = raw
            continue
        if _word_start(ch) and not (at > 0 and _word_char(text[at - 1])):
            end = _identifier_end(text, at)
            if end - at >= 2:
                after = _suffix_end(text, end)
                _judge(best, wanted, text[at:end], text[end:after], qualified=False, line=line, family=family)
                at = after
                continue
        qualifier = next((q for q in _QUALIFIERS if text.startswith(q, at)), None)
        if qualifier is not None:
            start = at + len(qualifier)
            if start < len(text) and _word_start(text[start]):
                end = _identifier_end(text, start)
                if end - start >= 2:
                    after = _suffix_end(text, end)
                    _judge(best, wanted, text[start:end], text[end:after], qualified=True, line=line, family=family)
                    at = after
                    continue
        if ch == "\n":
            end = _line_start_end(text, at, family)
            line += text.count("\n", at, end)
            at = end
            continue
        noise = _noise_end(text, at, family)
        if noise is not None:
            line += text.count("\n", at, noise)
            at = noise
            continue
        at += 1
    _sites(path, data, text, wanted, best)
    return sorted(((name, ln, FORMS[rank]) for (name, ln), rank in best.items()), key=lambda row: (row[1], row[0]))


_WS = " \t\r\n"


def _sites(path: str, data: bytes, text: str, wanted: set[str], best: dict[tuple[str, int], int]) -> None:
    """Raise and catch sites (Python; JavaScript/TypeScript), a second walk that skips the same
    strings and comments and nothing else: at each character, a string or comment, else a site's
    keyword (not right after a word character, ``$`` or ``.``), else (JavaScript) a brace."""
    lowered = path.lower()
    if lowered.endswith((".py", ".pyi", ".pyw")):
        language, words = "py", ("raise", "except")
    elif lowered.endswith(mentions._JS_EXTENSIONS):
        language, words = "js", ("throw", "catch")
    else:
        return
    if not any(word.encode() in data for word in words):
        return
    family = "hash" if language == "py" else "js"
    raise_rank, catch_rank = FORMS.index("raise"), FORMS.index("catch")

    def record(last: int, end: int, rank: int) -> None:
        name = text[last:end]
        if name in wanted:
            key = (name, text.count("\n", 0, last))
            best[key] = min(rank, best.get(key, rank))

    depth, catching = 0, []
    at = 0
    while at < len(text):
        noise = _noise_end(text, at, family)
        if noise is not None:
            at = noise
            continue
        if not (at > 0 and (_word_char(text[at - 1]) or text[at - 1] == ".")):
            site = _py_site(text, at) if language == "py" else _js_site(text, at)
            if site is not None:
                end, found, block = site
                for last, name_end, is_raise in found:
                    if is_raise or block or catching or language == "py":
                        record(last, name_end, raise_rank if is_raise else catch_rank)
                if block:
                    depth += 1
                    catching.append(depth)
                at = end
                continue
        if language == "js" and text[at] == "{":
            depth += 1
        elif language == "js" and text[at] == "}":
            if catching and catching[-1] == depth:
                catching.pop()
            depth = max(0, depth - 1)
        at += 1


def _chain_end(text: str, at: int) -> tuple[int, int]:
    """(end, start of its last identifier) of a dotted chain at a word start: identifiers joined by
    ``.`` with spaces or tabs around it."""
    end, last = _identifier_end(text, at), at
    while True:
        dot = _skip(text, end, " \t")
        if text[dot:dot + 1] == ".":
            after = _skip(text, dot + 1, " \t")
            if after < len(text) and _word_start(text[after]):
                last, end = after, _identifier_end(text, after)
                continue
        return end, last


def _is_word_start(text: str, at: int) -> bool:
    return at < len(text) and _word_start(text[at])


def _py_site(text: str, at: int) -> tuple[int, list[tuple[int, int, bool]], bool] | None:
    """``raise`` + spaces + a chain (raised), or ``except``/``except*`` + a chain or a
    parenthesised list of chains, commas and whitespace only (each caught)."""
    if text.startswith("raise", at):
        after = _skip(text, at + 5, " \t")
        if after > at + 5 and _is_word_start(text, after):
            end, last = _chain_end(text, after)
            return end, [(last, end, True)], False
        return None
    if not text.startswith("except", at):
        return None
    after = at + 6 + (text[at + 6:at + 7] == "*")
    if after < len(text) and _word_char(text[after]):
        return None
    start = _skip(text, after, " \t")
    if _is_word_start(text, start):
        end, last = _chain_end(text, start)
        return end, [(last, end, False)], False
    if text[start:start + 1] != "(":
        return None
    found = []
    inside = start + 1
    while inside < len(text):
        if text[inside] in _WS + ",":
            inside += 1
        elif text[inside] == ")":
            return inside + 1, found, False
        elif _word_start(text[inside]):
            end, last = _chain_end(text, inside)
            found.append((last, end, False))
            inside = end
        else:
            return None
    return None


def _js_site(text: str, at: int) -> tuple[int, list[tuple[int, int, bool]], bool] | None:
    """``throw new`` + a chain (raised); ``catch`` [``(param)``] ``{`` opening a catch block (a
    ``param`` of the form ``e: Chain`` catches it); ``instanceof`` + a chain (caught inside a catch
    block only)."""
    for word in ("throw", "instanceof"):
        if text.startswith(word, at):
            after = _skip(text, at + len(word), " \t")
            if after == at + len(word):
                return None
            if word == "throw":
                if not text.startswith("new", after):
                    return None
                start = _skip(text, after + 3, " \t")
                if start == after + 3:
                    return None
                after = start
            if not _is_word_start(text, after):
                return None
            end, last = _chain_end(text, after)
            return end, [(last, end, word == "throw")], False
    if not text.startswith("catch", at) or (at + 5 < len(text) and _word_char(text[at + 5])):
        return None
    start = _skip(text, at + 5, " \t")
    found = []
    if text[start:start + 1] == "(":
        close = start + 1
        while close < len(text) and text[close] not in "()":
            close += 1
        if close >= len(text) or text[close] != ")":
            return None
        annotated = _annotated(text, start + 1, close)
        if annotated is not None:
            found.append(annotated)
        start = close + 1
    brace = _skip(text, start, _WS)
    if text[brace:brace + 1] != "{":
        return None
    return brace + 1, found, True


def _annotated(text: str, start: int, close: int) -> tuple[int, int, bool] | None:
    """The caught chain of a catch parameter ``e: Chain`` between ``start`` and ``close``."""
    at = _skip(text, start, _WS)
    if at >= close or not _word_start(text[at]):
        return None
    at = _skip(text, _identifier_end(text, at), _WS)
    if text[at:at + 1] != ":":
        return None
    at = _skip(text, at + 1, _WS)
    if at >= close or not _word_start(text[at]):
        return None
    end, last = _chain_end(text, at)
    if _skip(text, end, _WS) != close:
        return None
    return last, end, False


def _identifier_end(text: str, at: int) -> int:
    end = at + 1
    while end < len(text) and _word_char(text[end]):
        end += 1
    return end


def _suffix_end(text: str, end: int) -> int:
    """Where a call, assignment or colon right after an identifier ends (spaces and tabs before
    it belong to it); ``end`` itself when none follows."""
    after = end
    while after < len(text) and text[after] in " \t":
        after += 1
    rest = text[after:after + 2]
    if rest.startswith("("):
        return after + 1
    if rest[:1] == "!" and rest[1:2] and rest[1] in "([{":
        return after + 2
    if rest.startswith("=") and rest[1:2] not in ("=", ">"):
        return after + 1
    if rest.startswith(":") and rest[1:2] not in (":", "="):
        return after + 1
    return end


def _judge(best: dict[tuple[str, int], int], wanted: set[str], name: str, suffix: str, *,
           qualified: bool, line: int, family: str) -> None:
    if name not in wanted:
        return
    last = suffix[-1:] if suffix else ""
    if last == "=":
        return  # an assignment target or keyword argument
    call = last in ("(", "[", "{")
    if qualified:
        rank = FORMS.index("qualified_call" if call else "qualified")
    else:
        if last == ":" and family != "hash":
            return  # an object key, label or annotated parameter
        if call:
            rank = FORMS.index("call")
        elif name in mentions._KEYWORDS:
            return  # the reserved word itself
        else:
            rank = FORMS.index("name")
    key = (name, line)
    best[key] = min(rank, best.get(key, rank))


def _line_start_end(text: str, at: int, family: str) -> int:
    """The end of the token a newline at ``at`` starts: a defining or declaring line's head, or
    just the newline and the next line's indentation."""
    start = at + 1
    while start < len(text) and text[start] in " \t":
        start += 1
    indented = start
    while True:  # modifiers, each followed by spaces or tabs
        word = next((m for m in _MODIFIERS if text.startswith(m, start) and text[start + len(m):start + len(m) + 1]
                     in (" ", "\t")), None)
        if word is None:
            break
        start = _skip(text, start + len(word), " \t")
    end = _defining_end(text, start, family)
    if end is None:
        end = _declaring_end(text, start)
    if end is None and family == "hash":
        end = _module_path_end(text, start)
    return end if end is not None else indented


def _module_path_end(text: str, at: int) -> int | None:
    """A Python import's module path (``from a.b`` before `` import``, or ``import a.b``)."""
    for word in ("from", "import"):
        if not text.startswith(word, at):
            continue
        path = _skip(text, at + len(word), " \t")
        if path == at + len(word):
            continue
        end = path
        while end < len(text) and (_word_char(text[end]) or text[end] == "."):
            end += 1
        if end == path:
            continue
        if word == "import":
            return end
        after = _skip(text, end, " \t")
        if after > end and text.startswith("import", after) and not (
                after + 6 < len(text) and _word_char(text[after + 6])):
            return end
    return None


def _skip(text: str, at: int, chars: str) -> int:
    while at < len(text) and text[at] in chars:
        at += 1
    return at


def _declaring_end(text: str, at: int) -> int | None:
    for word in _DECLARING:
        if text.startswith(word, at):
            after = _skip(text, at + len(word), " \t*")
            if after > at + len(word) and after < len(text) and _word_start(text[after]):
                return _identifier_end(text, after)
    return None


def _defining_end(text: str, at: int, family: str) -> int | None:
    if family == "hash":
        if not text.startswith("def", at):
            return None
        name = _skip(text, at + 3, " \t")
        if name == at + 3 or name >= len(text) or not _word_start(text[name]):
            return None
        opening = _skip(text, _identifier_end(text, name), " \t")
        return _parameters_end(text, opening)
    for word in ("function*", "function", "func", "fn"):
        if text.startswith(word, at) and text[at + len(word):at + len(word) + 1] in (" ", "\t"):
            after = _skip(text, at + len(word), " \t")
            receiver = _receiver_end(text, after)
            for start in (after,) if receiver is None else (receiver, after):
                opening = start
                while opening < len(text) and text[opening] not in "(\n":
                    opening += 1
                end = _parameters_end(text, opening)
                if end is not None:
                    return end
            return None
    return None


def _receiver_end(text: str, at: int) -> int | None:
    """A Go method's receiver ``(r *T)`` and the spaces after it, if one is there."""
    if not text.startswith("(", at):
        return None
    close = at + 1
    while close < len(text) and text[close] not in "()\n":
        close += 1
    if close >= len(text) or text[close] != ")":
        return None
    return _skip(text, close + 1, " \t")


def _parameters_end(text: str, at: int) -> int | None:
    """The end of a parameter list opening at ``at`` (found by parentheses alone, one level of
    nesting, over lines too; an unclosed list ends where a deeper one would start)."""
    if not text.startswith("(", at):
        return None
    at += 1
    while at < len(text):
        ch = text[at]
        if ch == ")":
            return at + 1
        if ch == "(":
            close = at + 1
            while close < len(text) and text[close] not in "()":
                close += 1
            if close >= len(text) or text[close] != ")":
                return at
            at = close + 1
            continue
        at += 1
    return at


def _noise_end(text: str, at: int, family: str) -> int | None:
    """The end of a string or comment starting at ``at``, or None when none does."""
    if family == "hash":
        if text.startswith("#", at):
            return _line_end(text, at)
        for triple in ('"""', "'''"):
            if text.startswith(triple, at):
                close = text.find(triple, at + 3)
                return len(text) if close < 0 else close + 3
        if text[at] in "\"'":
            return _one_line_string_end(text, at)
        return None
    if text.startswith("//", at):
        return _line_end(text, at)
    if text.startswith("/*", at):
        close = text.find("*/", at + 2)
        return len(text) if close < 0 else close + 2
    if family == "js" and text[at] == "/":
        regex = _regex_literal_end(text, at)
        if regex is not None:
            return regex
    if text[at] == "`":
        end = at + 1
        while end < len(text):
            if text[end] == "`":
                return end + 1
            if text[end] == "\\":
                if end + 1 == len(text):
                    return end  # a final backslash escapes nothing: the string ends before it
                end += 2
                continue
            end += 1
        return end
    if text[at] == '"':
        return _one_line_string_end(text, at)
    if text[at] == "'":
        if family == "rust":
            return _rust_char_end(text, at)
        return _one_line_string_end(text, at)
    return None


def _regex_literal_end(text: str, at: int) -> int | None:
    """A JavaScript regex literal at ``at``: after punctuation that cannot end an operand (one
    space between allowed) or after ``return ``, closed by an unescaped ``/`` outside a character
    class on the same line; None when the ``/`` is division."""
    before = text[at - 1:at]
    if not (before and before in _BEFORE_A_REGEX or before == " " and text[at - 2:at - 1]
            and text[at - 2] in _BEFORE_A_REGEX or text[max(0, at - 7):at] == "return "):
        return None
    end = at + 1
    while end < len(text):
        ch = text[end]
        if ch == "\\":
            if end + 1 >= len(text) or text[end + 1] == "\n":
                return None
            end += 2
        elif ch == "[":
            end += 1
            while end < len(text) and text[end] != "]":
                if text[end] == "\n" or (text[end] == "\\" and (end + 1 >= len(text) or text[end + 1] == "\n")):
                    return None
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                return None
            end += 1
        elif ch == "/":
            if end == at + 1:
                return None
            end += 1
            while end < len(text) and text[end].isascii() and text[end].isalpha():
                end += 1
            return end
        elif ch == "\n":
            return None
        else:
            end += 1
    return None


def _rust_raw_end(text: str, at: int) -> int | None:
    """A Rust raw string (``r"..."``, ``br#"..."#``, up to three ``#``) at ``at``, or None."""
    start = at + 1 if text.startswith("br", at) else at
    if not text.startswith("r", start):
        return None
    hashes = 0
    while start + 1 + hashes < len(text) and text[start + 1 + hashes] == "#":
        hashes += 1
    quote = start + 1 + hashes
    if hashes > 3 or quote >= len(text) or text[quote] != '"':
        return None
    close = text.find('"' + "#" * hashes, quote + 1)
    return len(text) if close < 0 else close + 1 + hashes


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _one_line_string_end(text: str, at: int) -> int:
    quote = text[at]
    end = at + 1
    while end < len(text) and text[end] != "\n":
        if text[end] == "\\" and end + 1 < len(text) and text[end + 1] != "\n":
            end += 2
            continue
        if text[end] == "\\":
            break
        if text[end] == quote:
            return end + 1
        end += 1
    return end


def _rust_char_end(text: str, at: int) -> int | None:
    """A Rust character literal (``'x'``, ``'\\n'``, ``'\\u{1F600}'``); a lifetime is none."""
    if text[at + 1:at + 2] == "\\":
        close = at + 2
        while close < len(text) and text[close] not in "'\n":
            close += 1
        return close + 1 if close < len(text) and text[close] == "'" else None
    if at + 2 < len(text) and text[at + 1] not in "'\\\n" and text[at + 2] == "'":
        return at + 3
    return None
