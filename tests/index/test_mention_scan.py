"""The text index's scanner says what its rules say (``tests/support/lexer_reference.py`` walks
them a character at a time), on tricky lines, on real code and on generated code, and the rows it
leads to do not depend on which process scanned which file.

The scanner is one regular expression and C-level iteration over its tokens (issue 20's build-time
target); the reference shares none of that, so a shortcut that changes an answer shows here.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import cm_graph
from cm_graph.index import mentions
from cm_graph.index.mentions import MAX_KEPT, MentionTable, Scanner, defined_name, names_of, read_postings, scan_blob

from ..support.lexer_reference import reference_scan

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
    "class helper_box(helper): pass\n"
    "def run(helper=helper(), *, obj=obj):\n"
    "    return helper (obj) == 1e10 + 0xhelper\n"
    "async def wrapped(\n"
    "        helper,\n"
    "        obj=(helper(1)),\n"
    "):\n"
    "    obj.helper = helper\n"
    "    return {helper: obj, 'k': helper}\n"
    "from pkg.helper.obj import helper\n"
    "import pkg.helper as obj\n"
)
TRICKY_JS = (
    "helper();\n"
    "   // helper() in a comment line\n"
    "const a = '//'; helper(a);\n"
    "/* helper()\n"
    " * helper() inside\n"
    " */ obj.helper(2);\n"
    "let u = `${helper()}\n"
    "still the template ${helper}`; helper(u)\n"
    "  /// helper triple slash\n"
    "x = a / b; helper(x)\n"
    "export default function helper(obj, helper) { return helper(obj) }\n"
    "const view = { helper: obj, obj: helper };\n"
    "obj?.helper?.(1); obj->helper; ns::helper(3);\n"
    "export class Helper extends helper {}\n"
    "func (r *Recv) helper(obj int) { helper(obj) }\n"
    "const s = helper(\"a\\\"b\", 'c\\'d')\n"
    "const safe = s.replace(/^[`'\"]+/g, ''); helper(safe)\n"
    "const ratio = a / b / helper(2); return /`/.test(helper)\n"
)
TRICKY_RS = (
    "fn helper<'a>(obj: &'a str) -> &'a str { obj }\n"
    "let c = 'x'; helper!(c); helper![1]; helper!{2};\n"
    "impl helper for Obj { fn run(&self) { self.helper() } }\n"
    "let e = '\\u{1F600}'; obj::helper(e)\n"
    "let raw = r#\"\n"
    "helper(1) \"quoted\"\n"
    "\"#; helper(2)\n"
    "macro_rules! helper { () => {} }\n"
)
NAMES = frozenset({"helper", "obj", "Obj", "from", "Helper"})
SITES_PY = (
    "try:\n"
    "    raise Helper\n"
    "    raise errors.Helper(obj)  # raise helper in a comment\n"
    "    raise Helper(helper) from obj\n"
    "except Helper:\n"
    "    raise\n"
    "except (obj . Helper, helper) as e:\n"
    "    x = 'raise Helper'; y = raised(Helper)\n"
    "except* (\n"
    "        Helper,\n"
    "        Obj):\n"
    "    pass\n"
    "except (helper(), Obj):\n"
    "    pass\n"
    "try: pass\n"
    "except Exception: raise helper\n"
    "obj.raise Helper; myraise Helper\n"
)
SITES_TS = (
    "try { throw new Helper(1) } catch (e: Helper) {\n"
    "  if (e instanceof obj.Helper) { throw e }\n"
    "  const s = `${x instanceof Helper}`; // instanceof Helper\n"
    "}\n"
    "if (x instanceof Helper) {}\n"
    "p.catch((e) => { if (e instanceof Helper) {} })\n"
    "try {} catch { helper(e instanceof Obj) }\n"
    "throw Helper.create(); throw new errors.Helper()\n"
)


def test_tricky_lines_scan_as_the_rules_say() -> None:
    for path, text in (("m.py", TRICKY_PY), ("m.js", TRICKY_JS), ("m.rs", TRICKY_RS), ("m.ts", TRICKY_PY),
                       ("m.rb", TRICKY_JS), ("m.go", TRICKY_JS), ("m.rs", TRICKY_JS), ("m.js", TRICKY_RS)):
        data = text.encode()
        assert scan_blob(path, data, NAMES) == reference_scan(path, data, NAMES), path


def test_what_the_rules_say_on_tricky_lines() -> None:
    py = {line: form for name, line, form in scan_blob("m.py", TRICKY_PY.encode(), NAMES) if name == "helper"}
    # 4: after a string holding '#'; 5: after a string holding a quote; 9: after the docstring's
    # end; 10: qualified; 13: a base class; 15: spaces before the call; 18: a parameter list two
    # parentheses deep ends there (a lexer's limit); 20: the value assigned; 21: the key and the
    # value (in Python a `:` names nothing). Not: comments, the docstring, the `def` line's
    # parameters (14, and 16-17 of one list over lines), an assignment target (`obj.helper =`).
    # 22: the name imported, not the module path it is imported from; 23: a module path only.
    assert py == {1: "call", 4: "call", 5: "call", 9: "call", 10: "qualified", 12: "call", 13: "name",
                  15: "call", 18: "call", 20: "name", 21: "name", 22: "name"}
    js = {line: form for name, line, form in scan_blob("m.js", TRICKY_JS.encode(), NAMES) if name == "helper"}
    # 8: after the multi-line template; 11: the function's body (its name and parameters are not
    # uses); 12: the value, not the key; 13: optional chaining, `->` and `::`; 14: extends; 15: a
    # Go method's body, not its receiver or parameters; 16: after escaped quotes; 17: after a regex
    # literal holding a backtick and quotes; 18: division is no regex, and `return /`/` is one.
    assert js == {1: "call", 3: "call", 6: "qualified_call", 8: "call", 10: "call", 11: "call", 12: "name",
                  13: "qualified_call", 14: "name", 15: "call", 16: "call", 17: "call", 18: "call"}
    rs = {line: form for name, line, form in scan_blob("m.rs", TRICKY_RS.encode(), NAMES) if name == "helper"}
    # a lifetime is no string; 6 is inside a raw string (quotes and all), 8 declares a macro
    assert rs == {2: "call", 3: "qualified_call", 4: "qualified_call", 7: "call"}


def test_raise_and_catch_sites_are_tagged_as_the_rules_say() -> None:
    for path, text in (("m.py", SITES_PY), ("m.ts", SITES_TS), ("m.js", SITES_TS), ("m.py", SITES_TS),
                       ("m.ts", SITES_PY), ("m.rb", SITES_PY), ("m.go", SITES_TS)):
        data = text.encode()
        assert scan_blob(path, data, NAMES) == reference_scan(path, data, NAMES), path
    py = {(name, line): form for name, line, form in scan_blob("m.py", SITES_PY.encode(), NAMES)}
    # raise X, raise mod.X(...), raise X(...) from e; except X; a tuple (one chain may hold spaces
    # around its dot), one over lines (except*); not: strings, comments, a bare raise, `raised(`,
    # a tuple holding a call (no name in it is caught: a lexer reads only chains there), an
    # identifier ending in raise or a qualified `.raise`.
    assert {key: form for key, form in py.items() if form in ("raise", "catch")} == {
        ("Helper", 2): "raise", ("Helper", 3): "raise", ("Helper", 4): "raise", ("Helper", 5): "catch",
        ("Helper", 7): "catch", ("helper", 7): "catch", ("Helper", 10): "catch", ("Obj", 11): "catch",
        ("helper", 16): "raise"}
    assert py[("Helper", 8)] == "name" and py[("helper", 4)] == "name" and py[("Helper", 17)] == "name"
    ts = {(name, line): form for name, line, form in scan_blob("m.ts", SITES_TS.encode(), NAMES)}
    # throw new X; catch (e: X); instanceof inside a catch block (not in a template or comment,
    # not after the block closed, not in a promise's .catch callback); an optional catch binding
    # opens a block too; `throw X.create()` raises nothing by name.
    assert {key: form for key, form in ts.items() if form in ("raise", "catch")} == {
        ("Helper", 1): "raise", ("Helper", 2): "catch", ("Obj", 7): "catch", ("Helper", 8): "raise"}
    assert ts[("Helper", 5)] == "name" and ts[("Helper", 6)] == "name"
    assert scan_blob("m.rb", SITES_PY.encode(), NAMES) == [
        row for row in reference_scan("m.rb", SITES_PY.encode(), NAMES)]
    assert not {form for _, _, form in scan_blob("m.rb", SITES_PY.encode(), NAMES)} & {"raise", "catch"}


def test_a_catch_tuple_holding_a_call_is_scanned_without_backtracking() -> None:
    """anyio's ``except (BrokenWorkerProcess, get_cancelled_exc_class()):`` held a build for more
    than 15 minutes: the tuple's chains could split one long name in exponentially many ways
    before the ``(`` they cannot take. Such a tuple catches nothing by name (a lexer reads only
    chains there); the next ``except`` is read as ever."""
    text = ("try:\n    pass\n"
            "except (Helper, get_cancelled_exception_class_of_the_running_backend()):\n    pass\n"
            "except (Helper, Obj):\n    pass\n")
    sites = {(name, line, form) for name, line, form in scan_blob("m.py", text.encode(), NAMES)
             if form in ("raise", "catch")}
    assert sites == {("Helper", 5, "catch"), ("Obj", 5, "catch")}


def test_real_code_scans_as_the_rules_say() -> None:
    root = Path(cm_graph.__file__).parent
    sources = sorted(root.rglob("*.py")) + sorted((root.parent / "benchmarks").rglob("*.py"))
    names = frozenset(
        name for source in sources for name in re.findall(r"(?:def|class) (\w+)", source.read_text())
    )
    assert len(sources) > 50 and len(names) > 500
    rows = 0
    for source in sources:
        data = source.read_bytes()
        found = scan_blob(source.name, data, names)
        assert found == reference_scan(source.name, data, names), source
        rows += len(found)
    assert rows > 5000


_FRAGMENTS = (
    "helper", "obj", "from", "Helper", "x", "ab1", "1e5", "0xhelper", "$obj", "é", ".", "::", "->", "?.",
    "(", ")", "((", "))", "[", "{", "}", "!", "!(", "=", "==", "=>", ":", "::", ":=", " ", "  ", "\t", "*", ",",
    "\n", "\n    ", "\n\n", "#", "//", "/*", "*/", '"', "'", "`", '"""', "'''", "\\", "\\n", "'a'", "'\\n'",
    "def ", "async def ", "class ", "const ", "let ", "export ", "function ", "function* ", "fn ", "func ",
    "impl ", "type ", "pub ", "static ", "(r *T) ", "${", "\r", "/", "]", "/g", "return ", "from ", "import ",
    "a.b", "r\"", "r#\"", "\"#", "br", "r##\"", "\"##", "macro_rules! ",
    "raise ", "raise", "except", "except ", "except*", "throw new ", "throw ", "new ", "catch ", "catch",
    "instanceof ", "e: ", " as e", "\r\n", "$",
)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=60), st.sampled_from(("a.py", "a.ts", "a.rs", "a.go", "a.js")))
def test_generated_code_scans_as_the_rules_say(fragments: list[str], path: str) -> None:
    data = "".join(fragments).encode()
    assert scan_blob(path, data, NAMES) == reference_scan(path, data, NAMES)


@given(st.lists(st.text(alphabet=st.sampled_from("ab_.(x)$ 1é"), max_size=8), max_size=30))
def test_the_names_of_labels_are_each_labels_defined_name(labels: list[str]) -> None:
    assert names_of(labels) == sorted({name for label in labels if (name := defined_name(label)) is not None})


def test_a_binary_or_oversized_blob_is_not_scanned() -> None:
    assert scan_blob("a.py", b"helper()\0", NAMES) == []
    big = b"helper()\n" * (mentions.MAX_SCANNED_BYTES // 9 + 1)
    assert scan_blob("a.py", big, NAMES) == []


def _rows(parts: list[list[tuple[str, bytes]]], names: list[str]) -> list[tuple[str, int, int, bytes]]:
    """The table's rows when each part of the files is scanned by its own scanner (as the worker
    and the importer's thread do), assembled in path order."""
    found: dict[str, list[int]] = {}
    for part in parts:
        scanner = Scanner(names)
        for path, data in part:
            found[path] = scanner.scan(path, data)
    table = MentionTable(tuple(sorted(names)))
    for path in sorted(found):
        table.add_file(path, found[path])
    return list(table.name_rows())


def test_rows_do_not_depend_on_who_scanned_which_file_nor_on_when_a_common_name_was_dropped() -> None:
    rng = random.Random(20)
    files = []
    for number in range(40):
        lines = [f"helper_{rng.randrange(5)}(x)" if rng.random() < 0.5 else "common()" for _ in range(120)]
        files.append((f"pkg/m{number:02d}.py", "\n".join(lines).encode()))
    names = ["common", *(f"helper_{n}" for n in range(5))]
    Scanner._RECOUNT_EVERY = 50  # forget common names early, in some scanners and not others
    try:
        whole = _rows([files], names)
        for split in range(5):
            shuffled = files[:]
            rng.shuffle(shuffled)
            cut = rng.randrange(len(files))
            assert _rows([shuffled[:cut], shuffled[cut:]], names) == whole, split
    finally:
        Scanner._RECOUNT_EVERY = 200_000
    by_name = {name: (total, kept, postings) for name, total, kept, postings in whole}
    assert by_name["common"][:2] == (MAX_KEPT + 1, 0) and by_name["common"][2] == b""
    total, kept, postings = by_name["helper_0"]
    decoded = list(read_postings(postings))
    assert kept == 1 and total == len(decoded) and decoded == sorted(decoded)
    assert {form for _, _, form in decoded} == {"call"}
