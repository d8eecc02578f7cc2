"""Definition ranges in the resolved layer (issue 28 items 2 and 3): every module, class, function,
method and nested function with its start (its first decorator), def line and end; an ``@overload``
stub marked as one; each bound to the provider's node where the provider has one (path, line and
label agree), kept without one where it has none; the counts report both sides' match. A file
that is not Python 3.11, or over 2 MiB, keeps its module's range and has no rows.

Real git repositories, real indexes; the expected rows are written by hand from the sources."""

from __future__ import annotations

from pathlib import Path

from ..support.g0 import node
from ..support.resolvedkit import counts, definitions, references, resolved_repo

FILES = {
    "kit/__init__.py": "",
    "kit/tools.py": (
        "import functools\n"                                 # 1
        "from typing import overload\n"                      # 2
        "\n"
        "\n"
        "def traced(func):\n"                                # 5
        "    @functools.wraps(func)\n"                       # 6
        "    def wrapper(*args):\n"                          # 7 a nested function
        "        return func(*args)\n"                       # 8
        "    return wrapper\n"                               # 9
        "\n"
        "\n"
        "@traced\n"                                          # 12 a decorator: part of the range
        "@functools.lru_cache\n"                             # 13
        "def area(side):\n"                                  # 14
        "    return side * side\n"                           # 15
        "\n"
        "\n"
        "@overload\n"                                        # 18
        "def scale(value: int) -> int: ...\n"                # 19 an overload stub
        "@overload\n"                                        # 20
        "def scale(value: str) -> str: ...\n"                # 21
        "def scale(value):\n"                                # 22 the implementation
        "    return area(value)\n"                           # 23
        "\n"
        "\n"
        "class Shape:\n"                                     # 26
        "    @property\n"                                    # 27
        "    def size(self):\n"                              # 28
        "        return scale(1)\n"                          # 29
        "\n"
        "    def grow(self):\n"                              # 31
        "        return self.size\n"                         # 32 a property read runs its getter
    ),
}
SYMBOLS = [  # the provider's nodes for some of them (labels as it writes them; none for the rest)
    ("kit_tools_area", "area()", "kit/tools.py", "L14"),
    ("kit_tools_scale", "scale()", "kit/tools.py", "L19"),
    ("kit_tools_shape", "Shape", "kit/tools.py", "L26"),
    ("kit_tools_shape_size", ".size()", "kit/tools.py", "L28"),
]


def test_every_definition_has_its_range_and_the_providers_node_where_it_has_one(tmp_path: Path) -> None:
    index = resolved_repo(tmp_path, FILES, [node(*symbol) for symbol in SYMBOLS])
    assert definitions(index) == [
        ("kit/__init__.py", "module", "kit", 1, 1, 1, 0, None, "kit___init___py"),
        ("kit/tools.py", "module", "kit.tools", 1, 1, 32, 0, None, "kit_tools_py"),
        ("kit/tools.py", "function", "kit.tools.traced", 5, 5, 9, 0, "kit.tools", None),
        ("kit/tools.py", "function", "kit.tools.traced.wrapper", 6, 7, 8, 0, "kit.tools.traced", None),
        ("kit/tools.py", "function", "kit.tools.area", 12, 14, 15, 0, "kit.tools", "kit_tools_area"),
        ("kit/tools.py", "function", "kit.tools.scale", 18, 19, 19, 1, "kit.tools", "kit_tools_scale"),
        ("kit/tools.py", "function", "kit.tools.scale", 20, 21, 21, 1, "kit.tools", None),
        ("kit/tools.py", "function", "kit.tools.scale", 22, 22, 23, 0, "kit.tools", None),
        ("kit/tools.py", "class", "kit.tools.Shape", 26, 26, 32, 0, "kit.tools", "kit_tools_shape"),
        ("kit/tools.py", "method", "kit.tools.Shape.size", 27, 28, 29, 0, "kit.tools.Shape", "kit_tools_shape_size"),
        ("kit/tools.py", "method", "kit.tools.Shape.grow", 31, 31, 32, 0, "kit.tools.Shape", None),
    ]
    assert references(index) == [
        ("kit/tools.py", 9, "reference", "kit.tools.traced.wrapper", "wrapper", "kit.tools.traced"),
        # a decorator's line is inside the range of what it decorates, so that is its caller
        ("kit/tools.py", 12, "decorate", "kit.tools.traced", "traced", "kit.tools.area"),
        ("kit/tools.py", 23, "call", "kit.tools.area", "area", "kit.tools.scale"),  # the implementation's
        ("kit/tools.py", 29, "call", "kit.tools.scale", "scale", "kit.tools.Shape.size"),
        ("kit/tools.py", 32, "call", "kit.tools.Shape.size", "size", "kit.tools.Shape.grow"),  # a getter runs
    ]
    assert counts(index) == {
        "resolved_files": 2, "resolved_unparsable_files": 0, "resolved_definitions": 11,
        "resolved_definitions_on_nodes": 6, "resolved_nodes": 4, "resolved_nodes_with_definitions": 4,
        "resolved_references": 5, "resolved_unbound_references": 0,
    }


def test_a_file_that_cannot_be_parsed_keeps_its_module_and_nothing_else(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "ok.py": "import broken\n\n\ndef f():\n    return g()\n\n\ndef g():\n    return 1\n",
        "broken.py": "def f(:\n    pass\n",
        "newer.py": "type Alias = int\n",  # Python 3.12 syntax: not Python 3.11
        "huge.py": "x = 1\n" * 400_000,  # over 2 MiB
    }
    index = resolved_repo(tmp_path, files)
    assert [row[:6] for row in definitions(index)] == [
        ("broken.py", "module", "broken", 1, 1, 2),
        ("huge.py", "module", "huge", 1, 1, 400_000),
        ("newer.py", "module", "newer", 1, 1, 1),
        ("ok.py", "module", "ok", 1, 1, 9),
        ("ok.py", "function", "ok.f", 4, 4, 5),
        ("ok.py", "function", "ok.g", 8, 8, 9),
    ]
    assert references(index) == [
        ("ok.py", 1, "import", "broken", "broken", "ok"),
        ("ok.py", 5, "call", "ok.g", "g", "ok.f"),
    ]
    assert counts(index)["resolved_unparsable_files"] == 3


def test_a_module_binds_to_its_file_node_when_the_provider_qualifies_the_label(tmp_path: Path) -> None:
    # The pinned provider labels file nodes whose base names collide by their shortest unique
    # path suffix (rich's `rich/__init__.py`, `_unicode_data/__init__.py`); a suffix that is not
    # the file's own path suffix is some other node's.
    files: dict[str, str | bytes] = {"kit/__init__.py": "", "kit/sub/__init__.py": "", "kit/sub/core.py": ""}
    labels = {"kit/__init__.py": "kit/__init__.py", "kit/sub/__init__.py": "sub/__init__.py",
              "kit/sub/core.py": "it/sub/core.py"}
    index = resolved_repo(tmp_path, files, labels=labels)
    assert [(row[0], row[8]) for row in definitions(index)] == [
        ("kit/__init__.py", "kit___init___py"),
        ("kit/sub/__init__.py", "kit_sub___init___py"),
        ("kit/sub/core.py", None),
    ]


def test_a_definition_that_several_nodes_match_binds_to_the_lowest_numbered(tmp_path: Path) -> None:
    # Node numbers are ranks of provider ids; each kind's branch of insert_definitions (a seek into
    # the staging copy of the node sites) must still find every candidate and keep the least.
    files: dict[str, str | bytes] = {
        "kit/__init__.py": "",
        "kit/tools.py": "def area(side):\n    return side\n\n\nclass Shape:\n    pass\n",
    }
    symbols = [
        ("kit_tools_b_area", "area()", "kit/tools.py", "L1"),
        ("kit_tools_a_area", ".area()", "kit/tools.py", "L1"),  # a method's label: a candidate too
        ("kit_tools_0_area", "area()", "kit/tools.py", "L2"),  # another line: never a candidate
        ("kit_tools_z_shape", "Shape", "kit/tools.py", "L5"),
        ("kit_tools_y_shape", "Shape", "kit/tools.py", "L5"),
        ("kit_tools_x_shape", "Shape()", "kit/tools.py", "L5"),  # a function's label: not a class's
    ]
    index = resolved_repo(tmp_path, files, [node(*symbol) for symbol in symbols])
    assert [(row[2], row[8]) for row in definitions(index)] == [
        ("kit", "kit___init___py"),
        ("kit.tools", "kit_tools_py"),
        ("kit.tools.area", "kit_tools_a_area"),
        ("kit.tools.Shape", "kit_tools_y_shape"),
    ]
