"""The lifecycle of a generation: build, status, refresh, prune, faults, locking, containment.

Everything runs against real git repositories in temp dirs and real state trees. Tests marked
``provider`` run the pinned Graphify provider (``graphifyy==0.9.58``) on a few modules of the
installed ``ijson`` package (a hard dependency of cm-graph, so always there). The fault tests use
small *real* executables installed in a fake but well-formed install layout (``bin/graphify``
plus a ``graphifyy-0.9.58.dist-info`` whose RECORD lists it with its sha256), so they pass
``verify_provider`` exactly like the real provider and then misbehave on purpose.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ijson
import pytest
from typer.testing import CliRunner

import cm_graph.generation.status as status_module
import cm_graph.generation.store as generation_module
import cm_graph.provider.run as provider_module
from cm_graph.base.errors import Refusal
from cm_graph.base.locking import BuildBusy, build_lock
from cm_graph.cli.app import app
from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import STATES, graph_status
from cm_graph.generation.store import read_attempt, read_current
from cm_graph.index.format import open_index
from cm_graph.provider.build import build
from cm_graph.provider.fixedroot import claim, fixed_root
from cm_graph.provider.run import ProviderRefusal, default_executable, run_provider, verify_provider

from ..support.cli import where
from ..support.g0 import g0_graph
from ..support.helpers import commit_all, git, make_repo, publish, write_files

BWRAP = Path("/usr/bin/bwrap")
PIN_VERSION = "0.9.58"
GENERATION = re.compile(r"[0-9a-f]{32}")
INDEX_TABLES = ("nodes", "edges", "adjacency", "census", "exclusions", "undeclared_endpoints", "counts")


needs_bwrap = pytest.mark.skipif(not BWRAP.exists(), reason="bubblewrap (/usr/bin/bwrap) is not installed")
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


# --------------------------------------------------------------------------------------------
# Shared helpers


def ijson_files() -> dict[str, str | bytes]:
    """A few modules of the installed ijson package plus a README: a small real codebase."""
    package = Path(ijson.__file__).parent
    names = ("__init__.py", "common.py", "compat.py", "utils.py", "version.py")
    files: dict[str, str | bytes] = {
        f"ijson/{name}": (package / name).read_bytes() for name in names if (package / name).is_file()
    }
    assert len(files) >= 3, "the installed ijson no longer has the modules this test copies"
    files["README.md"] = "A few modules of ijson, committed for the provider.\n"
    return files


RUNNER = CliRunner()


@dataclass
class Ran:
    code: int
    out: Any
    err: str


def cli(*args: str) -> Ran:
    """Run ``cm-graph`` in-process; parse stdout as JSON when it is JSON."""
    result = RUNNER.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    try:
        out = json.loads(result.stdout)
    except ValueError:
        out = result.stdout
    return Ran(result.exit_code, out, result.stderr)


def leftovers(workspace: Workspace) -> list[str]:
    """Transient entries (scratch ``.build``, ``.staging``, ``.tmp``) left in the state tree."""
    found = []
    for directory in (workspace.graph_dir, workspace.directory, workspace.generations_dir, workspace.indexes_dir):
        if directory.is_dir():
            found += [f"{directory.name}/{entry}" for entry in os.listdir(directory) if entry.startswith(".")]
    return found


def generations(workspace: Workspace) -> list[str]:
    return sorted(os.listdir(workspace.generations_dir))


def index_files(workspace: Workspace) -> list[str]:
    """The index files, after checking nothing in indexes/ belongs to a pruned generation."""
    if not workspace.indexes_dir.is_dir():
        return []
    names = os.listdir(workspace.indexes_dir)
    owners = {name.split(".", 1)[0] for name in names if not name.startswith(".")}
    assert owners <= set(generations(workspace)), "derived files of a pruned generation remain"
    return sorted(name for name in names if name.endswith(".sqlite"))


def table_rows(path: Path, table: str) -> list[tuple[Any, ...]]:
    """Every row of ``table`` in storage order (the index is deterministic, so no ORDER BY)."""
    connection = open_index(path)
    try:
        return connection.execute(f'SELECT * FROM "{table}"').fetchall()
    finally:
        connection.close()


def artifact_members(path: Path) -> dict[str, tarfile.TarInfo | bytes]:
    members: dict[str, Any] = {}
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            assert handle is not None
            members[member.name] = (member, handle.read())
    return members


# --------------------------------------------------------------------------------------------
# A fake install of the provider: a real executable with a real RECORD, misbehaving on purpose.


def install_provider(
    root: Path, body: str, *, version: str = PIN_VERSION, venv: bool = False, interpreter: str = sys.executable
) -> Path:
    """``<root>/bin/graphify`` running ``body``, owned by a ``graphifyy-<version>`` dist-info.

    With ``venv``, ``root`` is also a usable virtual environment (``pyvenv.cfg`` plus a ``.pth``
    that adds this interpreter's site-packages), so ``<root>/bin/python -m cm_graph`` finds this
    fake ``graphify`` as its default provider.
    """
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True)
    executable = bin_dir / "graphify"
    executable.write_text(f"#!{interpreter}\n{body}")
    executable.chmod(0o755)
    (bin_dir / "python").symlink_to(interpreter)
    site = root / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    info = site / f"graphifyy-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: graphifyy\nVersion: {version}\n\nFake.\n")
    data = executable.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    (info / "RECORD").write_text(
        f"../../../bin/graphify,sha256={digest},{len(data)}\n"
        f"graphifyy-{version}.dist-info/METADATA,,\n"
        f"graphifyy-{version}.dist-info/RECORD,,\n"
    )
    if venv:
        import sysconfig

        home = os.path.dirname(os.path.realpath(sys.executable))
        (root / "pyvenv.cfg").write_text(
            f"home = {home}\ninclude-system-site-packages = false\n"
            f"version = {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}\n"
        )
        host_site = sysconfig.get_paths()["purelib"]
        (site / "_cm_graph_host.pth").write_text(f"import site; site.addsitedir({host_site!r})\n")
    return executable


def ok_body(graph: dict[str, Any], report: Path | None = None) -> str:
    """Write ``graph`` and a provider-style inventory (MD5 of every file it was given)."""
    return f"""
import hashlib, json, os, pathlib
out = pathlib.Path("graphify-out")
out.mkdir()
(out / "graph.json").write_text({json.dumps(graph)!r})
rows = {{}}
for path in sorted(pathlib.Path(".").rglob("*")):
    if path.is_file() and "graphify-out" not in path.parts:
        digest = hashlib.md5(path.read_bytes()).hexdigest()
        rows[path.as_posix()] = {{"mtime": 0.0, "seen": 0.0, "ast_hash": digest, "semantic_hash": digest}}
(out / "manifest.json").write_text(json.dumps(rows))
report = {str(report) if report else ""!r}
if report:
    with open(report, "w") as handle:
        json.dump({{"env": dict(os.environ), "cwd": os.getcwd()}}, handle)
"""


FAIL_BODY = """
import pathlib, sys
pathlib.Path("graphify-out").mkdir()
pathlib.Path("graphify-out/graph.json").write_text('{"nodes": [], "edges": []}')
sys.exit(3)
"""

NOTHING_BODY = "pass\n"

TWO_ROOTS_BODY = """
import pathlib
for root in ("graphify-out", ".graphify"):
    pathlib.Path(root).mkdir()
pathlib.Path("graphify-out/graph.json").write_text('{"nodes": [], "edges": []}')
pathlib.Path("graphify-out/manifest.json").write_text('{}')
pathlib.Path(".graphify/cache.json").write_text('{}')
"""


def hang_body(pids: Path) -> str:
    """Ignore SIGTERM, start a grandchild that ignores it too, record the pids, sleep."""
    return f"""
import json, os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open({str(pids)!r}, "w") as handle:
    json.dump({{"pid": os.getpid(), "child": child.pid, "pgid": os.getpgrp()}}, handle)
time.sleep(600)
"""


def _proc_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def running(pid: int) -> bool:
    """Alive and not a zombie (an unreaped zombie no longer runs anything)."""
    fields = _proc_fields(pid)
    return fields is not None and fields[0] != "Z"


def group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _proc_fields(int(entry))
            if fields is not None and int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


@pytest.fixture
def baseline(tmp_path: Path) -> Workspace:
    """A G0-style repo with one published (complete) generation, made without any provider."""
    repo = make_repo(tmp_path / "repo", {
        "example_pkg/config.py": "".join(f"line {n}\n" for n in range(1, 41)),
        "example_pkg/loader.py": "".join(f"line {n}\n" for n in range(1, 51)),
        "example_pkg/report.py": "".join(f"line {n}\n" for n in range(1, 21)),
        "tests/test_config.py": "".join(f"line {n}\n" for n in range(1, 31)),
    })
    workspace = publish(repo, tmp_path / "state", g0_graph())
    assert graph_status(workspace).state == "current"
    return workspace


def assert_untouched(workspace: Workspace, before: str) -> None:
    """The previous generation is still current and usable, and nothing transient is left."""
    assert read_current(workspace).id == before
    assert graph_status(workspace).state == "current"
    assert generations(workspace) == [before]
    assert leftovers(workspace) == []


# --------------------------------------------------------------------------------------------
# The real provider on a small real codebase


@pytest.mark.provider
def test_build_status_refresh_and_prune(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    state = tmp_path / "state"
    head = git(repo, "rev-parse", "HEAD")
    workspace = Workspace.locate(repo, state)
    assert graph_status(workspace).state == "absent"

    built = cli("build", *where(repo, state), "--json")
    assert built.code == 0, built.err
    first = built.out["generation"]
    assert built.out["status"] == "published" and built.out["usable"] is True
    assert built.out["completeness"] == "complete" and built.out["source_revision"] == head
    assert built.out["indexed_files"] == len([p for p in ijson_files() if p.endswith(".py")])
    assert built.out["code_nodes"] > 0 and built.out["edges"] > 0
    assert isinstance(built.out["contained"], bool)

    status = cli("status", *where(repo, state), "--json")
    assert status.code == 0
    assert status.out["state"] == "current" and status.out["usable"] is True
    assert status.out["build"]["generation"] == first and status.out["build"]["commit"] == head
    assert status.out["search"] == "available"

    # The installed console script agrees (a separate process, nothing shared).
    command = shutil.which("cm-graph", path=str(Path(sys.executable).parent)) or "cm-graph"
    done = subprocess.run(
        [command, "status", *where(repo, state), "--json"], capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["state"] == "current"

    again = cli("build", *where(repo, state), "--json")
    assert again.code == 1
    assert again.out["reason"] == "current" and "already current" in again.out["detail"]
    assert "cm-graph: current: The graph is already current" in again.err
    assert generations(workspace) == [first]

    refreshed = cli("refresh", *where(repo, state), "--json")
    assert refreshed.code == 0, refreshed.err
    second = refreshed.out["generation"]
    assert second != first and GENERATION.fullmatch(second)
    assert generations(workspace) == [second], "refresh must prune the previous generation"
    assert index_files(workspace) == [f"{second}.sqlite"], "and the index derived from it"

    kept = cli("refresh", "--keep-previous", *where(repo, state), "--json")
    assert kept.code == 0, kept.err
    third = kept.out["generation"]
    assert generations(workspace) == sorted([second, third])
    assert index_files(workspace) == sorted([f"{second}.sqlite", f"{third}.sqlite"])
    assert read_current(workspace).id == third

    pruned = cli("refresh", *where(repo, state), "--json")
    assert generations(workspace) == [pruned.out["generation"]]
    assert index_files(workspace) == [f"{pruned.out['generation']}.sqlite"]
    assert leftovers(workspace) == []


@pytest.mark.provider
def test_new_commit_is_stale_and_tampering_is_corrupt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    state = tmp_path / "state"
    old = git(repo, "rev-parse", "HEAD")
    assert cli("build", *where(repo, state), "--json").code == 0

    write_files(repo, {"ijson/extra.py": "def extra():\n    return 1\n"})
    commit_all(repo, "add extra")
    stale = cli("status", *where(repo, state), "--json")
    assert stale.code == 1
    assert stale.out["state"] == "stale" and stale.out["usable"] is False
    assert "different revision" in stale.out["detail"]
    assert stale.out["search"] == "unavailable"
    # Still current for the commit it was built from.
    assert cli("status", "--revision", old, *where(repo, state), "--json").out["state"] == "current"

    refreshed = cli("refresh", *where(repo, state), "--json")
    assert refreshed.code == 0
    assert cli("status", *where(repo, state), "--json").out["state"] == "current"

    workspace = Workspace.locate(repo, state)
    artifact = read_current(workspace).artifact_path
    with open(artifact, "r+b") as handle:  # same inode, mode and link count: only bytes change
        handle.seek(700)
        byte = handle.read(1)
        handle.seek(700)
        handle.write(bytes([byte[0] ^ 0xFF]))
    corrupt = cli("status", *where(repo, state), "--json")
    assert corrupt.code == 1
    assert corrupt.out["state"] == "corrupt" and "digest" in corrupt.out["detail"]


@pytest.mark.provider
@pytest.mark.parametrize(
    ("extra", "completeness", "because", "unsupported"),
    [
        # The provider always prunes build/ directories: out of its scope, not missing.
        ({"build/generated.py": "def generated():\n    return 1\n"}, "complete", None, 0),
        # `env -S` with options: the pinned classifier cannot tell what the file is.
        ({"tools/run": "#!/usr/bin/env -S python3 -u\nprint(1)\n"}, "partial", "1 code inputs are unclassified", 0),
        # R is dispatched but has no extractor: stamped by the provider, counted, not partial.
        ({"stats/model.r": "f <- function(x) x + 1\n"}, "complete", None, 1),
    ],
    ids=["pruned-dir", "unclassifiable-shebang", "unsupported-r"],
)
def test_uncovered_inputs_make_a_partial_build(
    tmp_path: Path, extra: dict[str, str], completeness: str, because: str | None, unsupported: int
) -> None:
    repo = make_repo(tmp_path / "repo", {**ijson_files(), **extra})
    state = tmp_path / "state"
    built = cli("build", *where(repo, state), "--json")
    assert built.out["status"] == "published"
    assert built.out["completeness"] == completeness
    assert built.out["unsupported_inputs"] == unsupported
    if completeness == "complete":
        assert built.code == 0 and built.out["usable"] is True
        assert "partial_because" not in built.out
        return
    assert built.code == 1, "a partial build is published but the command fails"
    assert built.out["usable"] is False and built.out["partial_because"] == [because]
    status = cli("status", *where(repo, state), "--json")
    assert status.code == 1
    assert status.out["state"] == "partial" and status.out["build"]["completeness"] == "partial"
    allowed = cli("status", "--allow-partial", *where(repo, state), "--json")
    assert allowed.code == 0
    assert allowed.out["state"] == "current" and allowed.out["search"] == "available"


@pytest.mark.provider
def test_two_builds_of_one_commit_differ_only_in_generation_identity(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    state = tmp_path / "state"
    first = cli("build", *where(repo, state), "--json")
    second = cli("refresh", "--keep-previous", *where(repo, state), "--json")
    assert first.code == 0 and second.code == 0
    workspace = Workspace.locate(repo, state)
    a, b = first.out["generation"], second.out["generation"]
    assert generations(workspace) == sorted([a, b])

    # The derived indexes hold the same nodes, edges, adjacency, census and tallies, row for row.
    for table in INDEX_TABLES:
        rows_a = table_rows(workspace.index_path(a), table)
        assert rows_a == table_rows(workspace.index_path(b), table), table
        if table in ("nodes", "edges", "adjacency", "census", "counts"):
            assert rows_a, f"{table} is empty; the comparison proves nothing"
    meta_a, meta_b = (table_rows(workspace.index_path(g), "generation")[0] for g in (a, b))
    columns = ("generation", "commit_id", "tree_id", "built_at", "completeness", "provider",
               "graph_digest", "graph_bytes", "census_digest", "document_format")
    differing = {name for name, x, y in zip(columns, meta_a, meta_b, strict=True) if x != y}
    assert {"generation"} <= differing <= {"generation", "built_at"}

    # Our manifests: same binding, census and artifact, different identity (and build time).
    ma, mb = (json.loads((workspace.generation_dir(g) / "manifest.json").read_bytes()) for g in (a, b))
    differing = {key for key in ma if ma[key] != mb[key]}
    assert {"generation"} <= differing <= {"generation", "built_at"}

    # The artifacts are byte-identical: the provider ran at the fixed run root, so no scratch
    # path of ours and no clock reached graph.bin.
    assert ma["graph_digest"] == mb["graph_digest"]
    assert (workspace.generation_dir(a) / "graph.bin").read_bytes() == (
        workspace.generation_dir(b) / "graph.bin"
    ).read_bytes()
    pa = artifact_members(workspace.generation_dir(a) / "graph.bin")
    assert list(pa) == ["graph.json", "manifest.json"]
    graph = json.loads(pa["graph.json"][1])
    tracked = set(git(repo, "ls-files").splitlines())
    prefix = f"{fixed_root()}/source/"
    assert graph["extracted_sources"] and all(s.startswith(prefix) for s in graph["extracted_sources"])
    assert {s[len(prefix):] for s in graph["extracted_sources"]} <= tracked
    assert str(state) not in pa["graph.json"][1].decode() + pa["manifest.json"][1].decode()


@pytest.mark.provider
@needs_bwrap
def test_sandbox_required_is_contained_and_off_is_not(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    state = tmp_path / "state"
    contained = cli("build", "--sandbox", "required", *where(repo, state), "--json")
    assert contained.code == 0, contained.err
    assert contained.out["contained"] is True
    uncontained = cli("refresh", "--sandbox", "off", *where(repo, state), "--json")
    assert uncontained.code == 0, uncontained.err
    assert uncontained.out["contained"] is False
    bogus = cli("refresh", "--sandbox", "maybe", *where(repo, state), "--json")
    assert bogus.code == 2, "an unknown --sandbox mode is a usage error"


@pytest.mark.provider
def test_doctor_reports_checks_with_and_without_a_build(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", ijson_files())
    state = tmp_path / "state"

    def checks(ran: Ran) -> dict[str, str]:
        assert ran.out["schema"] == "cm_graph.doctor.v1"
        for check in ran.out["checks"]:
            assert check["status"] in ("pass", "warn", "fail", "skip") and check["message"]
        return {check["check"]: check["status"] for check in ran.out["checks"]}

    before = cli("doctor", *where(repo, state), "--json")
    assert before.code == 0
    found = checks(before)
    assert found["provider-pin"] == "pass"
    assert found["provider-containment"] == ("pass" if BWRAP.exists() else "warn")
    assert found["state"] == "skip" and found["generation"] == "skip" and found["index"] == "skip"
    assert before.out["status"] in ("pass", "warn")

    assert cli("build", *where(repo, state), "--json").code == 0
    after = cli("doctor", *where(repo, state), "--json")
    assert after.code == 0
    found = checks(after)
    assert found["state"] == "pass" and found["generation"] == "pass" and found["index"] == "pass"

    os.chmod(state, 0o755)
    broken = cli("doctor", *where(repo, state), "--json")
    assert broken.code == 1 and broken.out["status"] == "fail"
    found = checks(broken)
    assert found["state"] == "fail" and found["generation"] == "fail" and found["index"] == "skip"
    failing = [c for c in broken.out["checks"] if c["status"] == "fail"]
    assert all(c.get("remediation") for c in failing)


# --------------------------------------------------------------------------------------------
# Faults: a misbehaving provider never replaces the current generation


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (FAIL_BODY, r"The provider failed \(exit 3\); no generation was published\."),
        (NOTHING_BODY, r"The provider wrote no graphify-out directory\."),
        (TWO_ROOTS_BODY, r"The provider wrote more than one output root\."),
    ],
    ids=["fails", "writes-nothing", "two-output-roots"],
)
def test_a_misbehaving_provider_leaves_the_previous_generation_current(
    tmp_path: Path, baseline: Workspace, body: str, message: str
) -> None:
    before = read_current(baseline).id
    provider = verify_provider(install_provider(tmp_path / "fake", body))
    with pytest.raises(Refusal, match=message) as raised:
        build(baseline, provider, refresh=True, sandbox="off", timeout=10)
    assert raised.value.reason == "provider"
    assert_untouched(baseline, before)


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_an_inventory_that_is_not_a_plain_file_makes_the_build_partial(
    tmp_path: Path, baseline: Workspace, kind: str
) -> None:
    """The provider exits 0 but leaves graphify-out/manifest.json as a FIFO (opening it would
    block the build forever, inside the lock) or a directory: no readable inventory, so partial."""
    make = "os.mkfifo" if kind == "fifo" else "os.mkdir"
    body = ok_body(g0_graph()) + f'os.remove("graphify-out/manifest.json")\n{make}("graphify-out/manifest.json")\n'
    provider = verify_provider(install_provider(tmp_path / "fake", body))
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(build(baseline, provider, refresh=True, sandbox="off", timeout=30))
        except BaseException as error:  # reported by the assertion below
            outcome.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "the build blocked on the provider's inventory"
    assert len(outcome) == 1 and not isinstance(outcome[0], BaseException), outcome
    result = outcome[0]
    assert result.manifest.completeness == "partial"
    assert result.coverage.notes[0] == "the provider's inventory is absent or unreadable"
    # The usable baseline stays current; the partial build is published beside it.
    assert graph_status(baseline).state == "current"
    attempt = read_attempt(baseline)
    assert attempt is not None and attempt.id == result.manifest.generation
    members = artifact_members(attempt.artifact_path)
    assert list(members) == ["graph.json"]
    assert leftovers(baseline) == []


@needs_proc
def test_a_hanging_provider_is_killed_at_the_timeout_with_its_whole_group(
    tmp_path: Path, baseline: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provider_module, "TERMINATE_GRACE_SECONDS", 0.5)
    before = read_current(baseline).id
    pids = tmp_path / "pids.json"
    provider = verify_provider(install_provider(tmp_path / "fake", hang_body(pids)))
    started = time.monotonic()
    with pytest.raises(ProviderRefusal, match="exceeded its time budget; no generation was published") as raised:
        build(baseline, provider, refresh=True, sandbox="off", timeout=2)
    elapsed = time.monotonic() - started
    assert raised.value.reason == "provider"
    assert 2 <= elapsed < 15
    recorded = json.loads(pids.read_text())
    assert recorded["pgid"] != os.getpgrp(), "the provider runs in a process group of its own (its keeper's)"
    assert not running(recorded["pid"]) and not running(recorded["child"]) and not running(recorded["pgid"])
    assert group_members(recorded["pgid"]) == []
    assert_untouched(baseline, before)


def test_an_uncontained_run_waits_for_the_fixed_run_root_then_refuses_as_busy(
    tmp_path: Path, baseline: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cm_graph.base.locking as locking_module

    before = read_current(baseline).id
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    # Another uncontained build of this user is running: held as a build holds it, so a real build
    # finishing meanwhile (it removes the directory it held) cannot leave this lock on a removed one.
    held = claim(fixed_root())
    monkeypatch.setattr(locking_module, "LOCK_WAIT_SECONDS", 0.5)
    try:
        with pytest.raises(Refusal, match="Another uncontained build is running") as raised:
            build(baseline, provider, refresh=True, sandbox="off", timeout=30)
        assert raised.value.reason == "busy"
    finally:
        os.close(held)
    assert_untouched(baseline, before)
    assert build(baseline, provider, refresh=True, sandbox="off", timeout=30).manifest.completeness == "complete"


def test_the_provider_gets_a_scrubbed_environment(
    tmp_path: Path, baseline: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "secret-token")
    monkeypatch.setenv("OPENAI_API_KEY", "secret-key")
    monkeypatch.setenv("https_proxy", "http://proxy.invalid:3128")
    monkeypatch.setenv("GRAPHIFY_OUT", str(tmp_path / "elsewhere"))
    report = tmp_path / "report.json"
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph(), report)))
    result = build(baseline, provider, refresh=True, sandbox="off", timeout=30)
    assert result.manifest.completeness == "complete" and result.run.contained is False
    seen = json.loads(report.read_text())
    env = seen["env"]
    # The provider runs at the fixed run root (the scratch dir moved there for the run) ...
    scratch = fixed_root()
    assert seen["cwd"] == str(scratch / "source")
    assert not os.path.lexists(scratch), "the run root is removed after the build, free for any user"
    assert not [e for e in os.listdir(baseline.directory) if e.endswith(".build")], "scratch removed"
    assert env["GIT_CEILING_DIRECTORIES"] == str(scratch)
    assert env["HOME"] == str(scratch / "home") and env["TMPDIR"] == str(scratch / "tmp")
    assert env["XDG_CACHE_HOME"] == str(scratch / "home" / "cache")
    assert (env["LC_ALL"], env["LANG"], env["TZ"]) == ("C", "C", "UTC")
    assert env["https_proxy"] == "" and env["no_proxy"] == "*" and env["PYTHONNOUSERSITE"] == "1"
    for secret in ("GITHUB_TOKEN", "OPENAI_API_KEY", "GRAPHIFY_OUT"):
        assert secret not in env
    allowed = {
        "PATH", "HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "LC_ALL",
        "LANG", "TZ", "no_proxy", "NO_PROXY", "http_proxy", "https_proxy", "HTTP_PROXY",
        "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "PYTHONNOUSERSITE", "GIT_TERMINAL_PROMPT",
        "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0",
    }
    assert set(env) <= allowed


def test_published_state_is_private(tmp_path: Path, baseline: Workspace) -> None:
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    result = build(baseline, provider, refresh=True, sandbox="off", timeout=30)
    assert read_current(baseline).id == result.manifest.generation
    seen = set()
    for directory, _dirs, files in os.walk(baseline.root):
        assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o700, directory
        for name in files:
            path = Path(directory) / name
            st = os.lstat(path)
            assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and st.st_nlink == 1, path
            seen.add(path.relative_to(baseline.root).as_posix())
    gen = result.manifest.generation
    workspace = baseline.directory.name
    seen.discard(f"graph/{workspace}/indexes/{gen}.seal")  # optional: the verification seal
    assert seen == {
        f"graph/{workspace}/indexes/{gen}.sqlite.seal",
        f"graph/{workspace}.lock",
        f"graph/{workspace}/current",
        f"graph/{workspace}/generations/{gen}/manifest.json",
        f"graph/{workspace}/generations/{gen}/graph.bin",
        f"graph/{workspace}/generations/{gen}/build.json",
        f"graph/{workspace}/indexes/{gen}.sqlite",
    }
    assert baseline.current_pointer.read_text() == f"{gen}\n"


# --------------------------------------------------------------------------------------------
# Install verification


def test_install_verification_refuses_wrong_version_modified_and_unowned(tmp_path: Path) -> None:
    wrong = install_provider(tmp_path / "wrong", NOTHING_BODY, version="0.9.57")
    with pytest.raises(ProviderRefusal, match=r"graphifyy==0\.9\.57, but the pin is graphifyy==0\.9\.58"):
        verify_provider(wrong)

    modified = install_provider(tmp_path / "modified", NOTHING_BODY)
    assert verify_provider(modified).executable == modified
    with open(modified, "a") as handle:
        handle.write("# edited after install\n")
    with pytest.raises(ProviderRefusal, match="modified in place"):
        verify_provider(modified)

    unowned = install_provider(tmp_path / "unowned", NOTHING_BODY)
    record = next((tmp_path / "unowned").glob("lib/*/site-packages/*.dist-info/RECORD"))
    record.write_text("\n".join(line for line in record.read_text().splitlines() if "bin/graphify" not in line))
    with pytest.raises(ProviderRefusal, match="not part of an installed graphifyy==0.9.58"):
        verify_provider(unowned)

    with pytest.raises(ProviderRefusal, match="does not exist"):
        verify_provider(tmp_path / "nowhere" / "graphify")


def _fake_venv_cli(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """``cm-graph`` run by the fake install's interpreter, so its default provider is the fake."""
    return subprocess.run(
        [str(root / "bin" / "python"), "-c", "from cm_graph.cli.app import main; main()", *args],
        capture_output=True, timeout=60,
    )


def test_cli_refuses_a_wrong_version_before_materialising_anything(tmp_path: Path) -> None:
    root = tmp_path / "venv"
    install_provider(root, ok_body(g0_graph()), version="0.9.57", venv=True)
    repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
    state = tmp_path / "state"
    done = _fake_venv_cli(root, "build", *where(repo, state), "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["reason"] == "provider"
    assert b"cm-graph: provider: The installed provider is graphifyy==0.9.57" in done.stderr
    assert b"Traceback" not in done.stderr
    assert not state.exists(), "nothing is created before the install is verified"


def test_cli_reports_a_failing_provider_and_keeps_the_previous_generation(
    tmp_path: Path, baseline: Workspace
) -> None:
    before = read_current(baseline).id
    root = tmp_path / "venv"
    install_provider(root, FAIL_BODY, venv=True)
    repo, state = baseline.checkout, baseline.root
    done = _fake_venv_cli(root, "refresh", "--sandbox", "off", *where(repo, state), "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout) == {
        "status": "refused", "reason": "provider",
        "detail": "The provider failed (exit 3); no generation was published.",
    }
    assert b"cm-graph: provider: The provider failed (exit 3)" in done.stderr
    assert b"Traceback" not in done.stderr
    assert_untouched(baseline, before)


# --------------------------------------------------------------------------------------------
# Refused state and checkouts


def test_a_corrupt_current_pointer_is_invalid(baseline: Workspace) -> None:
    repo, state = baseline.checkout, baseline.root
    baseline.current_pointer.write_bytes(b"not-a-generation\n")  # same inode, still 0600
    ran = cli("status", *where(repo, state), "--json")
    assert ran.code == 1
    assert ran.out["state"] == "invalid" and "pointer is corrupt" in ran.out["detail"]
    assert "build" not in ran.out


def test_a_state_dir_open_to_others_is_refused(tmp_path: Path, baseline: Workspace) -> None:
    before = read_current(baseline).id
    os.chmod(baseline.root, 0o755)
    ran = cli("status", *where(baseline.checkout, baseline.root), "--json")
    assert ran.code == 1 and ran.out["state"] == "invalid"
    assert "owner-only" in ran.out["detail"]
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    with pytest.raises(Refusal, match="owner-only") as raised:
        build(baseline, provider, sandbox="off", timeout=30)
    assert raised.value.reason == "invalid"
    os.chmod(baseline.root, 0o700)
    assert_untouched(baseline, before)


def test_a_state_dir_inside_a_git_work_tree_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
    inside = repo / "nested" / "state"
    for command in ("status", "build", "remove"):
        ran = cli(command, *where(repo, inside), "--json")
        assert ran.code == 1, command
        assert ran.out["reason"] == "invalid"
        assert "outside Git repositories" in ran.out["detail"]
    assert not inside.exists()


def test_a_partial_clone_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
    git(repo, "config", "extensions.partialclone", "origin")
    workspace = Workspace.locate(repo, tmp_path / "state")
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    with pytest.raises(Refusal, match="partial clone; use a full clone") as raised:
        build(workspace, provider, sandbox="off", timeout=30)
    assert raised.value.reason == "invalid"
    assert not workspace.directory.exists(), "refused before anything is materialised"


def test_a_second_build_waits_for_the_lock_then_refuses_busy(
    tmp_path: Path, baseline: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # build() takes the lock with build_lock's default wait (35 s, bound when the module was
    # imported); the same lock function with a 1 s wait keeps the test short.
    monkeypatch.setattr(generation_module, "build_lock", functools.partial(build_lock, wait_seconds=1.0))
    before = read_current(baseline).id
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    with build_lock(baseline.lock_path):
        started = time.monotonic()
        with pytest.raises(BuildBusy, match="already running for this checkout") as raised:
            build(baseline, provider, refresh=True, sandbox="off", timeout=30)
        assert time.monotonic() - started >= 1.0
    assert raised.value.reason == "busy"
    assert_untouched(baseline, before)


def test_a_second_build_proceeds_once_the_lock_is_released(
    tmp_path: Path, baseline: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(generation_module, "build_lock", functools.partial(build_lock, wait_seconds=20.0))
    before = read_current(baseline).id
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(build(baseline, provider, refresh=True, sandbox="off", timeout=30))
        except BaseException as error:  # reported by the assertion below
            outcome.append(error)

    worker = threading.Thread(target=run)
    with build_lock(baseline.lock_path):
        worker.start()
        time.sleep(0.8)
        assert worker.is_alive() and not outcome, "the second build waits for the lock"
        assert leftovers(baseline) == [], "and materialises nothing while it waits"
        assert read_current(baseline).id == before
    worker.join(30)
    assert len(outcome) == 1 and not isinstance(outcome[0], BaseException), outcome
    assert read_current(baseline).id == outcome[0].manifest.generation != before
    assert generations(baseline) == [outcome[0].manifest.generation]
    assert leftovers(baseline) == []


def test_status_during_a_concurrent_refresh_judges_the_new_generation(
    tmp_path: Path, baseline: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers take no lock: a refresh may publish and prune between status reading the pointer
    and verifying the artifact. That must not read as `corrupt` (whose remedy is to delete)."""
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    judged: list[str] = []

    def read_then_refresh(workspace: Workspace) -> Any:
        generation = read_current(workspace)
        judged.append(generation.id)
        if len(judged) == 1:  # a real refresh lands right after the pointer was read
            build(workspace, provider, refresh=True, sandbox="off", timeout=30)
        return generation

    monkeypatch.setattr(status_module, "read_current", read_then_refresh)
    before = read_current(baseline).id
    status = graph_status(baseline)
    after = read_current(baseline).id
    assert after != before and generations(baseline) == [after]
    assert judged == [before, after]
    assert status.state == "current" and status.generation is not None and status.generation.id == after


def test_remove_deletes_state_and_a_second_remove_has_nothing_to_do(baseline: Workspace) -> None:
    repo, state = baseline.checkout, baseline.root
    removed = cli("remove", *where(repo, state), "--json")
    assert removed.code == 0
    assert removed.out == {"schema": "code_mower.contextGraphRemove.v1", "removed": True}
    assert not baseline.directory.exists()
    assert baseline.lock_path.exists(), "the lock file is a sibling and survives"
    status = cli("status", *where(repo, state), "--json")
    assert status.code == 1 and status.out["state"] == "absent"
    again = cli("remove", *where(repo, state), "--json")
    assert again.code == 0 and again.out["removed"] is False
    text = cli("remove", *where(repo, state))
    assert text.code == 0 and "No local graph state to remove." in text.out


def test_the_seven_states_in_order() -> None:
    assert STATES == ("absent", "invalid", "oversized", "corrupt", "stale", "partial", "current")


# --------------------------------------------------------------------------------------------
# Containment on a host without bubblewrap


def test_without_bubblewrap_auto_runs_uncontained_and_required_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provider_module, "BWRAP_CANDIDATES", (str(tmp_path / "no-such" / "bwrap"),))
    provider = verify_provider(install_provider(tmp_path / "fake", ok_body(g0_graph())))
    scratch = tmp_path / "scratch"
    for name in ("source", "home", "tmp"):
        (scratch / name).mkdir(parents=True)
    (scratch / "source" / "a.py").write_text("def a():\n    return 1\n")
    report = run_provider(provider, scratch, sandbox="auto", timeout=30)
    assert report.contained is False
    assert (scratch / "source" / "graphify-out" / "graph.json").is_file()

    shutil.rmtree(scratch / "source" / "graphify-out")
    with pytest.raises(ProviderRefusal, match="No working containment") as raised:
        run_provider(provider, scratch, sandbox="required", timeout=30)
    assert raised.value.reason == "provider"
    assert not (scratch / "source" / "graphify-out").exists(), "refused before launching"


@pytest.mark.provider
def test_status_reports_whether_the_build_was_contained(tmp_path: Path) -> None:
    """A provider run records its containment beside the generation; status shows it."""
    if shutil.which("bwrap") is None and not os.path.exists("/usr/bin/bwrap"):
        pytest.skip("bubblewrap is not installed on this host")
    repo = make_repo(tmp_path / "repo", {"pkg/a.py": "def f():\n    return 1\n"})
    state = tmp_path / "state"
    workspace = Workspace.locate(repo, state)
    build(workspace, verify_provider(default_executable()), sandbox="required")
    status = graph_status(workspace).to_json()
    assert status["cm_graph"]["origin"] == "provider_run"
    assert status["cm_graph"]["contained"] is True
