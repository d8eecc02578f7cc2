"""Which functions the fault benchmark breaks, and how: the body replaced by ``raise AssertionError``.

Candidates are the functions and methods a project defines outside its test paths
(``is_test_path``, and no ``conftest.py``) at module level or in a class (nested classes too, but
not a function inside a function: the graph and the trace name those differently), that at least
one test of the traced suite executed (``trace_python.py``: a code object's first line is the
first decorator's for a decorated function, else its ``def`` line; both are matched). They are
sorted by (path, line, name) and shuffled by ``random.Random(seed)``: the order the benchmark
takes them in is the same on every machine, and nobody picks.

The fault is an edit of the file's bytes found by ``ast``: from the first statement of the body
(a docstring included) to the end of the last, replaced by one ``raise AssertionError(...)``
statement at the first statement's column; the signature, decorators and every other line stay.
The result is parsed again, so a fault never makes a file Python cannot read.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from pathlib import Path

from cm_graph.index.graphmodel import is_test_path

FAULT = b'raise AssertionError("fault injected by benchmarks/faults.py")'


@dataclass(frozen=True)
class Candidate:
    """One function a fault can go into: where it is, and the byte range of its body."""

    path: str  # relative to the checkout, '/'-separated
    line: int  # the def line
    first: int  # the first decorator's line, else the def line
    name: str
    qualname: str  # Class.method or func
    body: tuple[int, int]  # byte offsets [start, end) of the body in the file

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.qualname}"


def definitions(path: str, source: bytes) -> list[Candidate]:
    """The module-level functions and class methods of one file, with their bodies' byte ranges."""
    tree = ast.parse(source)
    starts = _line_starts(source)
    found: list[Candidate] = []

    def visit(body: list[ast.stmt], owner: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{owner}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first_stmt, last_stmt = node.body[0], node.body[-1]
                assert last_stmt.end_lineno is not None and last_stmt.end_col_offset is not None
                begin = starts[first_stmt.lineno - 1] + first_stmt.col_offset  # col offsets are UTF-8 bytes
                end = starts[last_stmt.end_lineno - 1] + last_stmt.end_col_offset
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                found.append(Candidate(path, node.lineno, first, node.name, owner + node.name, (begin, end)))

    visit(tree.body, "")
    return found


def _line_starts(source: bytes) -> list[int]:
    starts = [0]
    for index, byte in enumerate(source):
        if byte == 0x0A:
            starts.append(index + 1)
    return starts


def inject(source: bytes, candidate: Candidate) -> bytes:
    """``source`` with ``candidate``'s body replaced by one ``raise AssertionError``; parsed again."""
    begin, end = candidate.body
    faulted = source[:begin] + FAULT + source[end:]
    ast.parse(faulted)
    return faulted


def candidates(checkout: Path, files: list[str], executed: set[tuple[str, int, str]]) -> list[Candidate]:
    """Every non-test function of ``files`` (paths relative to ``checkout``) the suite executed,
    sorted by (path, line, name)."""
    found = []
    for path in sorted(files):
        if not path.endswith(".py") or is_test_path(path) or path.rsplit("/", 1)[-1] == "conftest.py":
            continue
        try:
            defined = definitions(path, (checkout / path).read_bytes())
        except (SyntaxError, ValueError):
            continue  # a file this interpreter cannot parse is no candidate
        for candidate in defined:
            if {(path, candidate.first, candidate.name), (path, candidate.line, candidate.name)} & executed:
                found.append(candidate)
    return sorted(found, key=lambda c: (c.path, c.line, c.name))


def seeded_order(found: list[Candidate], seed: int) -> list[Candidate]:
    """``found`` in the order the benchmark takes them: sorted, then shuffled by ``seed``."""
    ordered = sorted(found, key=lambda c: (c.path, c.line, c.name))
    random.Random(seed).shuffle(ordered)
    return ordered
