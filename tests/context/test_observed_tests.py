"""Observed test evidence (issue 29 item 3): ``cm-graph tests record`` runs a real repository's own
pytest suite once, contained (bubblewrap, no network), in a scratch copy of the bound commit, and
stores the test -> definition map of the generation; ``context tests``, ``context impact`` and
``changes`` use it as ``observed`` (ranked first where tests are ranked), and say when it is absent
or older than the code. Real git repositories built by the pinned provider, a real suite run by the
real pytest; with no sandbox without network (a real environment without bubblewrap, or one where
it cannot make a namespace) nothing runs."""

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

from cm_graph.connections.store import ConnectionStore, connect
from cm_graph.context.wire import header, section_items
from cm_graph.generation.layout import Workspace
from cm_graph.provider.run import BWRAP_CANDIDATES, bwrap_path

from ..support.cli import invoke, where
from ..support.helpers import CM_GRAPH, commit_all, edit, make_repo
from ..support.surfacekit import CONNECTION, RECIPIENT, LineClient, Served, http_server, raw_http

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


def impact_of(repo: Path, state: Path, target: str = "compute") -> tuple[dict[str, Any], dict[str, Any],
                                                                          list[dict[str, Any]]]:
    """``context impact``'s answer, its ``observed_tests`` section's header and its items."""
    done = invoke("context", "impact", target, "--json", "--max-chars", "60000", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    document = json.loads(done.stdout)
    section = document["sections"]["observed_tests"]
    return document, header(section), section_items(section, document["citations"])


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
    impact_before = impact_of(repo, state)
    done = record(repo, state)
    listener.close()
    assert done.exit_code == 0, done.stderr
    summary = json.loads(done.stdout)
    return repo, state, {"summary": summary, "before": before, "static": [item["id"] for item in static],
                         "impact_before": impact_before}, port


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


def test_context_impact_says_no_run_is_recorded_with_the_sentence_context_tests_says(
    recorded: tuple[Path, Path, dict[str, Any], int],
) -> None:
    """Before a run, impact's observed section is unavailable, never a silent none: the reason,
    and in its header the observed entry ``context tests`` carries (one helper), whose sentence
    names the command that records one."""
    _, _, facts, _ = recorded
    document, head, items = facts["impact_before"]
    assert (head["status"], head["reason"], items) == ("unavailable", "not_recorded", [])
    # the wire leaves an unavailable section's detail to the prose; its header's observed says it
    assert head["observed"] == facts["before"]["observed"]
    assert "`cm-graph tests record`" in head["observed"]["detail"]
    assert head["observed"]["detail"] in document["answer"]  # the prose says it, with the command
    assert "observed_tests" not in document["used_primitives"]


def test_context_impact_lists_the_tests_the_recorded_run_saw_executing_it(
    recorded: tuple[Path, Path, dict[str, Any], int],
) -> None:
    repo, state, _, _ = recorded
    document, head, items = impact_of(repo, state)
    tests_head, ranked = ranked_tests_of(repo, state)
    assert head["status"] == "ok" and head["observed"] == tests_head["observed"]
    assert head["observed"]["status"] == "current"
    assert {item["id"] for item in items} == OBSERVED_IDS  # the dynamic one too, which no walk finds
    assert all(item["evidence"] == "observed" and item["outcome"] == "passed" for item in items)
    assert [item["id"] for item in items] == [item["id"] for item in ranked if item["evidence"] == "observed"]
    by_id = {item["id"]: item for item in items}
    assert by_id[DYNAMIC_ID]["path"] == "tests/test_dynamic.py" and by_id[DYNAMIC_ID]["cite"]
    assert by_id["tests/test_core.py::test_compute"]["why"] == [
        "tests/test_core.py::test_compute executed (observed) compute()"]
    assert "observed_tests" in document["used_primitives"]
    assert "executed it (observed)" in document["answer"] and DYNAMIC_ID in document["answer"]
    # a definition no recorded test executed: empty, said with the run it searched
    _, untested, none = impact_of(repo, state, "untested")
    assert (untested["status"], untested["reason"], none) == ("empty", "no_observed_test", [])
    assert "6 tests" in untested["detail"] and untested["observed"]["status"] == "current"
    text = invoke("context", "impact", "compute", *where(repo, state))
    assert text.exit_code == 0 and "executed it (observed)" in text.stdout
    # cut to one item, the section pages like any other: the rest, in the same order
    first = json.loads(invoke("context", "impact", "compute", "--json", "--max-items", "1", *where(repo, state)).stdout)
    cut = first["sections"]["observed_tests"]
    assert (header(cut)["status"], header(cut)["reason"], header(cut)["total"]) == ("truncated", "max_items", 3)
    page = json.loads(invoke("context", "impact", "compute", "--json", "--cursor",
                             first["pages"]["observed_tests"], *where(repo, state)).stdout)
    rest = section_items(page["sections"]["observed_tests"], page["citations"])
    assert [item["id"] for item in rest] == [item["id"] for item in items][1:]


def test_mcp_code_context_and_its_rest_twin_carry_the_observed_section(
    recorded: tuple[Path, Path, dict[str, Any], int],
) -> None:
    """The section is a row of the table, so the MCP tool's impact intent and the REST route
    answer it too, byte for byte the same."""
    repo, state, _, _ = recorded
    connect(ConnectionStore(state), CONNECTION, repo, ["owner/repo"], [RECIPIENT])
    served = Served(repo, state)
    arguments = {"target": "compute", "intent": "impact", "max_chars": 40000}
    client = LineClient(served)
    try:
        reply = client.call("code_context", arguments)
    finally:
        client.close()
    assert reply is not None and reply["result"]["isError"] is False, reply
    over_mcp = reply["result"]["structuredContent"]
    section = over_mcp["sections"]["observed_tests"]
    assert header(section)["status"] == "ok" and header(section)["observed"]["status"] == "current"
    assert {item["id"] for item in section_items(section, over_mcp["citations"])} == OBSERVED_IDS
    socket_path = served.state / "run" / f"{CONNECTION}.sock"
    body = json.dumps(arguments).encode()
    request = (b"POST /graph/analyze/code-context HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)

    def ready() -> bool:
        try:
            return socket_path.exists() and raw_http(socket_path, b"GET /openapi.json HTTP/1.1\r\nHost: localhost"
                                                     b"\r\nConnection: close\r\n\r\n").startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    with http_server(served, ready=ready):
        answered = raw_http(socket_path, request)
    head, _, rest = answered.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert json.loads(rest) == over_mcp
    assert rest == reply["result"]["content"][0]["text"].encode("utf-8")


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
    _, impact, items = impact_of(repo, state)
    assert (impact["status"], impact["reason"], items) == ("unavailable", "stale", [])
    assert impact["observed"] == head["observed"]
    assert "older than the code" in invoke("context", "impact", "compute", *where(repo, state)).stdout


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
        (("--python", "/bin/true"), "no_pytest"),  # runs in the sandbox, but is no Python: not the sandbox's fault
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


def _no_bubblewrap(bwrap: str) -> list[str]:
    """An environment like this one where no bubblewrap is installed: every place cm-graph looks
    for it (``BWRAP_CANDIDATES``, absolute paths, not PATH) shows an empty device, no program."""
    hidden = [word for path in BWRAP_CANDIDATES if os.path.exists(path) for word in ("--ro-bind", "/dev/null", path)]
    return [bwrap, "--dev-bind", "/", "/", *hidden, "--"]


def _no_namespaces(bwrap: str) -> list[str]:
    """An environment where bubblewrap is installed but can make no namespace (a container that
    forbids user namespaces): an unprivileged user in a user namespace that may create no other."""
    uid = os.getuid() or 1000
    return [bwrap, "--dev-bind", "/", "/", "--unshare-user", "--uid", str(uid), "--gid", str(uid),
            "--disable-userns", "--"]


@pytest.mark.parametrize("environment", [_no_bubblewrap, _no_namespaces], ids=["no_bwrap", "no_namespaces"])
def test_without_a_sandbox_without_network_the_suite_is_never_run(tmp_path: Path, environment: Any) -> None:
    """``tests record`` where no sandbox without network can be made: the installed command runs
    in a real environment without one (made with this machine's bubblewrap; without bubblewrap
    here, this machine is that environment), refuses ``no_containment`` in one sentence, runs no
    test (the suite would write a file) and leaves no map, no partial file and no scratch."""
    marker = tmp_path / "the-suite-ran"
    repo, state = built(tmp_path, {"tests/test_mark.py": f"def test_mark():\n    open({str(marker)!r}, 'w').close()\n"})
    workspace = Workspace.locate(repo, state)
    bwrap = bwrap_path()
    if bwrap is None and environment is _no_namespaces:
        pytest.skip("no bubblewrap on this machine: the no_bwrap case already runs here as it is")
    outer = environment(bwrap) if bwrap is not None else []
    if outer and subprocess.run([*outer, "/bin/true"], capture_output=True, timeout=60, check=False).returncode:
        pytest.skip("this machine's bubblewrap cannot make the environment without containment")
    before = sorted(path for path in state.rglob("*"))
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    for json_flag in (("--json",), ()):
        done = subprocess.run([*outer, str(CM_GRAPH), "tests", "record", *json_flag, *where(repo, state)],
                              env=env, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert "Traceback" not in done.stdout + done.stderr
        if json_flag:
            said = json.loads(done.stdout)
            assert said["reason"] == "no_containment", said
            assert said["detail"] == ("No working containment (bubblewrap with no network) is available, so the "
                                      "project's suite is not run.")
        else:
            assert done.stdout == ""
            [line] = done.stderr.strip().splitlines()
            assert line.startswith("cm-graph: no_containment: No working containment (bubblewrap with no network)")
    assert not marker.exists()  # the project's code never ran
    assert not list(workspace.indexes_dir.glob("*.tests.json*"))
    assert not list(workspace.directory.glob(".*.build"))
    assert sorted(path for path in state.rglob("*")) == before  # nothing left behind, not even a temporary
