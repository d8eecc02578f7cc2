"""One vocabulary: every refusal class lives in ``cm_graph/base/errors.py``, and every reason code
the source can put on a refusal or an unavailable answer is in its one closed list, ``REASONS``,
which names no code the source never uses."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from cm_graph.base import errors
from cm_graph.base.refusals import OS_REFUSALS
from cm_graph.generation.status import STATES

PACKAGE = Path(errors.__file__).resolve().parent.parent


def module_names() -> list[str]:
    return sorted(
        ".".join(("cm_graph", *path.relative_to(PACKAGE).with_suffix("").parts))
        for path in PACKAGE.rglob("*.py")
        if "__pycache__" not in path.parts and path.name not in ("__init__.py", "__main__.py")
        and path.name != "provider_keeper.py"  # a script run with `python -I -S`, not imported
    )


def test_every_refusal_class_is_defined_in_base_errors() -> None:
    elsewhere = []
    for name in module_names():
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, errors.Refusal) and value.__module__ != errors.__name__:
                elsewhere.append(f"{value.__module__}.{value.__qualname__}")
    assert elsewhere == []


def literal_reasons(tree: ast.AST) -> set[str]:
    """Reason codes written in the source: ``reason = "x"`` on a class, ``reason="x"`` in a call,
    ``"reason": "x"`` in a summary, and the first argument of ``unavailable("x", ...)``."""
    found: set[str] = set()

    def text(node: ast.AST | None) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "reason" for t in node.targets):
            text(node.value)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "reason":
                    text(keyword.value)
            if isinstance(node.func, ast.Name) and node.func.id in ("unavailable", "unavailable_summary") and node.args:
                text(node.args[0] if node.func.id == "unavailable" else (node.args[1] if len(node.args) > 1 else None))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "reason":
                    text(value)
    return found


def test_reason_codes_are_one_closed_list() -> None:
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" not in path.parts:
            used |= literal_reasons(ast.parse(path.read_text(encoding="utf-8")))
    used |= {reason for reason, _ in OS_REFUSALS.values()}
    used |= set(STATES)  # a state is a reason (status.require_current, ask)
    assert sorted(used - errors.REASONS) == [], "add the new code to errors.REASONS (and explain it in docs/cli.md)"
    assert sorted(errors.REASONS - used) == [], "a listed reason no source uses"


def test_the_damaged_index_sentence_is_spelled_once() -> None:
    spellings = []
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "is damaged;" in node.value:
                spellings.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert len(spellings) == 1 and spellings[0].startswith("base/errors.py:"), spellings
