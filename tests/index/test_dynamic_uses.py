"""The text index's dynamic uses (``index/dynamic_uses.py``): the lines that spell a defined name
without calling it, each with its form, posted beside the line's code form, never instead of it."""

from __future__ import annotations

from cm_graph.index.dynamic_uses import dispatch_prefixes, text_form
from cm_graph.index.mentions import MentionTable, Scanner, read_postings, scan_blob

NAMES = ["markup_join", "str_join", "exported_fn", "handler_fn", "hook_deco", "looked_up_fn", "visit_Name",
         "visit_For", "Loader", "render", "onClick", "parse"]

PY = '''\
__all__ = [
    "exported_fn",
    "Loader",
]


def emit(self, volatile):
    """Writes markup_join or str_join into the template's code."""
    self.write("(markup_join if volatile else str_join)")
    return "the template could not render"


FILTERS = {"join": handler_fn, "other": str_join}
HOOKS = [hook_deco, handler_fn(1)]
TABLE = {
    "name": handler_fn,
}


@hook_deco
def job():
    return getattr(plugin, "looked_up_fn")()


def visitor(self, node):
    return getattr(self, f"visit_{type(node).__name__}", None)


def typed(x: Dict[str, Loader]) -> None:
    items = [render(x) for x in y]
    value = a @ hook_deco
    unregister(handler_fn)
'''

JS = '''\
import { onClick } from "./clicks";
export { parse, render as draw };
export const HANDLERS = { click: onClick };
const { render } = lib;
module.exports = parse;
'''


def _dynamic(path: str, text: str) -> set[tuple[str, int, str]]:
    return set(scan_blob(path, text.encode(), NAMES, dynamic=True))


def test_python_strings_exports_registries_decorators_and_getattr() -> None:
    found = _dynamic("pkg/m.py", PY)
    assert {("exported_fn", 2, "export"), ("Loader", 3, "export")} <= found
    assert {("markup_join", 9, "string"), ("str_join", 9, "string")} <= found
    assert {("handler_fn", 13, "registry"), ("str_join", 13, "registry"), ("hook_deco", 14, "registry"),
            ("handler_fn", 16, "registry")} <= found
    assert ("hook_deco", 20, "decorator") in found
    assert ("looked_up_fn", 22, "getattr") in found
    assert ("visit_", 26, "dispatch") in found  # posted under the prefix two names share
    # Not uses without a call: a docstring, prose, a call inside a list, a subscript, a
    # comprehension, an operator, a registering word's tail.
    lines = {line for _, line, _ in found}
    assert not lines & {8, 10, 29, 30, 31, 32}, sorted(found)
    assert ("handler_fn", 14, "registry") not in found  # called there: the call is the code form


def test_the_code_forms_are_what_they_were() -> None:
    """A dynamic form is posted beside the code form: the main pass's postings do not change."""
    code = scan_blob("pkg/m.py", PY.encode(), NAMES)
    assert ("hook_deco", 20, "name") in code and ("handler_fn", 13, "name") in code
    assert not {form for _, _, form in code} - {"raise", "catch", "qualified_call", "call", "qualified", "name"}


def test_javascript_exports_and_object_registries() -> None:
    found = _dynamic("web/m.js", JS)
    assert {("parse", 2, "export"), ("render", 2, "export"), ("onClick", 3, "registry"),
            ("parse", 5, "export")} <= found
    assert not {line for _, line, _ in found} & {1, 4}  # an import list, a destructuring


def test_templates_and_config_files_name_code_by_its_spelling() -> None:
    assert text_form("pkg/templates/page.html") == "template" and text_form("setup.cfg") == "config"
    assert text_form("package-lock.json") is None and text_form("package.json") is None
    assert text_form("pkg/m.py") is None
    page = "<p>{{ markup_join(items) }}</p>\n<p>{{ x|str_join }}</p>\n<p>render the page</p>\n"
    assert _dynamic("pkg/templates/page.html", page) == {("markup_join", 1, "template"),
                                                          ("str_join", 2, "template")}
    config = "[options.entry_points]\nconsole_scripts =\n    tool = pkg.cli:handler_fn\nname = render\n"
    assert _dynamic("setup.cfg", config) == {("handler_fn", 3, "config")}


def test_dispatch_prefixes_are_shared_leading_parts() -> None:
    assert dispatch_prefixes(["visit_Name", "visit_For", "parse_for", "do_x_y", "do_x_z"]) == ["do_", "do_x_",
                                                                                                 "visit_"]


def test_a_posting_keeps_its_dynamic_form_beside_the_code_form() -> None:
    scanner = Scanner(NAMES)
    table = MentionTable(NAMES)
    table.add_file("pkg/m.py", scanner.scan("pkg/m.py", PY.encode()))
    rows = {name: postings for name, _, kept, postings in table.name_rows() if kept}
    forms = [(line, form) for _, line, form in read_postings(rows["hook_deco"])]
    assert (20, "name") in forms and (20, "decorator") in forms
    assert "visit_" in rows  # the prefix has a row of its own: its dispatch lines


def test_a_string_annotation_in_a_signature_names_its_class() -> None:
    """A defining line is one token of the main pass: the strings of its annotations are read."""
    source = 'def load(loader: "Loader",\n         join: \'str_join\' = None) -> "Loader":\n    pass\n'
    assert _dynamic("pkg/m.py", source) == {("Loader", 1, "string"), ("str_join", 2, "string"), ("Loader", 2, "string")}
