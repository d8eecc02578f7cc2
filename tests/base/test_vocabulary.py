"""One vocabulary: every refusal class lives in ``cm_graph/base/errors.py``, and every reason code
the source can put on a refusal or an unavailable answer is in its one closed list, ``REASONS``,
which names no code the source never uses."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

from cm_graph.base import envelope, errors
from cm_graph.base.refusals import OS_REFUSALS
from cm_graph.generation.status import STATES

from ..project.test_architecture import SURFACE_LIBRARIES

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
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as missing:  # surfaces/ needs the optional extra mcp
            if name.startswith("cm_graph.surfaces.") and (missing.name or "").split(".")[0] in SURFACE_LIBRARIES:
                continue
            raise
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
            if isinstance(node.func, ast.Name) and node.func.id in ("unavailable", "unavailable_outcome") and node.args:
                text(node.args[0] if node.func.id == "unavailable" else (node.args[1] if len(node.args) > 1 else None))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "reason":
                    text(value)
    return found


def reasons_the_source_can_give() -> set[str]:
    """Every reason code a command can put on a refusal or an unavailable answer, read from the code."""
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" not in path.parts:
            used |= literal_reasons(ast.parse(path.read_text(encoding="utf-8")))
    used |= {reason for reason, _ in OS_REFUSALS.values()}
    used |= set(STATES)  # a state is a reason (status.require_current, ask)
    return used


def test_reason_codes_are_one_closed_list() -> None:
    used = reasons_the_source_can_give()
    assert sorted(used - errors.REASONS) == [], "add the new code to errors.REMEDIES (and explain it in docs/cli.md)"
    assert sorted(errors.REASONS - used) == [], "a listed reason no source uses"


# The ones base/envelope.py fills, and the ones only a person can (a name, a revision, a number, a repository).
PLACEHOLDERS = {*envelope.PLACEHOLDERS, "NAME", "REVISION", "N", "OWNER/REPO"}


def test_every_reason_the_source_can_give_has_its_remedy_beside_it() -> None:
    """Issue 26 item 4: one table in base/errors.py, each reason a row with its remedy; the
    command, where one is named, is one a person can run (cm-graph, git or pip, upper-case words
    only as the placeholders base/envelope.py fills)."""
    for reason in sorted(reasons_the_source_can_give()):
        row = errors.remedy(reason)
        assert row.why and row.why == row.why.strip() and not row.why.endswith("."), reason
        assert row.text.endswith(".") and row.text[0].isupper(), reason
        if row.command is not None:
            assert row.command.split()[0] in ("cm-graph", "git", "pip"), reason
            assert {word for word in row.command.split() if word.isupper()} <= PLACEHOLDERS, reason
        assert (row.tool is None) is (row.arguments is None), reason


def test_no_other_module_keeps_a_table_of_remedies() -> None:
    """The remedy sentences are written once: no other module spells one of the table's texts."""
    texts = {row.text for row in errors.REMEDIES.values()}
    elsewhere = []
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts or path == Path(errors.__file__).resolve():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in texts:
                elsewhere.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert elsewhere == []


def test_the_damaged_index_sentence_is_spelled_once() -> None:
    spellings = []
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "is damaged;" in node.value:
                spellings.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert len(spellings) == 1 and spellings[0].startswith("base/errors.py:"), spellings


# A limit with one name but two meanings is allowed only when the two are the same file read at two
# stages for different purposes; each entry says why it is not one constant.
SAME_NAME_APART = {
    # generation/coverage.py reads the provider's inventory as evidence (16 MiB); provider/fixedroot.py
    # only skips normalising an absurd one (256 MiB) and leaves the refusal to the coverage check.
    "MAX_INVENTORY_BYTES",
    # cli/graph_commands.py keeps a copy so that `cm-graph --help` does not load the provider module;
    # test_architecture.py holds the two equal.
    "DEFAULT_TIMEOUT_SECONDS",
    # Linux's prctl number, in the two processes that arm a parent-death signal: provider/
    # provider_keeper.py runs as a script on the standard library alone (python -I -S), so it
    # cannot import index/scan_worker.py's (and the index stage may not import the provider's).
    "_PR_SET_PDEATHSIG",
}
SCHEMA_VALUE = r"(code_mower|cm_graph)\.[A-Za-z]+\.v[0-9]+"


def module_constants() -> dict[str, list[str]]:
    """UPPER_CASE names bound at module level to a literal (or arithmetic of literals) -> modules."""
    defined: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                literal = all(isinstance(n, ast.Constant | ast.BinOp | ast.operator) for n in ast.walk(node.value))
                if name.isupper() and name != "TYPE_CHECKING" and literal:  # TYPE_CHECKING: typing unloaded
                    defined.setdefault(name, []).append(str(path.relative_to(PACKAGE)))
    return defined


def test_each_schema_name_and_limit_is_defined_once() -> None:
    twice = {name: where for name, where in module_constants().items() if len(where) > 1}
    assert set(twice) == SAME_NAME_APART, twice


def test_each_schema_string_is_written_once() -> None:
    import re

    seen: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(SCHEMA_VALUE, node.value):
                seen.setdefault(node.value, []).append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert len(seen) > 10
    assert {value: where for value, where in seen.items() if len(where) > 1} == {}
