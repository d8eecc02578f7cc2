"""The default budget carries every caller of a target with up to 50 (issue 27 item 1), on real
code built with the pinned provider: tests in deep paths that each call the target on several
lines, as sympy's do (``sympy/polys/tests/test_rootisolation.py``), so every caller carries its
site and the other lines it calls on. Each of those lines stays in the answer, with its file and
line, confirmed at the bound commit: nothing is dropped to make the callers fit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cm_graph.base.jsonio import dumps_wire
from cm_graph.context.budget import DEFAULT_CHARS
from cm_graph.context.wire import cited, header, section_items

from ..generation.test_lifecycle import cli
from ..support.cli import where
from ..support.helpers import make_repo

pytestmark = pytest.mark.provider
FILES_OF_TESTS, TESTS_PER_FILE, CALLS_PER_TEST = 9, 5, 4  # 45 callers, each calling on 4 lines
DEEP = "pkg/analysis/numeric/tests"


def _files() -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/core.py": "def target(value):\n    return value + 1\n"}
    for module in range(FILES_OF_TESTS):
        text = "from pkg.core import target\n"
        for case in range(TESTS_PER_FILE):
            calls = "".join(f"    assert target({k}) == {k + 1}\n" for k in range(CALLS_PER_TEST))
            text += f"\n\ndef test_case_{module}_{case}():\n{calls}"
        files[f"{DEEP}/test_module_{module}.py"] = text
    return files


def _calls(files: dict[str, str]) -> dict[tuple[str, str], list[int]]:
    """Every (file, test) and the lines it calls ``target`` on, read from the text itself."""
    found: dict[tuple[str, str], list[int]] = {}
    for path, text in files.items():
        test = None
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith("def test_"):
                test = line[4:line.index("(")] + "()"
            elif "target(" in line and test is not None:
                found.setdefault((path, test), []).append(number)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("dense_callers")
    files = _files()
    repo = make_repo(root / "repo", files)
    ran = cli("build", *where(repo, root / "state"), "--json")
    assert ran.code == 0, ran.err
    return repo, root / "state", files


def test_every_caller_and_every_line_it_calls_on_fits_the_default_budget(
    built: tuple[Path, Path, dict[str, str]]
) -> None:
    repo, state, files = built
    ran = cli("context", "usage", "pkg/core.py::target()", *where(repo, state), "--json")
    assert ran.code == 0, ran.err
    document: dict[str, Any] = ran.out
    assert len(dumps_wire(document)) <= DEFAULT_CHARS
    citations = cited(document)
    lines: dict[tuple[str, str], list[int]] = {}
    for name in ("callers", "resolved_callers"):
        section = header(document["sections"][name])
        assert section["shown"] == section["total"], (name, section)
        for item in section_items(document["sections"][name], citations):
            site = item["site"]
            assert citations[site["cite"]] == f"{site['path']}#L{site['line']}"
            also = item.get("also") or []
            assert all(more["path"] == site["path"] for more in also)
            lines[(site["path"], item["label"])] = sorted([site["line"], *(more["line"] for more in also)])
    expected = _calls(files)
    assert len(expected) == FILES_OF_TESTS * TESTS_PER_FILE
    assert lines == expected  # every caller, every line it calls on, each at its file and line
    assert document["bounds"]["unverified_citations"] == 0
    assert "callers" not in (document.get("pages") or {})
