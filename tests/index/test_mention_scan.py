"""The text index's scanner stays what its definition says while it gets cheaper (issue 20's
build-time target).

``scan_blob`` is defined line by line: every line not inside a multi-line string or block
comment, every graph name among its identifiers, judged by ``_strongest_form``. The scanner
takes shortcuts (lines no mention can be on are emptied before tokenizing); these tests hold it
to that definition on tricky lines and on real code (this package's own sources), so the index
it writes keeps its bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import cm_graph
from cm_graph.index import mentions
from cm_graph.index.mentions import scan_blob


def by_definition(path: str, data: bytes, names: frozenset[str]) -> Iterator[tuple[str, int, str]]:
    """``scan_blob``'s rows computed the slow way, one line and one name at a time."""
    text = data.decode("utf-8", errors="replace")
    hashed = path.lower().endswith(mentions._HASH_LANGUAGES)
    inside = mentions._block_lines(text, mentions._HASH_BLOCKS if hashed else mentions._C_BLOCKS)
    for index, line in enumerate(text.split("\n")):
        if index + 1 in inside:
            continue
        for name in sorted(names.intersection(mentions._TOKEN.findall(line))):
            form = mentions._strongest_form(line, name, hashed)
            if form is not None:
                yield name, index + 1, form


TRICKY_PY = (
    "helper()\n"
    "  # helper() in a comment line\n"
    "\x0c\t# helper() after a form feed\n"
    "x = 'a#b'; helper(x)  # helper again\n"
    "y = \"it's\"; helper(y)\n"
    "#!helper\n"
    '"""\n'
    "helper() in a docstring # with a hash\n"
    '   """ ; helper(z)\n'
    "s = '''one line''' ; obj.helper\r\n"
    "    # \"\"\" a comment that opens no string\n"
    "helper(1)\n"
)
TRICKY_JS = (
    "helper();\n"
    "   // helper() in a comment line\n"
    "const a = '//'; helper(a);\n"
    "/* helper()\n"
    " * helper() inside\n"
    " */ obj.helper(2);\n"
    "let u = `${helper()}`; // helper\n"
    "  /// helper triple slash\n"
    "x = a / b; helper(x)\n"
)


def test_tricky_lines_scan_as_their_definition_says() -> None:
    names = frozenset({"helper", "obj", "x", "a"})
    for path, text in (("m.py", TRICKY_PY), ("m.js", TRICKY_JS), ("m.ts", TRICKY_PY), ("m.rb", TRICKY_JS)):
        data = text.encode()
        assert list(scan_blob(path, data, names)) == list(by_definition(path, data, names)), path
    # the definition is a lexer's guess: after "it's" an odd quote count hides the call (line 5),
    # and the `"""` in line 11's comment opens a string that hides line 12
    assert [line for _, line, _ in scan_blob("m.py", TRICKY_PY.encode(), frozenset({"helper"}))] == [1, 4, 10]


def test_real_code_scans_as_its_definition_says() -> None:
    root = Path(cm_graph.__file__).parent
    sources = sorted(root.rglob("*.py"))
    names = frozenset(
        name for source in sources for name in re.findall(r"(?:def|class) (\w+)", source.read_text())
    )
    assert len(sources) > 50 and len(names) > 500
    rows = 0
    for source in sources:
        data = source.read_bytes()
        found = list(scan_blob(source.name, data, names))
        assert found == list(by_definition(source.name, data, names)), source
        rows += len(found)
    assert rows > 5000


def test_lines_no_mention_can_be_on_are_emptied_before_tokenizing_and_keep_their_numbers() -> None:
    text = TRICKY_PY
    kept = mentions._code_only(text, text.split("\n"), hashed=True).split("\n")
    original = text.split("\n")
    assert len(kept) == len(original)
    emptied = [number for number, (a, b) in enumerate(zip(original, kept, strict=True), start=1) if a != b]
    assert emptied == [2, 3, 6, 8, 11, 12]  # comment lines, and the lines inside strings
    assert all(kept[number - 1] == "" for number in emptied)
    js = mentions._code_only(TRICKY_JS, TRICKY_JS.split("\n"), hashed=False).split("\n")
    assert [n for n, line in enumerate(js, start=1) if line == "" and TRICKY_JS.split("\n")[n - 1]] == [2, 5, 8]
