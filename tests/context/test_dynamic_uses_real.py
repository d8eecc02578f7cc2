"""A dead-code verdict that can be trusted (issue 27 item 3), on real code built with the pinned
provider: a name no caller reaches and no code line calls is still used when it is spelled in a
string, exported in ``__all__``, looked up by ``getattr`` or a dispatch prefix, used as a
decorator, put into a registry, or named in a template or config file. Each such line is a
labelled, cited ``dynamic_uses`` item (``string_mention``, ``export``, ``registry``); only a name
with none of them, and no other use, gets "No use found, and here is what was searched".

The small package holds one function per kind; jinja2 3.1.4's sdist holds the issue's example:
``markup_join``, emitted by name into generated code by ``compiler.py`` and listed in
``runtime.exported``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cm_graph.context.wire import cited, section_items

from ..generation.test_lifecycle import cli
from ..support.cli import where
from ..support.helpers import make_repo

pytestmark = pytest.mark.provider
BIG = ("--max-chars", "200000", "--max-items", "500")

FILES = {
    "pkg/__init__.py": '__all__ = ["exported_fn"]\n\nfrom .runtime import exported_fn\n',
    "pkg/runtime.py": (
        "def exported_fn():\n    return 1\n\n\n"
        "def emitted_fn(seq):\n    return ''.join(seq)\n\n\n"
        "def handler_fn(event):\n    return event\n\n\n"
        "def looked_up_fn():\n    return 2\n\n\n"
        "def template_fn(value):\n    return value\n\n\n"
        "def config_main():\n    return 0\n\n\n"
        "def truly_unused_fn():\n    return 3\n"
    ),
    "pkg/codegen.py": (
        "class CodeGenerator:\n"
        "    def __init__(self):\n        self.out = []\n\n"
        "    def write(self, text):\n        self.out.append(text)\n\n"
        "    def visit_concat(self, node):\n"
        '        self.write("emitted_fn(")\n'
        "        return node\n"
    ),
    "pkg/events.py": (
        "import operator\n\n\n"
        "def handlers(plugin):\n"
        '    return {"event": plugin.handler_fn}\n\n\n'
        "def lookup(plugin):\n"
        '    return operator.methodcaller("looked_up_fn")(plugin)\n'
    ),
    "pkg/visitor.py": (
        "class Visitor:\n"
        "    def get_visitor(self, node):\n"
        '        return getattr(self, f"visit_{type(node).__name__}", None)\n\n'
        "    def visit_Leaf(self, node):\n        return node\n\n"
        "    def visit_Branch(self, node):\n        return node\n"
    ),
    "pkg/shapes.py": (
        "class Shape:\n    def area(self):\n        return 0\n\n\n"
        "class Square(Shape):\n    def area(self):\n        return 4\n\n"
        "    def __len__(self):\n        return 4\n\n\n"
        "def total(shape: Shape):\n    return shape.area()\n"
    ),
    "pkg/templates/page.html": "<p>{{ template_fn(title) }}</p>\n",
    "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    tool = pkg.runtime:config_main\n",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("dynamic_uses")
    repo = make_repo(root / "repo", FILES)
    built = cli("build", *where(repo, root / "state"), "--json")
    assert built.code == 0, built.err
    return repo, root / "state"


def _usage(repo: Path, state: Path, target: str) -> dict[str, Any]:
    ran = cli("context", "usage", target, *where(repo, state), "--json", *BIG)
    assert ran.code == 0, ran.err
    out: dict[str, Any] = ran.out
    return out


def _uses(document: dict[str, Any]) -> set[tuple[str, str, str]]:
    """(use, form, citation) of every dynamic use, each citation checked to name the item's line."""
    cites = cited(document)
    found = set()
    for item in section_items(document["sections"]["dynamic_uses"], cites):
        assert item["confidence"] == "textual"
        assert cites[item["cite"]] == f"{item['path']}#L{item['line']}"
        found.add((item["use"], item["form"], cites[item["cite"]]))
    return found


@pytest.mark.parametrize(("target", "expected"), [
    ("emitted_fn", ("string_mention", "string", "pkg/codegen.py#L9")),
    ("exported_fn", ("export", "export", "pkg/__init__.py#L1")),
    ("handler_fn", ("registry", "registry", "pkg/events.py#L5")),
    ("looked_up_fn", ("registry", "getattr", "pkg/events.py#L9")),
    ("visit_Leaf", ("registry", "dispatch", "pkg/visitor.py#L3")),
    ("template_fn", ("string_mention", "template", "pkg/templates/page.html#L1")),
    ("config_main", ("string_mention", "config", "setup.cfg#L3")),
])
def test_each_kind_of_use_without_a_call_is_a_cited_labelled_item(
    small: tuple[Path, Path], target: str, expected: tuple[str, str, str]
) -> None:
    document = _usage(*small, target)
    assert expected in _uses(document)
    section = document["sections"]["dynamic_uses"]
    assert section["status"] == "ok" and section[expected[0]] >= 1
    # The answer never reads as "no use": it counts these lines and points at them.
    assert "No use found" not in document["answer"]
    assert "without a call" in document["answer"] and "dynamic_uses" in document["answer"]
    assert "No line of commit" not in document["answer"]


def test_a_decorator_is_a_registry_use(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {
        "app/hooks.py": "def hook_deco(func):\n    return func\n",
        "app/main.py": "from .hooks import hook_deco\n\n\n@hook_deco\ndef job():\n    return 1\n",
    })
    built = cli("build", *where(repo, tmp_path / "state"), "--json")
    assert built.code == 0, built.err
    document = _usage(repo, tmp_path / "state", "hook_deco")
    every = document["sections"]
    # The graph or the resolver may carry the decorator line itself; wherever it is, it is a use,
    # and when neither does, it is a labelled registry item, not a bare mention.
    uses = _uses(document)
    carried = any(every[name].get("total", 0) for name in ("callers", "references", "resolved_callers"))
    assert carried or ("registry", "decorator", "app/main.py#L4") in uses
    assert every["dynamic_uses"]["reason"] != "no_use_found"
    assert all(item["line"] != 4 for item in section_items(every["mentions"], cited(document)))


def test_a_name_with_no_use_at_all_says_no_use_found_and_what_was_searched(small: tuple[Path, Path]) -> None:
    document = _usage(*small, "truly_unused_fn")
    section = document["sections"]["dynamic_uses"]
    assert section["status"] == "empty" and section["reason"] == "no_use_found"
    assert section["detail"].startswith("No use found, and here is what was searched:")
    for kind in ("string_mention", "export", "registry", "string literals", "`__all__` exports",
                 "getattr and dispatch-table spellings", "decorators", "registries", "template and config files",
                 "callers", "mentions"):
        assert kind in section["detail"], kind
    assert {"callers", "references", "mentions", "string literals", "template and config files"} <= set(
        section["searched"])
    assert section["detail"] in document["answer"]
    assert section_items(section) == []


@pytest.mark.parametrize(("target", "reason", "says"), [
    ("Square.__len__", "special_method", "special method the language calls implicitly"),
    ("Square.area", "overrides_base", "it overrides `Shape.area`"),
])
def test_a_definition_that_runs_unnamed_is_never_said_unused(
    small: tuple[Path, Path], target: str, reason: str, says: str
) -> None:
    """No use by name, but the language calls a special method, and a call of the base method
    runs an override: neither answer says "No use found"."""
    document = _usage(*small, target)
    section = document["sections"]["dynamic_uses"]
    assert (section["status"], section["reason"]) == ("empty", reason)
    assert says in section["detail"] and section["detail"] in document["answer"]
    assert "No use found" not in document["answer"]


def test_no_use_found_is_never_said_beside_a_use(small: tuple[Path, Path]) -> None:
    """A name the graph calls has an empty dynamic_uses section, but no "no use" verdict."""
    document = _usage(*small, "CodeGenerator.write")
    section = document["sections"]["dynamic_uses"]
    assert section["reason"] == "no_dynamic_use"
    assert "No use found" not in document["answer"]


def test_jinja2_markup_join_is_emitted_and_exported_by_name(jinja: tuple[Path, Path]) -> None:
    """The issue's example: no caller, no code line, but compiler.py writes it into the generated
    code (two lines) and runtime.py lists it among the names the template runtime exports."""
    repo, state = jinja
    document = _usage(repo, state, "markup_join")
    sections = document["sections"]
    assert sections["callers"].get("total", 0) == 0 and sections["mentions"].get("total", 0) == 0
    source = (repo / "src/jinja2/compiler.py").read_text().splitlines()
    emitted = {f"src/jinja2/compiler.py#L{n}" for n, text in enumerate(source, 1) if '"markup_join' in text
               or "(markup_join " in text}
    runtime = (repo / "src/jinja2/runtime.py").read_text().splitlines()
    listed = {f"src/jinja2/runtime.py#L{n}" for n, text in enumerate(runtime, 1) if text.strip() == '"markup_join",'}
    assert len(emitted) == 2 and len(listed) == 1
    assert {cite for use, form, cite in _uses(document) if use == "string_mention"} == emitted | listed
    assert "No line of commit" not in document["answer"] and "No use found" not in document["answer"]
    assert "3 line(s) name it without a call" in document["answer"]


def test_jinja2_visitor_methods_are_reached_by_their_dispatch_prefix(jinja: tuple[Path, Path]) -> None:
    repo, state = jinja
    document = _usage(repo, state, "src/jinja2/compiler.py::visit_Template")
    assert ("registry", "dispatch", "src/jinja2/visitor.py#L33") in _uses(document)
    items = section_items(document["sections"]["dynamic_uses"], cited(document))
    assert any(item.get("prefix") == "visit_" for item in items)
