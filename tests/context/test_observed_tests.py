"""Observed test evidence (issue 29 item 3): ``cm-graph tests record`` runs a real repository's own
pytest suite once, contained (bubblewrap, no network), in a scratch copy of the bound commit, and
stores the test -> definition map of the generation; ``context tests`` and ``changes`` use it as
``observed``, ranked first, and say when it is absent or older than the code. Real git
repositories built by the pinned provider, a real suite run by the real pytest."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from cm_graph.context.wire import header, section_items
from cm_graph.generation.layout import Workspace

from ..support.cli import invoke, where
from ..support.helpers import CM_GRAPH, commit_all, edit, make_repo

pytestmark = [pytest.mark.provider]

CORE = '''def helper(x):
    return x + 1


def compute(y):
    return helper(y) * 2


def untested():
    return 0


class Box:
    def open(self):
        return compute(3)
'''
TESTS = '''from pkg.core import Box, compute, helper


def test_compute():
    assert compute(1) == 4


class TestBox:
    def test_open(self):
        assert Box().open() == 8


def test_helper_fails():
    assert helper(1) == 3


def test_unrelated():
    assert True
'''
NET = '''import socket


def test_reaches_the_network():
    with socket.create_connection(("127.0.0.1", {port}), timeout=2):
        pass
'''
# A test that reaches compute() by a name it spells at run time: no static evidence kind sees it.
DYNAMIC = '''import pkg.core


def test_by_a_computed_name():
    assert getattr(pkg.core, "comp" + "ute")(1) == 4
'''
DYNAMIC_ID = "tests/test_dynamic.py::test_by_a_computed_name"
OBSERVED_IDS = {"tests/test_core.py::test_compute", "tests/test_core.py::TestBox::test_open", DYNAMIC_ID}


def built(root: Path, extra: dict[str, str] | None = None) -> tuple[Path, Path]:
    repo = make_repo(root / "repo", {"pkg/__init__.py": "", "pkg/core.py": CORE, "tests/__init__.py": "",
                                     "tests/test_core.py": TESTS, **(extra or {})})
    state = root / "state"
    done = invoke("build", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return repo, state


def record(repo: Path, state: Path, *args: str) -> Any:
    return invoke("tests", "record", "--json", *where(repo, state), *args)


def map_file(repo: Path, state: Path) -> Path:
    workspace = Workspace.locate(repo, state)
    [found] = sorted(workspace.indexes_dir.glob("*.tests.json"))
    return found


def ranked_tests_of(repo: Path, state: Path, target: str = "compute") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    done = invoke("context", "tests", target, "--json", "--max-chars", "60000", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    document = json.loads(done.stdout)
    section = document["sections"]["tests_to_run"]
    return header(section), section_items(section, document["citations"])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any], int]:
    """One repository whose suite has a failing test and one that tries the network (a loopback
    listener this process holds), built and recorded once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    repo, state = built(tmp_path_factory.mktemp("observed"), {"tests/test_net.py": NET.format(port=port),
                                                              "tests/test_dynamic.py": DYNAMIC})
    before, static = ranked_tests_of(repo, state)
    done = record(repo, state)
    listener.close()
    assert done.exit_code == 0, done.stderr
    summary = json.loads(done.stdout)
    return repo, state, {"summary": summary, "before": before, "static": [item["id"] for item in static]}, port


def test_the_map_holds_what_a_known_test_executed_private_and_keyed_to_the_generation(
    recorded: tuple[Path, Path, dict[str, Any], int],
) -> None:
    repo, state, facts, _ = recorded
    path = map_file(repo, state)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    document = json.loads(path.read_bytes())
    workspace = Workspace.locate(repo, state)
    assert path.name == f"{document['generation']}.tests.json"
    assert document["commit"] == facts["summary"]["commit"]
    by_id = {test[0]: test for test in document["tests"]}
    executed = {tuple(document["definitions"][n][:2]) for n in by_id["tests/test_core.py::test_compute"][4]}
    assert executed == {("pkg/core.py", "pkg.core.compute"), ("pkg/core.py", "pkg.core.helper"),
                        ("tests/test_core.py", "tests.test_core.test_compute")}
    opened = {document["definitions"][n][1] for n in by_id["tests/test_core.py::TestBox::test_open"][4]}
    assert {"pkg.core.Box.open", "pkg.core.compute", "pkg.core.helper"} <= opened
    assert "pkg.core.untested" not in {row[1] for row in document["definitions"]}
    [compute_row] = [row for row in document["definitions"] if row[1] == "pkg.core.compute"]
    assert compute_row == ["pkg/core.py", "pkg.core.compute", 5, 6]  # path + line range
    assert by_id["tests/test_core.py::test_compute"][1] == "passed"
    # A failing test is no refusal: it ran, it is recorded, and the summary counts it.
    assert by_id["tests/test_core.py::test_helper_fails"][1] == "failed"
    assert facts["summary"]["summary"]["failed"] == 2 and facts["summary"]["summary"]["tests"] == 6
    # Only the repository's own code is kept ("<frozen os>", "<string>" are no file of it).
    assert facts["summary"]["summary"]["unmapped_code"] == 0
    assert {row[0] for row in document["definitions"]} == {"pkg/core.py", "tests/test_core.py", "tests/test_net.py",
                                                           "tests/test_dynamic.py"}
    assert not (workspace.checkout / ".pytest_cache").exists() and not list(workspace.checkout.rglob("__pycache__"))


def test_the_suite_cannot_reach_the_network(recorded: tuple[Path, Path, dict[str, Any], int]) -> None:
    repo, state, facts, _ = recorded
    document = json.loads(map_file(repo, state).read_bytes())
    by_id = {test[0]: test for test in document["tests"]}
    assert by_id["tests/test_net.py::test_reaches_the_network"][1] == "failed"
    assert document["run"]["network"] == "none" and document["run"]["containment"] == "bubblewrap"
    assert facts["summary"]["network"] == "none"


def test_recording_again_on_the_same_commit_gives_the_same_bytes(
    recorded: tuple[Path, Path, dict[str, Any], int],
) -> None:
    repo, state, _, port = recorded
    path = map_file(repo, state)
    first = path.read_bytes()
    with socket.socket() as listener:  # the same port held again, so the network test fails the same way
        listener.bind(("127.0.0.1", port))
        listener.listen(1)
        done = record(repo, state)
    assert done.exit_code == 0, done.stderr
    assert path.read_bytes() == first


def test_context_tests_ranks_observed_tests_first_and_says_so(
    recorded: tuple[Path, Path, dict[str, Any], int],
) -> None:
    repo, state, facts, _ = recorded
    before = facts["before"]["observed"]
    assert before["status"] == "not_recorded" and "cm-graph tests record" in before["detail"]
    assert DYNAMIC_ID not in facts["static"]  # static evidence alone misses it
    head, items = ranked_tests_of(repo, state)
    assert head["observed"]["status"] == "current" and "ranked first" in head["observed"]["detail"]
    observed = [item for item in items if item["evidence"] == "observed"]
    assert {item["id"] for item in observed} == OBSERVED_IDS
    assert [item["evidence"] for item in items[:len(observed)]] == ["observed"] * len(observed)
    assert all(item["evidence"] != "observed" for item in items[len(observed):])
    first = observed[0]
    assert first["why"] == ["tests/test_core.py::test_compute executed (observed) compute()"]
    done = invoke("context", "tests", "compute", "--format", "pytest-args", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    assert set(done.stdout.splitlines()[:3]) == OBSERVED_IDS


def test_changes_lists_observed_tests_labelled_beside_the_static_ones(
    recorded: tuple[Path, Path, dict[str, Any], int], tmp_path: Path,
) -> None:
    repo, state, _, _ = recorded
    edit(repo, "pkg/core.py", "return helper(y) * 2", "return helper(y) * 3")
    try:
        done = invoke("changes", "--json", *where(repo, state))
        assert done.exit_code == 0, done.stderr
        tests = json.loads(done.stdout)["tests"]
        assert tests["observed"]["status"] == "current"
        assert "observed" in tests["evidence_kinds"]
        kinds = [item["evidence"] for item in tests["items"]]
        assert kinds[:3] == ["observed"] * 3 and {item["id"] for item in tests["items"][:3]} == OBSERVED_IDS
        text = invoke("changes", *where(repo, state))
        assert "[observed]" in text.stdout and "observed tests are ranked first" in text.stdout
        args = invoke("changes", "--format", "pytest-args", *where(repo, state))
        # the recorded run's tests of the edited definition, and only those (the static ones beside
        # them are in --json, labelled, and stderr counts them)
        assert args.exit_code == 0 and set(args.stdout.splitlines()) == OBSERVED_IDS
        static = [item for item in tests["items"] if item["evidence"] != "observed"]
        assert (f"{len(static)} static test(s) not printed" in args.stderr) is bool(static)
        # the failing test runs helper() only, never the edited compute(): neither the run nor a walk selects it
        assert "tests/test_core.py::test_helper_fails" not in args.stdout.splitlines()
    finally:
        edit(repo, "pkg/core.py", "return helper(y) * 3", "return helper(y) * 2")


def test_a_record_of_an_older_generation_is_kept_and_said_to_be_older(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    assert record(repo, state).exit_code == 0
    old = map_file(repo, state)
    old_commit = json.loads(old.read_bytes())["commit"]
    edit(repo, "pkg/core.py", "return 0", "return 1")
    commit_all(repo, "second")
    assert invoke("refresh", *where(repo, state)).exit_code == 0
    head, items = ranked_tests_of(repo, state)
    assert head["observed"]["status"] == "stale" and head["observed"]["commit"] == old_commit
    assert "older than the code" in head["observed"]["detail"]
    assert all(item["evidence"] != "observed" for item in items)
    assert old.is_file()  # kept, never used as current
    changed = json.loads(invoke("changes", "--json", "--commit", "HEAD", *where(repo, state)).stdout)
    assert changed["tests"]["observed"]["status"] == "stale"


def test_refusals_each_with_a_reason_and_nothing_written(tmp_path: Path) -> None:
    bare = make_repo(tmp_path / "bare", {"a.py": "x = 1\n"})
    done = record(bare, tmp_path / "bare-state")
    assert done.exit_code == 1 and json.loads(done.stdout)["reason"] == "absent"
    sleepy = {"tests/test_slow.py": "import time\n\n\ndef test_slow():\n    time.sleep(60)\n"}
    repo, state = built(tmp_path / "one", sleepy)
    nopytest = tmp_path / "nopytest"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(nopytest)], check=True)
    for args, reason in (
        (("--python", str(nopytest / "bin" / "python")), "no_pytest"),
        (("--python", str(tmp_path / "nowhere")), "no_pytest"),
        (("--timeout", "3"), "suite_timeout"),
        (("--", "--no-such-option"), "suite_crashed"),
        (("--", "tests/test_missing.py"), "suite_crashed"),
    ):
        done = record(repo, state, *args)
        assert done.exit_code == 1, (args, done.stdout)
        assert json.loads(done.stdout)["reason"] == reason, (args, done.stdout)
        plain = invoke("tests", "record", *where(repo, state), *args)
        assert plain.exit_code == 1 and plain.stderr.startswith(f"cm-graph: {reason}: ")
        assert len(plain.stderr.strip().splitlines()) == 1
    assert not list(Workspace.locate(repo, state).indexes_dir.glob("*.tests.json*"))


def test_a_killed_record_leaves_no_map_no_process_and_no_scratch(tmp_path: Path) -> None:
    marker = f"slow_{uuid.uuid4().hex}"
    repo, state = built(tmp_path, {f"tests/test_{marker}.py": "import time\n\n\ndef test_slow():\n"
                                   "    time.sleep(120)\n"})
    workspace = Workspace.locate(repo, state)
    child = subprocess.Popen([str(CM_GRAPH), "tests", "record", *where(repo, state), "--", "-k", marker],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not _running(marker):
        assert time.monotonic() < deadline and child.poll() is None, "the suite never started"
        time.sleep(0.2)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 20
    while _running(marker):
        assert time.monotonic() < deadline, "the suite outlived cm-graph"
        time.sleep(0.2)
    assert not list(workspace.indexes_dir.glob("*.tests.json"))
    assert list(workspace.directory.glob(".*.build"))  # the dead owner's scratch, until a sweep
    done = record(repo, state, "--timeout", "3", "--", "-k", marker)  # the next command sweeps it first
    assert json.loads(done.stdout)["reason"] == "suite_timeout"
    assert not list(workspace.directory.glob(".*.build"))
    assert not list(workspace.indexes_dir.glob("*.tests.json*"))


def _running(marker: str) -> bool:
    """Whether a process runs the suite with ``marker`` on its command line (the keeper, bwrap or
    pytest: each has the observing plugin's ``-p`` on it; cm-graph's own command line has not)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and b"cm_graph_observer" in cmdline:
            return True
    return False


def test_a_collection_error_is_named_and_the_flag_that_records_the_rest_works(tmp_path: Path) -> None:
    """markdown 3.7's own suite has one module that does not collect here: the refusal names it and
    says how to record the tests that do collect, and that way records them."""
    broken = {"tests/test_broken.py": "import no_such_module_anywhere\n\n\ndef test_never():\n    pass\n"}
    repo, state = built(tmp_path, broken)
    done = record(repo, state)
    said = json.loads(done.stdout)
    assert done.exit_code == 1 and said["reason"] == "suite_crashed"
    assert "tests/test_broken.py" in said["detail"] and "--continue-on-collection-errors" in said["detail"]
    kept = record(repo, state, "--", "--continue-on-collection-errors")
    assert kept.exit_code == 0, kept.stdout
    assert map_file(repo, state).is_file()


def test_a_src_layout_is_imported_from_the_scratch_copy(tmp_path: Path) -> None:
    """marshmallow keeps its package under src/ and its suite imports it installed (an editable
    install points at the checkout, which the sandbox does not show): the scratch copy's src/ is on
    the path, so the suite runs the bound commit's code and the map names it."""
    repo = make_repo(tmp_path / "repo", {"src/pkg/__init__.py": "", "src/pkg/core.py": CORE,
                                         "tests/test_core.py": TESTS})
    state = tmp_path / "state"
    assert invoke("build", *where(repo, state)).exit_code == 0
    done = record(repo, state)
    assert done.exit_code == 0, done.stdout
    summary = json.loads(done.stdout)["summary"]
    assert summary["passed"] == 3 and summary["unmapped_code"] == 0
    observed = json.loads(map_file(repo, state).read_bytes())
    assert "src/pkg/core.py" in json.dumps(observed)


def test_pytest_args_prints_the_recorded_run_tests_of_a_definition_in_place_of_static_ones(tmp_path: Path) -> None:
    """The fault benchmark's finding: with the map current, a static test that only names the
    changed definition (it runs none of it) doubled markdown's selection. pytest-args prints the
    tests the run saw executing it; --json still lists the static one, labelled."""
    names_it = {"tests/test_ref.py": "from pkg.core import compute\n\n\ndef test_names_it():\n"
                                     "    assert callable(compute)\n"}
    repo, state = built(tmp_path, names_it)
    assert record(repo, state).exit_code == 0
    edit(repo, "pkg/core.py", "return helper(y) * 2", "return helper(y) * 3")
    items = json.loads(invoke("changes", "--json", *where(repo, state)).stdout)["tests"]["items"]
    static = {item["id"] for item in items if item["evidence"] != "observed"}
    assert "tests/test_ref.py::test_names_it" in static
    args = invoke("changes", "--format", "pytest-args", *where(repo, state))
    assert args.exit_code == 0
    assert set(args.stdout.splitlines()) == {"tests/test_core.py::test_compute",
                                             "tests/test_core.py::TestBox::test_open"}
    assert f"{len(static)} static test(s) not printed" in args.stderr
