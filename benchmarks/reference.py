"""cm-graph side by side with the reference implementation, Code Mower 1.6.1 (issue 13, "Must show").

    python benchmarks/reference.py requests==2.32.3 sympy==1.13.3 [--repeat 5] [--json-out F]

For each PyPI package (the one-commit wheel repositories of ``import_memory.prepare_corpus``,
cached under ``--cache-dir``) this clones the corpus repository into a temp dir and, in one run on
one checkout, times each command as a whole process, cm-graph then Code Mower:

1. cold ``build`` into a fresh state dir (single runs: they take up to minutes);
2. a second cold ``build`` of the same commit into another state dir, for cm-graph only: the two
   ``graph.bin`` must be the same bytes (reproducible artifacts);
3. ``status`` and ``query`` (impact of ``run.py``'s comparison target, packet written), medians
   of ``--repeat`` runs; the two packets are compared without what legitimately differs (the
   clock and the generation id);
4. an empty commit (same tree), ``refresh``;
5. a one-line change to one module (a function appended to the largest ``.py``), ``refresh``;
6. for cm-graph, a cold ``build`` of that commit into a third state dir: the one-file refresh's
   ``graph.bin`` must be the same bytes as the cold build's.

Beside every figure the 1-minute load average is recorded (``os.getloadavg``): the machine is
shared, so a figure taken under load says so.

Code Mower needs Python >= 3.12 and bubblewrap. With ``--reference-bin`` an installed
``code-mower`` is used; otherwise an interpreter >= 3.12 is looked for (on PATH, then under
pyenv), each candidate *run* to read its version (a pyenv shim for a version that is not
selected fails, and is skipped), and ``code-mower==1.6.1`` is installed with pip into a venv
under the cache dir. Where none exists the reference columns are skipped with that note. Both
implementations run the same pinned provider (``graphify`` beside this interpreter), with the
provider in its sandbox (cm-graph ``--sandbox required``, as Code Mower always does).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import import_memory  # noqa: E402
import refresh  # noqa: E402
import run  # noqa: E402

REFERENCE_VERSION = "1.6.1"
REFERENCE_MIN_PYTHON = (3, 12)
PROVIDER_PIN = {  # the pinned provider release, in Code Mower's pin-file form
    "distribution": "graphifyy",
    "version": "0.9.58",
    "wheel_sha256": "e239803288e91c723d6e30540860bd6d5a1dc3f0914b9fc1104b0233e98aaeb8",
}
AUTH_ARGS = ("--connection", "local-graph", "--repository", "owner/repo", "--recipient", "claude:builder",
             "--max-documents", "16")
ONE_LINE = "\ndef cm_graph_refresh_benchmark(): return 1\n"

git = import_memory._git


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load() -> float:
    """The 1-minute load average now."""
    return round(os.getloadavg()[0], 2)


# ---------------------------------------------------------------------------------------------
# Finding or installing the reference


def python_version(interpreter: str) -> tuple[int, int] | None:
    """The (major, minor) an interpreter reports when run, or None when it does not run (a pyenv
    shim for a version that is not selected exits non-zero)."""
    try:
        done = subprocess.run([interpreter, "-c", "import sys; print(*sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = done.stdout.split()
    if done.returncode != 0 or len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def interpreter_candidates(path: str, pyenv_root: Path) -> Iterable[str]:
    """Interpreters worth trying: ``python3.N`` and ``python3`` on ``path``, then pyenv's own
    installs (``<root>/versions/*/bin/python3``), which need no shim."""
    for minor in range(20, REFERENCE_MIN_PYTHON[1] - 1, -1):
        found = shutil.which(f"python3.{minor}", path=path)
        if found:
            yield found
    found = shutil.which("python3", path=path)
    if found:
        yield found
    for version in sorted(pyenv_root.glob("versions/*/bin/python3"), reverse=True):
        yield str(version)


def find_python(path: str, pyenv_root: Path) -> str | None:
    """The oldest interpreter that runs and is at least Python 3.12 (closest to the release Code
    Mower was measured with; the first found among equals), or None."""
    runnable = []
    for order, candidate in enumerate(interpreter_candidates(path, pyenv_root)):
        version = python_version(candidate)
        if version is not None and version >= REFERENCE_MIN_PYTHON:
            runnable.append((version, order, candidate))
    return min(runnable)[2] if runnable else None


def reference_bin(cache: Path, given: Path | None) -> tuple[Path | None, str]:
    """The ``code-mower`` to run and how it was found, or None and the reason it cannot run."""
    if given is not None:
        return given, f"given: {given}"
    venv = cache / f"code-mower-{REFERENCE_VERSION}"
    binary = venv / "bin" / "code-mower"
    if binary.is_file():
        return binary, f"cached venv {venv}"
    if shutil.which("bwrap") is None:
        return None, "bubblewrap (bwrap) is not installed; Code Mower needs it"
    python = find_python(os.environ.get("PATH", ""), Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")))
    if python is None:
        return None, "no Python >= 3.12 on this machine (PATH or pyenv); Code Mower needs one"
    log(f"installing code-mower=={REFERENCE_VERSION} with {python} into {venv}")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    f"code-mower=={REFERENCE_VERSION}"], check=True)
    return binary, f"installed into {venv} with {python}"


# ---------------------------------------------------------------------------------------------
# Timing


def once(command: list[str]) -> dict[str, Any]:
    """One whole-process run: wall seconds, load before, exit code and stdout (JSON when it is)."""
    before = load()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    try:
        out: Any = json.loads(done.stdout)
    except ValueError:
        out = None
    return {"s": round(seconds, 3), "load": before, "rc": done.returncode, "out": out,
            "stderr": done.stderr.decode(errors="replace")[-800:] if done.returncode else ""}


def median_of(command: list[str], repeat: int) -> dict[str, Any]:
    """``run._timed`` (median over ``repeat`` whole-process runs) with the load around it."""
    before = load()
    timing = run._timed(command, repeat, check=False)
    return {"median_s": round(timing["median_s"], 4), "min_s": round(timing["min_s"], 4),
            "max_s": round(max(timing["runs_s"]), 4), "runs": repeat, "rc": timing["returncode"],
            "load": before, "load_after": load()}


class CmGraph:
    """The cm-graph commands of one measurement (this interpreter's ``cm-graph``)."""

    def __init__(self, repo: Path, sandbox: str) -> None:
        self.binary = str(refresh.CM_GRAPH)
        self.repo = repo
        self.sandbox = sandbox

    def where(self, state: Path) -> list[str]:
        return ["--repo-path", str(self.repo), "--state-dir", str(state)]

    def build(self, state: Path, verb: str = "build") -> dict[str, Any]:
        return once([self.binary, verb, *self.where(state), "--sandbox", self.sandbox, "--json"])

    def status(self, state: Path) -> list[str]:
        return [self.binary, "status", *self.where(state), "--json"]

    def authorization(self, state: Path, out: Path) -> Path:
        done = subprocess.run([self.binary, "auth", "init", *AUTH_ARGS, *self.where(state)],
                              capture_output=True, check=True)
        out.write_bytes(done.stdout)
        return out

    def query(self, state: Path, target: str, authorization: Path, packet: Path) -> list[str]:
        return [self.binary, "query", "--question", "impact", "--target", target, "--authorization",
                str(authorization), "--packet-out", str(packet), *self.where(state), "--json"]


class CodeMower:
    """The same commands for Code Mower (``code-mower context-graph ...``), same provider."""

    def __init__(self, binary: Path, repo: Path, pin: Path) -> None:
        self.binary = str(binary)
        self.repo = repo
        self.pin = pin
        self.indexer = import_memory.provider_command()[0]

    def base(self, verb: str, state: Path) -> list[str]:
        return [self.binary, "context-graph", verb, "--repo-path", str(self.repo), "--state-dir", str(state),
                "--json"]

    def build(self, state: Path, verb: str = "build") -> dict[str, Any]:
        return once([*self.base(verb, state), "--pin-file", str(self.pin), "--indexer", self.indexer])

    def status(self, state: Path) -> list[str]:
        return self.base("status", state)

    def authorization(self, cm_authorization: Path, generation: str, out: Path) -> Path:
        """cm-graph's authorization file (the same contract) with Code Mower's generation id: the
        envelope names the generation it authorizes."""
        document = json.loads(cm_authorization.read_bytes())
        document["connection"]["generation"] = generation
        out.write_text(json.dumps(document))
        return out

    def query(self, state: Path, target: str, authorization: Path, packet: Path) -> list[str]:
        return [*self.base("query", state), "--question", "impact", "--target", target,
                "--authorization", str(authorization), "--packet-out", str(packet)]


def private_dir(path: Path) -> Path:
    """A fresh 0700 state dir (Code Mower refuses one others can read)."""
    path.mkdir(mode=0o700)
    return path


def same_packet(ours: Path, theirs: Path) -> bool:
    return run.normalise_packet(json.loads(ours.read_text())) == run.normalise_packet(json.loads(theirs.read_text()))


def brief(result: dict[str, Any], *keys: str) -> dict[str, Any]:
    """A timing with the named fields of its JSON summary (not the whole summary)."""
    out = result.get("out") if isinstance(result.get("out"), dict) else {}
    return {"s": result["s"], "load": result["load"], "rc": result["rc"],
            **{key: out[key] for key in keys if key in out},
            **({"stderr": result["stderr"]} if result["rc"] else {})}


# ---------------------------------------------------------------------------------------------
# One package


def measure(spec: str, cache: Path, reference: Path | None, repeat: int, sandbox: str) -> dict[str, Any]:
    meta = import_memory.prepare_corpus(spec, cache, log)
    target = run._run_child(["child-pick", str(Path(meta["graphify_out"]) / "graph.json")])["target"]
    result: dict[str, Any] = {"package": spec, "tracked_files": meta["tracked_files"], "target": target}
    with tempfile.TemporaryDirectory(prefix="cm-graph-reference-") as temp:
        work = Path(temp)
        repo = work / "repo"
        subprocess.run(["git", "clone", "-q", meta["repo"], str(repo)], check=True)
        pin = work / "pin.json"
        pin.write_text(json.dumps(PROVIDER_PIN))
        ours = CmGraph(repo, sandbox)
        theirs = CodeMower(reference, repo, pin) if reference else None
        state, second, third = (private_dir(work / name) for name in ("state", "cold-2", "cold-3"))
        ref_state = private_dir(work / "ref-state")

        log(f"[{spec}] cm-graph cold build")
        cold = ours.build(state)
        result["cm_graph"] = {"cold_build": brief(cold, "completeness", "edges", "graph_bytes")}
        if cold["rc"] != 0:
            raise SystemExit(f"cm-graph build failed: {cold['stderr']}")
        log(f"[{spec}] cm-graph second cold build (other state dir)")
        cold_again = ours.build(second)
        result["cm_graph"]["cold_build_again"] = brief(cold_again)
        result["cm_graph"]["two_cold_builds_identical"] = refresh.artifact(state) == refresh.artifact(second)
        if theirs:
            log(f"[{spec}] Code Mower cold build")
            ref_cold = theirs.build(ref_state)
            result["code_mower"] = {"cold_build": brief(ref_cold, "completeness", "graph_bytes", "graph_digest",
                                                           "generation")}

        log(f"[{spec}] status and query, {repeat} runs each")
        cm_auth = ours.authorization(state, work / "auth-cm.json")
        cm_packet, ref_packet = work / "packet-cm.json", work / "packet-ref.json"
        result["cm_graph"]["status"] = median_of(ours.status(state), repeat)
        result["cm_graph"]["query"] = median_of(ours.query(state, target, cm_auth, cm_packet), repeat)
        if theirs and ref_cold["rc"] == 0:
            ref_auth = theirs.authorization(cm_auth, ref_cold["out"]["generation"], work / "auth-ref.json")
            result["code_mower"]["status"] = median_of(theirs.status(ref_state), repeat)
            result["code_mower"]["query"] = median_of(theirs.query(ref_state, target, ref_auth, ref_packet),
                                                      repeat)
            result["packets_identical"] = ref_packet.is_file() and same_packet(cm_packet, ref_packet)

        git(repo, "commit", "-q", "--allow-empty", "-m", "same tree")
        log(f"[{spec}] same-tree refresh")
        result["cm_graph"]["same_tree_refresh"] = brief(ours.build(state, "refresh"), "extract_seconds")
        if theirs:
            ref_same = brief(theirs.build(ref_state, "refresh"), "graph_digest")
            result["code_mower"]["same_tree_refresh"] = ref_same
            # the same tree through its provider twice: does its artifact come out the same bytes?
            result["code_mower"]["same_tree_refresh_same_digest_as_cold"] = (
                ref_same.get("graph_digest") == result["code_mower"]["cold_build"].get("graph_digest"))

        module = refresh.one_module(repo)
        with open(repo / module, "a", encoding="utf-8") as handle:
            handle.write(ONE_LINE)
        git(repo, "commit", "-q", "-am", "one line in one file")
        result["changed_file"] = module
        log(f"[{spec}] one-file refresh ({module})")
        warm = ours.build(state, "refresh")
        result["cm_graph"]["one_file_refresh"] = brief(warm, "extract_seconds", "completeness")
        if theirs:
            result["code_mower"]["one_file_refresh"] = brief(theirs.build(ref_state, "refresh"), "completeness",
                                                                     "graph_digest")
        log(f"[{spec}] cm-graph cold build of the one-file commit")
        cold_changed = ours.build(third)
        result["cm_graph"]["cold_build_of_changed_commit"] = brief(cold_changed)
        result["cm_graph"]["one_file_refresh_identical_to_cold"] = refresh.artifact(state) == refresh.artifact(third)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--reference-bin", type=Path, help="an installed code-mower (else found or installed)")
    parser.add_argument("--no-reference", action="store_true", help="cm-graph columns only")
    parser.add_argument("--repeat", type=int, default=7, help="runs of each fast command (status, query)")
    parser.add_argument("--sandbox", default="required", choices=("auto", "required", "off"))
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    cache = args.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    if args.no_reference:
        binary, how = None, "skipped (--no-reference)"
    else:
        binary, how = reference_bin(cache, args.reference_bin)
    log(f"reference: {how}")
    document = {
        "machine": {**import_memory.machine_facts(), "uptime": subprocess.run(
            ["uptime"], capture_output=True, text=True).stdout.strip()},
        "reference": {"version": REFERENCE_VERSION, "how": how, "available": binary is not None},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": [measure(spec, cache, binary, args.repeat, args.sandbox) for spec in args.specs],
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    text = json.dumps(document, indent=2)
    if args.json_out:
        args.json_out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
