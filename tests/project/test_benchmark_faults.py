"""benchmarks/faults.py's parts on a hand-made project: a selection stands for exactly the tests
pytest itself collects for it (a node id, its parametrised cases, a class, a file, a directory;
``test_x`` never takes ``test_xy``), the scores are what the issue defines (detection, safety,
share of the suite), and a fault replaces exactly a function's body with ``raise AssertionError``
(decorated, one-line, docstring-only and non-ASCII bodies too), for the functions the suite ran."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import fault_inject  # noqa: E402
import fault_score  # noqa: E402

TEST_A = """\
import pytest

def test_x():
    pass

def test_xy():
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_p(n):
    pass

class TestC:
    def test_m(self):
        pass
"""

# The hand-made suite's node ids (the first test holds that pytest collects exactly these).
SUITE = {"t/test_a.py::test_x", "t/test_a.py::test_xy", "t/test_a.py::test_p[1]", "t/test_a.py::test_p[2]",
         "t/test_a.py::TestC::test_m", "t/test_b.py::test_y", "t/sub/test_c.py::test_z"}

MODULE = '''\
import functools

def plain(x):
    """Doubles."""
    y = x * 2
    return y

def one(x): return x + 1

@functools.lru_cache(maxsize=None)
def cached(x):
    return "é" + str(x)

def only_doc():
    """Nothing else."""

class Box:
    def open(self, x):
        def inner():
            return x
        return inner()
'''


def _collected(root: Path, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-o", "addopts=", *args], cwd=root, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return {line for line in done.stdout.splitlines() if "::" in line}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("faults")
    (root / "t" / "sub").mkdir(parents=True)
    (root / "t" / "test_a.py").write_text(TEST_A)
    (root / "t" / "test_b.py").write_text("def test_y():\n    pass\n")
    (root / "t" / "sub" / "test_c.py").write_text("def test_z():\n    pass\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "core.py").write_text(MODULE)
    return root


def test_a_selection_runs_what_pytest_collects_for_it(project: Path) -> None:
    suite = _collected(project, "t")
    assert suite == SUITE
    for selection in (["t/test_a.py::test_x"], ["t/test_a.py::test_p"], ["t/test_a.py::TestC"],
                      ["t/test_a.py"], ["t/sub"], ["t/test_b.py::test_y", "t/test_a.py::test_p[2]"]):
        assert fault_score.expand(selection, suite) == _collected(project, *selection), selection
    assert fault_score.expand(["t/test_a"], suite) == set()  # no such file: pytest would refuse it


def test_scores_on_a_hand_made_fault() -> None:
    suite = SUITE
    failing = {"t/test_a.py::test_p[1]", "t/test_b.py::test_y"}
    half = fault_score.score(["t/test_a.py::test_p"], 0.5, failing, suite)
    assert half == {"detected": True, "safety": 0.5, "share": 2 / 7, "selected": 2, "seconds": 0.5}
    missed = fault_score.score(["t/test_a.py::test_x"], 0.1, failing, suite)
    assert (missed["detected"], missed["safety"], missed["share"]) == (False, 0.0, 1 / 7)
    whole = fault_score.score(sorted(suite), 0.0, failing, suite)
    assert (whole["detected"], whole["safety"], whole["share"]) == (True, 1.0, 1.0)
    summary = fault_score.summarise([half, missed, whole])
    assert summary["n"] == 3 and summary["detection"] == 2 / 3
    assert summary["safety"] == {"min": 0.0, "median": 0.5, "max": 1.0}
    assert summary["share"] == {"min": 1 / 7, "median": 2 / 7, "max": 1.0}
    with pytest.raises(ValueError):
        fault_score.score(["t"], 0.0, set(), suite)  # a fault no test fails is not scored


def test_a_fault_replaces_exactly_the_body(project: Path) -> None:
    source = (project / "pkg" / "core.py").read_bytes()
    found = {c.qualname: c for c in fault_inject.definitions("pkg/core.py", source)}
    assert sorted(found) == ["Box.open", "cached", "one", "only_doc", "plain"]  # not the nested inner()
    assert (found["cached"].first, found["cached"].line) == (10, 11)
    for name, call in (("plain", "plain(2)"), ("one", "one(2)"), ("cached", "cached(2)"),
                       ("only_doc", "only_doc()"), ("Box.open", "Box().open(2)")):
        faulted = fault_inject.inject(source, found[name])
        begin, end = found[name].body
        assert faulted[:begin] == source[:begin] and faulted[begin + len(fault_inject.FAULT):] == source[end:]
        space: dict[str, object] = {}
        exec(compile(faulted, "core.py", "exec"), space)  # noqa: S102 - our own hand-made module
        with pytest.raises(AssertionError, match="fault injected"):
            eval(call, space)  # noqa: S307
        others = [other for other in ("plain(2)", "one(2)", "cached(2)") if not other.startswith(name)]
        assert [eval(other, space) for other in others] == [  # noqa: S307
            {"plain(2)": 4, "one(2)": 3, "cached(2)": "é2"}[other] for other in others]


def test_candidates_are_the_executed_non_test_functions(project: Path) -> None:
    executed = {("pkg/core.py", 10, "cached"), ("pkg/core.py", 3, "plain"), ("pkg/core.py", 19, "inner"),
                ("t/test_b.py", 1, "test_y")}
    found = fault_inject.candidates(project, ["pkg/core.py", "t/test_b.py"], executed)
    assert [c.key for c in found] == ["pkg/core.py:3:plain", "pkg/core.py:11:cached"]
    assert [c.key for c in fault_inject.seeded_order(found, 29)] == [
        c.key for c in fault_inject.seeded_order(list(reversed(found)), 29)]
