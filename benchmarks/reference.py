"""cm-graph side by side with the reference implementation, Code Mower 1.6.1 (issue 13, "Must show").

    python benchmarks/reference.py requests==2.32.3 sympy==1.13.3 [--repeat 7] [--json-out F]
        [--work-dir DIR]                                  (keep the checkouts and state dirs)
    python benchmarks/reference.py --again F --work-dir DIR   (status and query once more, quieter)
    python benchmarks/reference.py --markdown F               (the tables in docs/benchmarks.md)

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
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
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


@contextlib.contextmanager
def work_dir(kept: Path | None, spec: str) -> Iterator[Path]:
    """Where one package is measured: ``kept/<spec>`` (made afresh and left behind, for
    ``--again``) or a temp dir removed afterwards."""
    if kept is None:
        with tempfile.TemporaryDirectory(prefix="cm-graph-reference-") as temp:
            yield Path(temp)
        return
    work = kept.resolve() / spec
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    yield work


def fast_steps(work: Path, target: str, reference: Path | None, repeat: int, sandbox: str) -> dict[str, Any]:
    """``status`` and ``query`` of both implementations, medians of ``repeat`` runs, on the state
    dirs in ``work`` (each current for the checkout's HEAD); the two packets compared."""
    repo, state, ref_state = work / "repo", work / "state", work / "ref-state"
    ours = CmGraph(repo, sandbox)
    cm_auth = ours.authorization(state, work / "auth-cm.json")
    cm_packet, ref_packet = work / "packet-cm.json", work / "packet-ref.json"
    out: dict[str, Any] = {"cm_graph": {"status": median_of(ours.status(state), repeat),
                                        "query": median_of(ours.query(state, target, cm_auth, cm_packet), repeat)}}
    if reference is None:
        return out
    theirs = CodeMower(reference, repo, work / "pin.json")
    status = once(theirs.status(ref_state))
    if status["rc"] != 0 or not isinstance(status["out"], dict):
        # e.g. its reader refuses a graph.json over its 64 MiB budget: no query to time
        out["code_mower"] = {"status": brief(status, "query_reader")}
        return out
    ref_auth = theirs.authorization(cm_auth, status["out"]["build"]["generation"], work / "auth-ref.json")
    out["code_mower"] = {"status": median_of(theirs.status(ref_state), repeat),
                         "query": median_of(theirs.query(ref_state, target, ref_auth, ref_packet), repeat)}
    out["packets_identical"] = ref_packet.is_file() and same_packet(cm_packet, ref_packet)
    return out


def measure(spec: str, cache: Path, reference: Path | None, repeat: int, sandbox: str,
            kept: Path | None) -> dict[str, Any]:
    meta = import_memory.prepare_corpus(spec, cache, log)
    target = run._run_child(["child-pick", str(Path(meta["graphify_out"]) / "graph.json")])["target"]
    result: dict[str, Any] = {"package": spec, "tracked_files": meta["tracked_files"], "target": target}
    with work_dir(kept, spec) as work:
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
        fast = fast_steps(work, target, reference, repeat, sandbox)
        result["cm_graph"].update(fast["cm_graph"])
        if theirs:
            result["code_mower"].update(fast.get("code_mower", {}))
            result["packets_identical"] = fast.get("packets_identical", False)

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


# ---------------------------------------------------------------------------------------------
# The table for docs/benchmarks.md


def _seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s" if value < 10 else f"{value:.0f} s"


def _cell(step: dict[str, Any] | None) -> tuple[str, str, float | None]:
    """(figure, load, seconds) of one step: a median of N runs or a single run."""
    if not step:
        return "–", "–", None
    if "median_s" in step:
        return (f"{_seconds(step['median_s'])} (median of {step['runs']}; {_seconds(step['min_s'])}–"
                f"{_seconds(step['max_s'])})", f"{step['load']:.1f}", step["median_s"])
    failed = "" if step["rc"] == 0 else f" (exit {step['rc']})"
    return f"{_seconds(step['s'])}{failed}", f"{step['load']:.1f}", step["s"]


STEPS = (("cold build", "cold_build"), ("status", "status"), ("query (impact, packet written)", "query"),
         ("same-tree refresh (empty commit)", "same_tree_refresh"),
         ("one-file refresh (one line appended)", "one_file_refresh"))


def markdown(document: dict[str, Any]) -> str:
    """One table per package: each step for cm-graph and Code Mower with the load beside it and
    Code Mower's time over cm-graph's; then the identity checks."""
    lines: list[str] = []
    if not document["reference"].get("binary"):
        lines += [f"Code Mower {REFERENCE_VERSION} columns skipped: {document['reference']['how']}.", ""]
    for result in document["results"]:
        ours, theirs = result["cm_graph"], result.get("code_mower", {})
        lines += [f"**{result['package'].replace('==', ' ')}** ({result['tracked_files']:,} files, "
                  f"{ours['cold_build'].get('edges', 0):,} edges; query target `{result['target']}`; "
                  f"one-file change in `{result['changed_file']}`)", "",
                  "| step | cm-graph | load | Code Mower 1.6.1 | load | Code Mower / cm-graph |",
                  "|---|---|---|---|---|---|"]
        for title, key in STEPS:
            figure, where, mine = _cell(ours.get(key))
            other, other_load, reference = _cell(theirs.get(key))
            ratio = f"{reference / mine:.1f}×" if mine and reference else "–"
            lines.append(f"| {title} | {figure} | {where} | {other} | {other_load} | {ratio} |")
        rerun = result.get("again")
        for title, key in STEPS[1:3] if rerun else ():
            figure, where, mine = _cell(rerun["cm_graph"].get(key))
            other, other_load, reference = _cell(rerun.get("code_mower", {}).get(key))
            ratio = f"{reference / mine:.1f}×" if mine and reference else "–"
            lines.append(f"| {title}, again at {rerun['at'][11:16]} UTC | {figure} | {where} | {other} | "
                         f"{other_load} | {ratio} |")
        cold = ours["cold_build_of_changed_commit"]["s"]
        lines += ["", f"- cm-graph one-file refresh: {100 * ours['one_file_refresh']['s'] / cold:.0f} % of a "
                  f"cold build of that commit ({_seconds(cold)}); provider time in it "
                  f"{_seconds(ours['one_file_refresh'].get('extract_seconds', 0))}.",
                  f"- cm-graph two cold builds in different state dirs: graph.bin "
                  f"{'**identical**' if ours['two_cold_builds_identical'] else '**differs**'}; one-file refresh "
                  f"against a cold build of that commit: "
                  f"{'**identical**' if ours['one_file_refresh_identical_to_cold'] else '**differs**'}."]
        if theirs:
            packets = ("not compared (Code Mower answered no query)" if "query" not in theirs
                       else "**identical**" if result.get("packets_identical") else "**differ**")
            lines.append(f"- Code Mower: same-tree refresh's artifact digest "
                         f"{'equals' if theirs.get('same_tree_refresh_same_digest_as_cold') else '**differs from**'}"
                         f" its cold build's; impact packets of the two (clock and generation id left out) "
                         f"{packets}.")
        lines.append("")
    return "\n".join(lines)


def again(results: Path, kept: Path | None, repeat: int, sandbox: str) -> None:
    """Status and query once more, on the state dirs a run kept, recorded under ``again``."""
    if kept is None:
        raise SystemExit("--again needs the run's --work-dir")
    document = json.loads(results.read_text())
    binary = Path(document["reference"]["binary"]) if document["reference"].get("binary") else None
    for result in document["results"]:
        log(f"[{result['package']}] status and query again, {repeat} runs each")
        result["again"] = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           **fast_steps(kept.resolve() / result["package"], result["target"], binary, repeat,
                                        sandbox)}
        results.write_text(json.dumps(document, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/cm-graph-bench"))
    parser.add_argument("--reference-bin", type=Path, help="an installed code-mower (else found or installed)")
    parser.add_argument("--no-reference", action="store_true", help="cm-graph columns only")
    parser.add_argument("--repeat", type=int, default=7, help="runs of each fast command (status, query)")
    parser.add_argument("--sandbox", default="required", choices=("auto", "required", "off"))
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--markdown", type=Path, metavar="RESULTS", help="print the tables of a saved run")
    parser.add_argument("--work-dir", type=Path, help="keep each package's checkout and state dirs here")
    parser.add_argument("--again", type=Path, metavar="RESULTS",
                        help="rerun status and query on a saved run's --work-dir (a quieter moment) into RESULTS")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return
    if args.again:
        again(args.again, args.work_dir, args.repeat, args.sandbox)
        return
    cache = args.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    if args.no_reference:
        binary, how = None, "--no-reference was given"
    else:
        binary, how = reference_bin(cache, args.reference_bin)
    log(f"reference: {how}")
    document = {
        "machine": {**import_memory.machine_facts(), "uptime": subprocess.run(
            ["uptime"], capture_output=True, text=True).stdout.strip()},
        "reference": {"version": REFERENCE_VERSION, "how": how, "binary": str(binary) if binary else None},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": [],
    }
    for spec in args.specs:
        document["results"].append(measure(spec, cache, binary, args.repeat, args.sandbox, args.work_dir))
        document["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if args.json_out:  # after every package: a long run that stops later keeps what it measured
            args.json_out.write_text(json.dumps(document, indent=2) + "\n")
    print(json.dumps(document, indent=2))


if __name__ == "__main__":
    main()
