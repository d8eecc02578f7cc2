"""A test helper is written once: no two helper functions (or fixtures) in ``tests/`` have the
same body, whatever their names. A helper two test files need goes to ``tests/support/`` (or
the shared module that already has its kind) and is imported, so a fix to it reaches every test."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def shape(function: ast.FunctionDef) -> str:
    """The function's parameters and body (its docstring and name left out)."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(function.args) + ast.dump(ast.Module(body=body, type_ignores=[]))


def helper_shapes(root: Path) -> dict[str, list[str]]:
    """Each helper body -> where it is defined (``file:name``); tests themselves are left out."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("test_"):
                found[shape(node)].append(f"{path.relative_to(root)}:{node.name}")
    return found


def test_no_helper_is_written_twice() -> None:
    copies = sorted(places for places in helper_shapes(TESTS).values() if len(places) > 1)
    assert copies == [], "move the helper into tests/support/ and import it"


def test_the_check_finds_a_renamed_copy(tmp_path: Path) -> None:
    helper = 'def {}(path):\n    """Why."""\n    return path.read_bytes()\n'
    (tmp_path / "a.py").write_text(helper.format("digest"))
    (tmp_path / "b.py").write_text(helper.format("contents") + "\n\ndef test_x():\n    return 1\n")
    assert sorted(helper_shapes(tmp_path).values()) == [["a.py:digest", "b.py:contents"]]
