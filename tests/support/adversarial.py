"""Adversarial sweep (issue 12, "Must show"): damaged graphs, random SIGKILLs, a full disk.

Every trial starts from a good, current generation of a real git repository and does one hostile
thing to it; the trial *holds* when cm-graph answered with a clean refusal or a sane success (no
traceback, exit 0 or 1) and the user lost nothing (after a refusal, or a kill, the previous answer
is still served and ``status`` says usable). Anything else *broke*, with the reason recorded.

Run in CI at a small size by ``tests/cli/test_adversarial.py``; run by hand with larger counts::

    python -m tests.support.adversarial --count 2000 --kills 60 --seed 7

Nothing is mocked: graphs go through the same ``build --from-graph`` code the console script runs
(in process through typer's CliRunner, and one in ``SUBPROCESS_EVERY`` through the real console
script), kills are SIGKILLs of real ``cm-graph`` processes, the full disk is a real tmpfs.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cm_graph.cli.app import app

from .g0 import edge, g0_graph, make_g0_repo, node
from .helpers import CM_GRAPH, commit_all, inventory_for, make_repo, write_files, write_output

SUBPROCESS_EVERY = 12  # one damaged graph in this many goes through the real console script
# One question whose answer walks calls and tests over three files: a generation replaced by one
# that answers nothing, or differently, changes it. (More questions would cost CI time, not reach.)
QUESTIONS = (("impact", "parse_config"),)
RUNNER = CliRunner()


@dataclass
class Tally:
    """tried / held / broke for one category, with the first few ways it broke. A trial that
    broke in a way already reported, whose fix is assigned elsewhere (``known``: where it is
    reported), counts as ``known`` instead, listed with its reference, so it is neither hidden
    nor failing the run."""

    tried: int = 0
    held: int = 0
    broke: int = 0
    skipped: str = ""
    examples: list[str] = field(default_factory=list)
    killed_mid_run: int = 0  # kill categories: trials whose SIGKILL landed before the command ended
    known: int = 0
    known_examples: list[str] = field(default_factory=list)

    def judge(self, problem: str | None, case: str, known: str | None = None) -> None:
        self.tried += 1
        if problem is None:
            self.held += 1
            return
        if known is not None:
            self.known += 1
            line = f"{case}: {problem} [{known}]"
            if len(self.known_examples) < 5 and line not in self.known_examples:
                self.known_examples.append(line)
            return
        self.broke += 1
        if len(self.examples) < 5:
            self.examples.append(f"{case}: {problem}")


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str
    traceback: bool


def cli(*args: Any) -> Outcome:
    """One command in process, through the same typer application the console script runs.

    An exception that escapes the application is what the console script would print as a
    traceback; it is reported in ``stderr`` as one line (type and message) so a sweep can say so.
    """
    result = RUNNER.invoke(app, [str(arg) for arg in args])
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        line = f"Traceback: {type(error).__name__}: {str(error)[:120]}"
        return Outcome(result.exit_code, result.stdout, f"{result.stderr}{line}\n", True)
    return Outcome(result.exit_code, result.stdout, result.stderr, "Traceback" in result.stderr)


def console_script(*args: Any, timeout: float = 120) -> Outcome:
    """The same command through the installed ``cm-graph`` console script."""
    done = subprocess.run(
        [str(CM_GRAPH), *(str(arg) for arg in args)], capture_output=True, text=True,
        timeout=timeout, check=False, stdin=subprocess.DEVNULL,
    )
    return Outcome(done.returncode, done.stdout, done.stderr, "Traceback" in done.stderr)


def unclean(outcome: Outcome, what: str) -> str | None:
    """Why ``outcome`` is not a clean answer or refusal, or None when it is."""
    if outcome.traceback:
        last = (outcome.stderr.strip().splitlines() or ["?"])[-1][:160]
        return f"{what} crashed with a traceback ({last})"
    if outcome.code not in (0, 1):
        return f"{what} exited {outcome.code}"
    return None


# ---------------------------------------------------------------------------------------------
# A checkout with a good current generation, and what it answers.


@dataclass
class Checkout:
    repo: Path
    state: Path
    good: Path  # a graphify-out/ holding the good graph
    inventory: dict[str, Any]
    baseline: tuple[Outcome, ...] = ()  # the good generation's answers, once restore() has built it

    def where(self) -> list[str]:
        return ["--repo-path", str(self.repo), "--state-dir", str(self.state)]

    def build(self, out: Path, *, real: bool = False) -> Outcome:
        run = console_script if real else cli
        return run("build", "--from-graph", out, *self.where())

    def answers(self) -> tuple[Outcome, ...]:
        """What the operator sees for each question (exit code, text, refusal), in process."""
        return tuple(cli("ask", question, target, *self.where()) for question, target in QUESTIONS)

    def status(self) -> tuple[Outcome, dict[str, Any]]:
        outcome = cli("status", *self.where(), "--json")
        try:
            parsed = json.loads(outcome.stdout) if outcome.stdout.strip() else {}
        except ValueError:
            parsed = {}
        return outcome, parsed if isinstance(parsed, dict) else {}

    @property
    def snapshot(self) -> Path:
        return self.repo.parent / "state-snapshot"

    def restore(self) -> tuple[Outcome, ...]:
        """Put the good generation back as the current one; return its answers.

        The first call builds it through the CLI and keeps a copy of the whole state root; later
        calls put that copy back, which costs a few milliseconds instead of a build.
        """
        if not self.baseline:
            outcome = self.build(self.good)
            if outcome.code != 0:
                raise RuntimeError(f"the good graph does not build: {outcome.stderr.strip()}")
            self.baseline = self.answers()
            shutil.copytree(self.state, self.snapshot, symlinks=True)
            return self.baseline
        shutil.rmtree(self.state, ignore_errors=True)
        shutil.copytree(self.snapshot, self.state, symlinks=True)
        return self.baseline


def make_checkout(base: Path, state: Path | None = None, extra: dict[str, str] | None = None) -> Checkout:
    """G0's repository (plus ``extra`` files, committed) with the good G0 graph ready to build;
    the provider inventory covers every tracked ``.py`` file, odd names included."""
    repo = make_g0_repo(base / "repo")
    if extra:
        write_files(repo, extra)
        commit_all(repo, "extra files")
    listed = git_bytes(repo, "ls-files", "-z").decode("utf-8").split("\0")
    inventory = inventory_for(repo, [path for path in listed if path.endswith(".py")])
    good = write_output(base / "good-out", g0_graph(), inventory)
    return Checkout(repo, state or base / "state", good, inventory)


def git_bytes(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def held_after_refusal(checkout: Checkout, before: tuple[Outcome, ...]) -> str | None:
    """After a refusal or a kill: the previous answers still served, status usable."""
    status, report = checkout.status()
    problem = unclean(status, "status")
    if problem:
        return problem
    if report.get("usable") is not True:
        return f"status no longer usable (state {report.get('state')!r})"
    now = checkout.answers()
    if now != before:
        return f"the previous answer is no longer served (now: {_gist(now[0])})"
    return None


def _gist(answer: Outcome) -> str:
    """Exit code and first line of one ``answers()`` entry."""
    return f"ask exit {answer.code}, {_reason(answer)}"


def sane_after_success(checkout: Checkout) -> str | None:
    status, _ = checkout.status()
    problem = unclean(status, "status")
    if problem:
        return problem
    for (question, target), seen in zip(QUESTIONS, checkout.answers(), strict=True):
        problem = unclean(seen, f"ask {question} {target} on the accepted graph")
        if problem:
            return problem
    return None


# ---------------------------------------------------------------------------------------------
# Damaged graphs: each maker turns the good graph into one hostile graph.json (bytes).

ODD_PATHS = (
    "example_pkg/a#b.py", "example_pkg/a#L3.py", "example_pkg/tab\there.py", "example_pkg/new\nline.py",
    "example_pkg/esc\x1b[31m.py", "example_pkg/del\x7f.py", "example_pkg/nel\u0085.py",
    "example_pkg/:warning:.py", "../outside.py", "/etc/passwd", "example_pkg/./config.py",
    "example_pkg//config.py", "example_pkg/config.py#L3", " example_pkg/config.py", "",
)
WRONG_VALUES: tuple[Any, ...] = (None, 0, -1, 1.5, True, [], {}, ["x"], {"a": 1}, "", "x" * 5000)
NODE_FIELDS = ("id", "label", "file_type", "source_file", "source_location")
EDGE_FIELDS = ("source", "target", "relation", "confidence", "source_file", "source_location")


def _dump(graph: Any) -> bytes:
    return json.dumps(graph, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _record(rng: random.Random, graph: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    if rng.random() < 0.5:
        return rng.choice(graph["nodes"]), NODE_FIELDS
    return rng.choice(graph["edges"]), EDGE_FIELDS


def truncated(rng: random.Random, graph: dict[str, Any]) -> bytes:
    raw = _dump(graph)
    return raw[: rng.randrange(0, len(raw))]


def byte_flips(rng: random.Random, graph: dict[str, Any]) -> bytes:
    raw = bytearray(_dump(graph))
    for _ in range(rng.randint(1, 3)):
        raw[rng.randrange(len(raw))] ^= rng.randint(1, 255)
    return bytes(raw)


def wrong_types(rng: random.Random, graph: dict[str, Any]) -> bytes:
    if rng.random() < 0.15:
        key = rng.choice(("nodes", "edges", "hyperedges"))
        graph[key] = rng.choice(WRONG_VALUES + ({"nodes": []},))
        return _dump(graph if rng.random() < 0.8 else [graph])
    record, fields = _record(rng, graph)
    record[rng.choice(fields)] = copy.deepcopy(rng.choice(WRONG_VALUES))
    return _dump(graph)


def missing_fields(rng: random.Random, graph: dict[str, Any]) -> bytes:
    if rng.random() < 0.15:
        graph.pop(rng.choice(("nodes", "edges")), None)
        return _dump(graph)
    record, fields = _record(rng, graph)
    record.pop(rng.choice(fields), None)
    return _dump(graph)


def huge_numbers(rng: random.Random, graph: dict[str, Any]) -> bytes:
    record, _ = _record(rng, graph)
    choice = rng.randrange(5)
    if choice == 0:
        record["source_location"] = "L" + "9" * rng.choice((10, 19, 20, 400))
    elif choice == 1:
        record["source_location"] = f"L{rng.choice((0, -1))}"
    elif choice == 2:
        record["weight"] = 10 ** rng.choice((20, 400, 4000))
    elif choice == 3:
        return _dump(graph).replace(b'"input_tokens": 0', b'"input_tokens": 1e999', 1)
    else:
        return _dump(graph).replace(b'"output_tokens": 0', rng.choice((b'"output_tokens": NaN',
                                    b'"output_tokens": Infinity', b'"output_tokens": -0')), 1)
    return _dump(graph)


def lone_surrogates(rng: random.Random, graph: dict[str, Any]) -> bytes:
    record, fields = _record(rng, graph)
    name = rng.choice(fields)
    escape = rng.choice(("\\ud800", "\\udc80", "\\udfff"))  # the six characters of a JSON escape
    record[name] = f"{record.get(name) or 'x'}{escape}"
    # json.dumps doubles the backslash; undo that so the file holds the escape of a lone surrogate
    return _dump(graph).replace(b"\\\\u", b"\\u")


def odd_paths(rng: random.Random, graph: dict[str, Any]) -> bytes:
    path = rng.choice(ODD_PATHS)
    if rng.random() < 0.5:
        graph["nodes"].append(node(f"n-odd-{rng.randrange(10**6)}", "odd", path, "L1"))
        graph["edges"].append(edge(graph["nodes"][-1]["id"], "n-config", "calls", "EXTRACTED"))
    else:
        record, _ = _record(rng, graph)
        record["source_file"] = path
    return _dump(graph)


def duplicated_ids(rng: random.Random, graph: dict[str, Any]) -> bytes:
    twin = copy.deepcopy(rng.choice(graph["nodes"]))
    if rng.random() < 0.5:
        twin["label"] = "twin"
        twin["source_location"] = f"L{rng.randint(1, 20)}"
    graph["nodes"].insert(rng.randrange(len(graph["nodes"]) + 1), twin)
    if rng.random() < 0.5:
        graph["edges"].append(copy.deepcopy(rng.choice(graph["edges"])))
    return _dump(graph)


def dangling_edges(rng: random.Random, graph: dict[str, Any]) -> bytes:
    ids = [record["id"] for record in graph["nodes"]]
    for _ in range(rng.randint(1, 4)):
        ghost = f"ghost-{rng.randrange(10**6)}"
        pair = [rng.choice(ids), ghost]
        rng.shuffle(pair)
        graph["edges"].append(edge(pair[0], pair[1], rng.choice(("calls", "imports", "tests"))))
    return _dump(graph)


def non_code_types(rng: random.Random, graph: dict[str, Any]) -> bytes:
    for record in rng.sample(graph["nodes"], rng.randint(1, len(graph["nodes"]))):
        record["file_type"] = rng.choice(("document", "paper", "image", "rationale", "CODE", "", "video"))
    return _dump(graph)


def broken_documents(rng: random.Random, graph: dict[str, Any]) -> bytes:
    choice = rng.randrange(8)
    if choice == 0:
        return b""
    if choice == 1:
        return rng.choice((b"[]", b"null", b"42", b'"graph"', b"{}"))
    if choice == 2:
        return b"\xef\xbb\xbf" + _dump(graph)  # a byte-order mark
    if choice == 3:
        return _dump(graph).replace(b'"parse_config"', b'"pars\xe9_config"')  # not UTF-8
    if choice == 4:
        depth = rng.choice((1000, 100_000))
        return b'{"nodes": ' + b"[" * depth + b"]" * depth + b', "edges": []}'
    if choice == 5:
        return _dump(graph) + b" trailing"
    if choice == 6:
        return _dump(graph).replace(b'{"nodes"', b'{"nodes": [], "nodes"', 1)  # a duplicated key
    return _dump(graph).replace(b"\n", b"") + b"\x00"


DAMAGES: dict[str, Callable[[random.Random, dict[str, Any]], bytes]] = {
    "truncated": truncated,
    "byte_flips": byte_flips,
    "wrong_types": wrong_types,
    "missing_fields": missing_fields,
    "huge_numbers": huge_numbers,
    "lone_surrogates": lone_surrogates,
    "odd_paths": odd_paths,
    "duplicated_ids": duplicated_ids,
    "dangling_edges": dangling_edges,
    "non_code_types": non_code_types,
    "broken_documents": broken_documents,
}


# Odd but legal names of tracked files (issue 12 item 3): a graph with records in them must be
# accepted, those records untraversable, and the rest of the graph answering as before.
ODD_TRACKED = {
    "odd/a#b.py": "x = 1\n", "odd/a#L3.py": "x = 1\n", "odd/tab\there.py": "x = 1\n",
    "odd/new\nline.py": "x = 1\n", "odd/esc\x1b[31m.py": "x = 1\n", "odd/del\x7f.py": "x = 1\n",
    "odd/nel\u0085.py": "x = 1\n", "odd/:warning:.py": "x = 1\n",
}


def odd_tracked_records(rng: random.Random, graph: dict[str, Any]) -> bytes:
    """Symbols (and a relationship between two of them) in tracked files with odd names, apart
    from the part of the graph the baseline question walks."""
    chosen = rng.sample(sorted(ODD_TRACKED), rng.randint(1, 3))
    for number, path in enumerate(chosen):
        graph["nodes"].append(node(f"n-odd-{number}", f"odd_{number}", path, "L1"))
    if len(chosen) > 1:
        graph["edges"].append(edge("n-odd-0", "n-odd-1", "calls", "EXTRACTED", chosen[0], "L1"))
    return _dump(graph)


def sweep_odd_tracked(checkout: Checkout, count: int, seed: int, tallies: dict[str, Tally]) -> None:
    tally = tallies.setdefault("odd_tracked_names", Tally())
    before = checkout.restore()
    for number in range(count):
        raw = odd_tracked_records(random.Random(f"{seed}:odd-tracked:{number}"), g0_graph())
        out = write_output(checkout.state.parent / "odd-out", raw, checkout.inventory)
        outcome = checkout.build(out)
        problem = unclean(outcome, "build --from-graph")
        if problem is None and outcome.code:
            problem = f"a graph with records in odd but legal file names was refused with {_reason(outcome)}"
        if problem is None:
            now = checkout.answers()
            if now != before:
                problem = f"the rest of the graph no longer answers as before (now: {_gist(now[0])})"
        tally.judge(problem, f"#{number}")
        checkout.restore()


def sweep_damaged_graphs(checkout: Checkout, count: int, seed: int, tallies: dict[str, Tally]) -> None:
    """``count`` damaged graphs, spread evenly over the categories, each built over the good one."""
    before = checkout.restore()
    names = list(DAMAGES)
    for number in range(count):
        category = names[number % len(names)]
        rng = random.Random(f"{seed}:{category}:{number}")
        raw = DAMAGES[category](rng, g0_graph())
        out = write_output(checkout.state.parent / "damaged-out", raw, checkout.inventory)
        real = number % SUBPROCESS_EVERY == 0
        outcome = checkout.build(out, real=real)
        problem = unclean(outcome, "build --from-graph")
        if problem is None:
            problem = held_after_refusal(checkout, before) if outcome.code else sane_after_success(checkout)
        if problem and outcome.code:
            problem += f" after build refused with {_reason(outcome)}"
        tallies.setdefault(category, Tally()).judge(problem, f"#{number}{' (console script)' if real else ''}")
        if outcome.code == 0 or problem:
            checkout.restore()


def _reason(outcome: Outcome) -> str:
    lines = outcome.stderr.strip().splitlines() or outcome.stdout.strip().splitlines() or ["no message"]
    return repr(lines[0][:100])


# ---------------------------------------------------------------------------------------------
# Random SIGKILLs of real cm-graph processes.


def _kill_after(
    argv: list[str], delay: float, tally: Tally, just_before: Callable[[], None] | None = None
) -> str:
    """Start the console script, SIGKILL it after ``delay`` s (calling ``just_before`` first);
    its stderr (for tracebacks)."""
    child = subprocess.Popen(
        [str(CM_GRAPH), *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        child.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        if just_before is not None:
            just_before()
        child.send_signal(signal.SIGKILL)
        child.wait()
        tally.killed_mid_run += 1
    assert child.stderr is not None
    stderr = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    return stderr


def leftovers(state: Path) -> list[str]:
    """Scratch and temp files under a state root (every such name starts with a dot)."""
    return sorted(str(path.relative_to(state)) for path in state.rglob(".*"))


def judge_leftovers(state: Path, tallies: dict[str, Tally], case: str) -> None:
    """After a kill and one more command of the checkout, no scratch of the dead build is left
    (issue 12 item 8: the next command sweeps stale scratch)."""
    left = leftovers(state)
    problem = f"the killed command's scratch is still there: {left[:2]}" if left else None
    tallies.setdefault("kill_leftovers", Tally()).judge(problem, case)


def _variant_graph() -> dict[str, Any]:
    """A good graph that answers differently from G0 (one more caller of parse_config)."""
    graph = g0_graph()
    graph["edges"].append(edge("n-report", "n-config", "calls", "EXTRACTED"))
    return graph


def sweep_kills(checkout: Checkout, count: int, seed: int, tallies: dict[str, Tally], base: Path) -> None:
    """SIGKILL ``build --from-graph`` (of a graph that answers differently), ``index --rebuild``
    and ``query`` at random delays; afterwards the state answers as before or as the finished
    command would have left it, and ``status`` is usable."""
    rng = random.Random(f"{seed}:kills")
    variant = write_output(base / "variant-out", _variant_graph(), checkout.inventory)
    before = checkout.restore()
    checkout.build(variant)
    after_variant = checkout.answers()
    checkout.restore()
    authorization = base / "authorization.json"
    done = cli("auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
               "--recipient", "claude:builder", *checkout.where(), "--out", authorization)
    assert done.code == 0, done.stderr
    packet = base / "packet.json"
    commands = {
        "kill_build": (["build", "--from-graph", str(variant), *checkout.where()], {before, after_variant}),
        "kill_index": (["index", "--rebuild", *checkout.where()], {before}),
        "kill_query": ([
            "query", "--question", "impact", "--target", "parse_config", "--authorization",
            str(authorization), "--packet-out", str(packet), *checkout.where(),
        ], {before}),
    }
    names = list(commands)
    for number in range(count):
        category = names[number % len(names)]
        argv, acceptable = commands[category]
        packet.unlink(missing_ok=True)
        stderr = _kill_after(argv, rng.uniform(0.0, 0.45), tallies.setdefault(category, Tally()))
        problem = "traceback on stderr" if "Traceback" in stderr else None
        status, report = checkout.status()
        problem = problem or unclean(status, "status")
        if problem is None and report.get("usable") is not True:
            problem = f"status not usable after the kill (state {report.get('state')!r})"
        if problem is None and checkout.answers() not in acceptable:
            problem = "the state answers neither as before nor as the finished command would"
        if problem is None and category == "kill_query" and os.path.lexists(packet):
            try:
                json.loads(packet.read_bytes())
            except ValueError:
                problem = "a half-written packet was left at --packet-out"
        tallies.setdefault(category, Tally()).judge(problem, f"#{number}")
        judge_leftovers(checkout.state, tallies, f"{category} #{number}")
        if problem or category == "kill_build":
            checkout.restore()  # the same answers as ``before``: answers never depend on the clock


def sweep_concurrent_builds(checkout: Checkout, count: int, tallies: dict[str, Tally], base: Path) -> None:
    """Two ``build --from-graph`` of different good graphs at once (console scripts): both end
    cleanly, and the state answers as one of them left it (issue 12 item 7)."""
    tally = tallies.setdefault("concurrent_builds", Tally())
    variant = write_output(base / "variant-out", _variant_graph(), checkout.inventory)
    before = checkout.restore()
    checkout.build(variant)
    after_variant = checkout.answers()
    before = checkout.restore()
    for number in range(count):
        children = [
            subprocess.Popen(
                [str(CM_GRAPH), "build", "--from-graph", str(out), *checkout.where()],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            )
            for out in (checkout.good, variant)
        ]
        outcomes = []
        for child in children:
            _, stderr = child.communicate(timeout=120)
            outcomes.append(Outcome(child.returncode, "", stderr, "Traceback" in stderr))
        problem = next((p for o in outcomes if (p := unclean(o, "one of two concurrent builds"))), None)
        if problem is None:
            status, report = checkout.status()
            problem = unclean(status, "status")
            if problem is None and report.get("usable") is not True:
                problem = "status not usable after two concurrent builds"
        if problem is None and checkout.answers() not in (before, after_variant):
            problem = "the state answers as neither build left it"
        tally.judge(problem, f"#{number}")
        checkout.restore()


def _graphify_processes(marker: bytes) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def sweep_refresh_kills(count: int, seed: int, tallies: dict[str, Tally], base: Path) -> None:
    """SIGKILL ``refresh`` with the real provider on a small repository at random delays; a
    provider (or worker) running at the kill must be gone within a second (issue 12 item 9)."""
    from cm_graph.provider.run import default_executable

    tally = tallies.setdefault("kill_refresh", Tally())
    if count <= 0:
        return
    if default_executable() is None:
        tally.skipped = "the pinned provider is not installed"
        return
    rng = random.Random(f"{seed}:refresh")
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import beta\n\n\ndef alpha():\n    return beta()\n",
        "pkg/b.py": "def beta():\n    return 1\n",
        "tests/test_a.py": "from pkg.a import alpha\n\n\ndef test_alpha():\n    assert alpha() == 1\n",
        # graphify starts a worker pool from 20 files on, and runs a second or two on these
        **{f"pkg/m{n:02}.py": "".join(f"def f{n}_{k}(v):\n    return f{n}_{k + 1}(v) + {k}\n\n\n"
                                      for k in range(60)) for n in range(60)},
    }
    repo = make_repo(base / "tiny", files)
    commit_all(repo, "tiny")
    state = base / "tiny-state"
    where = ["--repo-path", str(repo), "--state-dir", str(state)]
    started = time.monotonic()
    first = console_script("refresh", *where, "--sandbox", "off", timeout=300)
    took = time.monotonic() - started
    if first.code != 0:
        tally.skipped = f"the real provider did not build the tiny repository ({first.stderr.strip()[-200:]})"
        return

    def answer() -> Outcome:
        return cli("ask", "impact", "pkg/b.py", *where)

    before = answer()
    marker = str(state).encode()  # the provider's HOME is in the scratch under this state root
    at_kill: list[int] = []
    for number in range(count):
        at_kill.clear()
        stderr = _kill_after(
            ["refresh", *where, "--sandbox", "off"], rng.uniform(0.3, 0.9) * took, tally,
            lambda: at_kill.extend(_graphify_processes(marker)),
        )
        deadline = time.monotonic() + 1.0  # first, before anything else gives a survivor time
        while (alive := _graphify_processes(marker)) and time.monotonic() < deadline:
            time.sleep(0.02)
        problem = "traceback on stderr" if "Traceback" in stderr else None
        if problem is None and alive:
            problem = f"{len(alive)} provider processes (of {len(at_kill)} at the kill) outlived the refresh"
        for pid in alive:  # never leave one running for the trials that follow
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        status = cli("status", *where, "--json")
        problem = problem or unclean(status, "status")
        if problem is None and json.loads(status.stdout or "{}").get("usable") is not True:
            problem = "status not usable after the kill"
        if problem is None and answer() != before:
            problem = "the previous answer is no longer served"
        tally.judge(problem, f"#{number}")
        judge_leftovers(state, tallies, f"kill_refresh #{number}")


# ---------------------------------------------------------------------------------------------
# A small tmpfs that fills up.


@dataclass
class Tmpfs:
    path: Path
    size: int


def mount_tmpfs(path: Path, size: int) -> Tmpfs | str:
    """A fresh tmpfs of ``size`` bytes at ``path``, or the reason it cannot be had."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return "not root, so no tmpfs can be mounted"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        return f"mount -t tmpfs was refused ({done.stderr.strip()[:120]})"
    return Tmpfs(path, size)


def unmount(tmpfs: Tmpfs) -> None:
    subprocess.run(["umount", str(tmpfs.path)], capture_output=True, check=False)


def fill_disk(directory: Path, leave: int) -> Path:
    """Fill the file system of ``directory`` until about ``leave`` bytes are free."""
    filler = directory / "filler"
    free = shutil.disk_usage(directory).free
    with open(filler, "wb") as handle:
        remaining = max(0, free - leave)
        block = b"\0" * 65536
        try:
            while remaining > 0:
                remaining -= handle.write(block[: min(len(block), remaining)])
        except OSError:
            pass
    return filler


def _bigger_graph() -> dict[str, Any]:
    """A good graph whose index needs more room than G0's (many symbols over the same files)."""
    graph = g0_graph()
    for number in range(400):
        graph["nodes"].append(node(f"n-extra-{number}", f"extra_{number}", "example_pkg/loader.py",
                                   f"L{1 + number % 50}"))
        graph["edges"].append(edge(f"n-extra-{number}", "n-config", "calls", "EXTRACTED"))
    return graph


def sweep_full_disk(count: int, seed: int, tallies: dict[str, Tally], base: Path) -> None:
    """build / index --rebuild / query in a state dir on a tiny tmpfs left with little room."""
    rng = random.Random(f"{seed}:disk")
    names = ("disk_full_build", "disk_full_index", "disk_full_query")
    mounted = mount_tmpfs(base / "tmpfs", 4 * 1024 * 1024)
    if isinstance(mounted, str):
        for name in names:
            tallies.setdefault(name, Tally()).skipped = mounted
        return
    try:
        checkout = make_checkout(base / "disk", state=mounted.path / "state")
        before = checkout.restore()
        bigger = write_output(base / "bigger-out", _bigger_graph(), checkout.inventory)
        authorization = base / "disk-authorization.json"
        done = cli("auth", "init", "--connection", "local-graph", "--repository", "owner/repo",
                   "--recipient", "claude:builder", *checkout.where(), "--out", authorization)
        assert done.code == 0, done.stderr
        for number in range(count):
            category = names[number % len(names)]
            filler = fill_disk(mounted.path, rng.choice((0, 4096, 32 * 1024, 128 * 1024, 512 * 1024)))
            try:
                if category == "disk_full_build":
                    outcome = checkout.build(bigger, real=number % 4 == 0)
                elif category == "disk_full_index":
                    outcome = cli("index", "--rebuild", *checkout.where())
                else:
                    outcome = cli("query", "--question", "impact", "--target", "parse_config",
                                  "--authorization", authorization, "--packet-out",
                                  mounted.path / "packet.json", *checkout.where())
                problem = unclean(outcome, category.replace("disk_full_", ""))
                if problem is None:
                    if outcome.code and category == "disk_full_build":
                        problem = held_after_refusal(checkout, before)
                    elif category != "disk_full_build":
                        problem = held_after_refusal(checkout, before)
                    else:
                        problem = sane_after_success(checkout)
            finally:
                filler.unlink(missing_ok=True)
                (mounted.path / "packet.json").unlink(missing_ok=True)
            tallies.setdefault(category, Tally()).judge(problem, f"#{number}")
            before = checkout.restore()
    finally:
        unmount(mounted)


# ---------------------------------------------------------------------------------------------


CATEGORIES = (
    *DAMAGES, "odd_tracked_names", "kill_build", "kill_index", "kill_query", "concurrent_builds",
    "kill_refresh", "kill_leftovers", "disk_full_build", "disk_full_index", "disk_full_query",
)


@dataclass(frozen=True)
class Sizes:
    graphs: int = 220
    odd: int = 8
    kills: int = 18
    concurrent: int = 3
    refresh_kills: int = 3
    disk: int = 12


def run_sweep(base: Path, sizes: Sizes, seed: int) -> dict[str, Tally]:
    """Every category once over fresh checkouts under ``base``; tallies by category."""
    tallies = {name: Tally() for name in CATEGORIES}
    checkout = make_checkout(base / "graphs")
    sweep_damaged_graphs(checkout, sizes.graphs, seed, tallies)
    sweep_odd_tracked(make_checkout(base / "odd", extra=ODD_TRACKED), sizes.odd, seed, tallies)
    kills = make_checkout(base / "kills")
    sweep_kills(kills, sizes.kills, seed, tallies, base / "kills")
    sweep_concurrent_builds(kills, sizes.concurrent, tallies, base / "kills")
    sweep_refresh_kills(sizes.refresh_kills, seed, tallies, base)
    sweep_full_disk(sizes.disk, seed, tallies, base)
    return tallies


def report(tallies: dict[str, Tally]) -> str:
    known = any(tally.known for tally in tallies.values())
    lines = [f"{'category':<18} {'tried':>6} {'held':>6} {'broke':>6}" + (f" {'known':>6}" if known else "")]
    for name, tally in tallies.items():
        note = f"  (skipped: {tally.skipped})" if tally.skipped else ""
        if tally.killed_mid_run:
            note += f"  ({tally.killed_mid_run} killed mid-run)"
        counts = f"{tally.tried:>6} {tally.held:>6} {tally.broke:>6}" + (f" {tally.known:>6}" if known else "")
        lines.append(f"{name:<18} {counts}{note}")
        lines.extend(f"    broke {example}" for example in tally.examples)
        lines.extend(f"    known {example}" for example in tally.known_examples)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=Sizes.graphs, help="damaged graphs")
    parser.add_argument("--odd", type=int, default=Sizes.odd, help="graphs over odd tracked names")
    parser.add_argument("--kills", type=int, default=Sizes.kills, help="SIGKILLs of build/index/query")
    parser.add_argument("--concurrent", type=int, default=Sizes.concurrent, help="pairs of concurrent builds")
    parser.add_argument("--refresh-kills", type=int, default=Sizes.refresh_kills)
    parser.add_argument("--disk", type=int, default=Sizes.disk, help="full-disk trials")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cm-graph-adversarial-") as base:
        sizes = Sizes(args.count, args.odd, args.kills, args.concurrent, args.refresh_kills, args.disk)
        tallies = run_sweep(Path(base), sizes, args.seed)
    print(report(tallies))
    print(f"{time.monotonic() - started:.1f} s")
    return 1 if any(tally.broke for tally in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
