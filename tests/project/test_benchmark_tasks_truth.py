"""The instrument of benchmarks/tasks.py, tested on a tiny real repository with known answers: the
``ast`` walk binds an aliased import, a re-export through ``__init__`` (and ``__all__``), a module
alias, a method on an instance, raise and except sites and an override, and credits a call inside
a nested function to that function (truth_python.py); the traced test suite (trace_python.py, run
in a scratch copy without network) binds a call the walk cannot (a method on an untyped local)
and says which tests execute a helper; bindings.py joins them; the honesty rule of scoring.py
counts a hedge only where it speaks about the task."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import scoring  # noqa: E402
import trace_python  # noqa: E402
import truth_python  # noqa: E402
from bindings import CALL_ROLES, Bindings  # noqa: E402
from expected import PythonTasks, Task  # noqa: E402
from strategies import CmGraphAnswer  # noqa: E402

FILES = {
    "pkg/__init__.py": (
        "from .core import helper as public_helper\n"
        "from .core import Base, MyError\n"
        "__all__ = ['public_helper', 'Base', 'MyError']\n"
    ),
    "pkg/core.py": (
        "class MyError(Exception):\n"          # 1
        "    pass\n"                           # 2
        "\n"                                   # 3
        "\n"                                   # 4
        "class Base:\n"                        # 5
        "    def run(self):\n"                 # 6
        "        return helper(1)\n"           # 7
        "\n"                                   # 8
        "    def go(self):\n"                  # 9
        "        return self.run()\n"          # 10
        "\n"                                   # 11
        "\n"                                   # 12
        "class Child(Base):\n"                 # 13
        "    def run(self):\n"                 # 14
        "        raise MyError('no')\n"        # 15
        "\n"                                   # 16
        "\n"                                   # 17
        "def helper(x):\n"                     # 18
        "    def inner(y):\n"                  # 19
        "        return helper(y - 1) if y else y\n"  # 20
        "    return inner(x)\n"                # 21
    ),
    "pkg/use.py": (
        "import pkg\n"                                      # 1
        "import pkg.core as c\n"                            # 2
        "from pkg.core import helper as h, Child, MyError\n"  # 3
        "\n"                                                # 4
        "\n"                                                # 5
        "def f():\n"                                        # 6
        "    obj = Child()\n"                               # 7
        "    try:\n"                                        # 8
        "        obj.run()\n"                               # 9
        "    except MyError:\n"                             # 10
        "        pass\n"                                    # 11
        "    total = h(2)\n"                                # 12
        "    return total + pkg.public_helper(3) + c.helper(4)\n"  # 13
        "\n"                                                # 14
        "\n"                                                # 15
        "def g():\n"                                        # 16
        "    return Child().run()\n"                        # 17
    ),
    "tests/test_use.py": (
        "from pkg.core import Base\n"        # 1
        "from pkg.use import f\n"            # 2
        "\n"                                 # 3
        "\n"                                 # 4
        "def make(kind):\n"                  # 5
        "    return kind()\n"                # 6
        "\n"                                 # 7
        "\n"                                 # 8
        "def test_f():\n"                    # 9
        "    assert f() == 0\n"              # 10
        "\n"                                 # 11
        "\n"                                 # 12
        "def test_untyped_receiver():\n"     # 13
        "    obj = make(Base)\n"             # 14
        "    assert obj.run() == 0\n"        # 15
    ),
}
CORE = "pkg/core.py"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for path, text in FILES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    run = {"check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], **run)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], **run)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-q", "-m", "synthetic"], **run)
    return repo


def _at(truth: truth_python.PythonTruth, path: str, line: int, name: str) -> list[truth_python.Occurrence]:
    return [o for o in truth.occurrences if (o.path, o.line, o.name) == (path, line, name)]


def test_the_walk_binds_aliases_re_exports_instances_and_credits_nested_functions(tmp_path: Path) -> None:
    truth = truth_python.parse_checkout(_repo(tmp_path))
    helper, run, child_run = (CORE, "helper"), (CORE, "Base.run"), (CORE, "Child.run")
    assert truth.find(CORE, "helper.inner").end == 20 and truth.find(CORE, "helper").end == 21
    # Aliased import, re-export through __init__ and a module alias all bind to the one helper.
    h = _at(truth, "pkg/use.py", 12, "h")[0]
    public, qualified = (_at(truth, "pkg/use.py", 13, name)[0] for name in ("public_helper", "helper"))
    assert (h.binds, h.role, h.owner) == (helper, "call", "f")
    assert (public.binds, qualified.binds) == (helper, helper)
    exported = _at(truth, "pkg/__init__.py", 3, "public_helper")[0]
    assert (exported.role, exported.binds) == ("all", helper)
    # A call inside a nested function belongs to that function, not to the outer one.
    recursive = _at(truth, CORE, 20, "helper")[0]
    assert (recursive.owner, recursive.binds) == ("helper.inner", helper)
    # A method on an instance whose class is known locally; `self.run()` from the class.
    on_instance = _at(truth, "pkg/use.py", 9, "run")[0]
    assert (on_instance.binds, on_instance.how) == (child_run, "inferred")
    assert _at(truth, "pkg/use.py", 17, "run")[0].binds == child_run  # `Child().run()`
    assert _at(truth, CORE, 10, "run")[0].binds == run
    assert _at(truth, "pkg/use.py", 7, "Child")[0].role == "instantiation"
    # Raise, except, override.
    assert [(o.role, o.binds) for o in _at(truth, CORE, 15, "MyError")] == [("raise", (CORE, "MyError"))]
    assert [(o.role, o.binds) for o in _at(truth, "pkg/use.py", 10, "MyError")] == [("except", (CORE, "MyError"))]
    assert [(o.role, o.binds) for o in _at(truth, CORE, 14, "run")] == [("override", run)]
    # A module's name is no definition's: `pkg` in `pkg.public_helper` binds nothing, as a module.
    assert _at(truth, "pkg/use.py", 13, "pkg")[0].how == "module"
    # An untyped receiver is left unbound, never guessed.
    assert _at(truth, "tests/test_use.py", 15, "run")[0].binds is None


def test_tasks_truth_without_a_trace(tmp_path: Path) -> None:
    tasks = PythonTasks(Bindings(truth_python.parse_checkout(_repo(tmp_path)), None))
    signature = tasks.expected(Task("synthetic", "signature_change", "helper", (CORE, "helper")))
    assert signature.truth == {(CORE, 7), (CORE, 20), ("pkg/use.py", 12), ("pkg/use.py", 13)}  # every alias
    rename = tasks.expected(Task("synthetic", "rename", "helper", (CORE, "helper")))
    # A rename edits the name's spellings: the imports, not `h(...)`; the definition line too.
    assert rename.truth == {(CORE, 7), (CORE, 18), (CORE, 20), ("pkg/__init__.py", 1), ("pkg/use.py", 3),
                            ("pkg/use.py", 13)}
    overrides = tasks.expected(Task("synthetic", "overrides", "Base.run", (CORE, "Base.run")))
    assert overrides.truth == {(CORE, 14)}
    raised = tasks.expected(Task("synthetic", "raise_catch", "MyError", (CORE, "MyError")))
    assert raised.truth == {(CORE, 15), ("pkg/use.py", 10)}
    run = tasks.expected(Task("synthetic", "signature_change", "Base.run", (CORE, "Base.run")))
    assert (CORE, 10) in run.truth and (CORE, 14) in run.truth  # `self.run()` and the override
    assert ("tests/test_use.py", 15) in run.neutral  # unbound without a trace: neither right nor wrong
    assert tasks.expected(Task("synthetic", "how", "Base.run", (CORE, "Base.run"))).truth == {(CORE, "helper")}


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bindings, Path]:
    try:
        prefix = trace_python.isolation()
    except SystemExit as refused:
        pytest.skip(str(refused))
    tmp = tmp_path_factory.mktemp("traced")
    repo = _repo(tmp)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    scratch = trace_python.scratch_copy(repo, commit, tmp / "scratch")
    raw = trace_python.trace_suite(scratch, Path(sys.executable), ("tests",), tmp / "home", prefix,
                                   extra_path=(scratch,), timeout=300)
    assert not (repo / ".pytest_cache").exists() and not list(repo.rglob("__pycache__"))  # the checkout is untouched
    return Bindings(truth_python.parse_checkout(repo), trace_python.as_trace(raw)), repo


def test_the_trace_binds_what_the_walk_cannot_and_names_the_tests(traced: tuple[Bindings, Path]) -> None:
    bindings, _ = traced
    run = (CORE, "Base.run")
    assert set(bindings.test_functions.values()) == {("tests/test_use.py", "test_f"),
                                                     ("tests/test_use.py", "test_untyped_receiver")}
    found = bindings.occurrences(run, CALL_ROLES)
    assert ("tests/test_use.py", 15) in {(o.path, o.line) for o in found["bound"]}  # bound by the trace
    both = {("tests/test_use.py", "test_f"), ("tests/test_use.py", "test_untyped_receiver")}
    assert bindings.tests_executing((CORE, "helper")) == both  # neither test names it
    assert bindings.tests_executing((CORE, "Child.run")) == {("tests/test_use.py", "test_f")}
    hops = bindings.transitive_callers((CORE, "helper"), 3)
    assert hops[("tests/test_use.py", "test_untyped_receiver")] == 2  # through the traced `obj.run()`
    assert hops[(CORE, "helper.inner")] == 1 and hops[("tests/test_use.py", "test_f")] == 2


def _answer(sections: dict[str, dict[str, object]], prose: str = "") -> CmGraphAnswer:
    document = {"status": "answered", "answer": prose, "sections": sections, "citations": {},
                "bounds": {}, "next_actions": []}
    return CmGraphAnswer([document], None)


def test_the_honesty_rule_counts_only_what_speaks_about_the_task() -> None:
    task = Task("synthetic", "signature_change", "helper", (CORE, "helper"))
    hedge = "No test reaches it within depth 2 in this graph; this is not proof of no use."
    quiet = {"callers": {"status": "ok", "detail": None}, "mentions": {"status": "ok", "detail": None},
             "tests": {"status": "empty", "detail": hedge}}
    assert scoring.said_incomplete(task, _answer(quiet), claimed_nothing=False) == (False, [])
    assert scoring.said_incomplete(task, _answer(quiet), claimed_nothing=True) == (False, [])  # not its section
    cut = {**quiet, "mentions": {"status": "truncated", "reason": "max_items", "detail": None}}
    assert scoring.said_incomplete(task, _answer(cut), claimed_nothing=False)[0]
    dropped = {**quiet, "callers": {"status": "truncated", "reason": "max_chars", "detail": None}}
    assert scoring.said_incomplete(task, _answer(dropped), claimed_nothing=False)[0]
    empty = {**quiet, "callers": {"status": "empty", "detail": "none within depth 1; not evidence of none"}}
    assert scoring.said_incomplete(task, _answer(empty), claimed_nothing=True)[0]
    assert not scoring.said_incomplete(task, _answer(empty), claimed_nothing=False)[0]
    border = "Next to what it reached, the graph left out records ... are in no section (untraversable)."
    assert scoring.said_incomplete(task, _answer(quiet, border), claimed_nothing=False)[0]
