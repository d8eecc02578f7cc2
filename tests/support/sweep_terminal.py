"""The terminal-output category of the issue-25 sweep (``adversarial2.py``): what a command prints
when the *operator's own input* holds control characters, which the hostile-repository test
(``tests/cli/test_terminal_escapes.py``) does not send: arguments and option values (names,
paths, recipients, fleets, counts, answer ids), arguments that are not UTF-8 at all, a checkout
whose path is not UTF-8, an authorization file, a session file and a packet (for ``score``)
holding escapes, and usage errors around ``--help``.

Each command line is a template with ``{x}`` filled by one character class (CSI, OSC 52, C1 CSI,
BEL/BS, DEL, CR, SOH, the bidi override and isolate, the line separator) or by raw bytes that are
not UTF-8. Text arguments run through the typer application in process (the console script's
own parser), byte arguments and the fast ``query`` path through the installed console script. A
run *holds* when it exits 0, 1 or 2 (usage), with no traceback, and neither stream holds a
character ``hostilenames.FORBIDDEN`` names.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

from .adversarial import Outcome, Tally, cli
from .g0 import g0_graph, make_g0_repo
from .helpers import CM_GRAPH, publish
from .hostilenames import FORBIDDEN

CLASSES = {"csi": "\x1b[31m", "osc52": "\x1b]52;c;QUFB\x07", "c1": "\u009b2J", "bel-bs": "\x07\x08", "del": "\x7f",
           "cr": "\r", "soh": "\x01", "bidi": "\u202e", "isolate": "\u2066", "line-separator": "\u2028"}
NOT_UTF8 = {"0xff": b"\xff", "surrogate": b"\xed\xa0\x80", "cut": b"a\xc3"}
ID = "sha256:" + "0" * 64
TEMPLATES: tuple[tuple[str, ...], ...] = (
    ("ask", "impact", "{x}"), ("ask", "{x}", "parse_config"), ("context", "usage", "{x}"), ("context", "{x}", "x"),
    ("symbols", "{x}"), ("status", "--state-dir", "/tmp/no{x}/s"), ("status", "--repo-path", "/nonexistent{x}"),
    ("remove", "--repo-path", "{x}"), ("build", "--revision", "{x}"), ("build", "--from-graph", "/no{x}"),
    ("diff", "{x}", "HEAD"), ("export", "--format", "{x}"), ("score", "/tmp/no{x}.json"),
    ("fleet", "usages", "{x}", "sym"), ("fleet", "add", "f", "--repo-path", "/no{x}"), ("fleet", "list", "{x}"),
    ("fleet", "add", "f", "--repo-path", ".", "--repository", "r{x}"), ("doctor", "--fleet", "{x}"),
    ("connect", "--connection", "{x}", "--repository", "o/r", "--recipient", "claude:builder"),
    ("connect", "--connection", "c", "--repository", "o/r{x}", "--recipient", "claude:builder{x}"),
    ("connection-status", "--connection", "{x}"), ("disconnect", "--connection", "{x}"),
    ("auth", "init", "--connection", "{x}", "--repository", "a", "--recipient", "b"),
    ("context", "fetch", "--connection", "c", "--handle", "{x}", "--recipient", "r"),
    ("session", "init", "/tmp/s{x}", "--connection", "c", "--repository", "r", "--recipient", "claude:builder",
     "--work-item", "{x}", "--directory", "."),
    ("feedback", "record", "--intent", "how", "--target", "{x}", "--answer-id", "{x}", "--reads-avoided", "1",
     "--files-read", "0", "--correct"),
    ("feedback", "record", "--intent", "{x}", "--target", "a", "--answer-id", ID, "--reads-avoided", "{x}",
     "--files-read", "0", "--correct", "--client", "{x}"),
    ("context", "usage", "parse_config", "--max-chars", "{x}"), ("eval", "run", "--min-overlap", "{x}"),
    ("mcp", "--connection", "{x}", "--recipient", "{x}"), ("mcp", "--connection", "c{x}", "--recipient", "r", "--http"),
    ("{x}", "--help"), ("ask", "--help", "{x}"), ("fleet", "{x}"), ("--{x}",), ("index", "--{x}"),
    ("ask", "impact", "parse_config", "--json", "--{x}=1"),
)
# Through the console script: the fast parser of ``query`` and ``--help`` runs before typer does.
FAST = (
    ("query", "--question", "impact", "--target", "{x}", "--authorization", "/no{x}", "--packet-out", "/tmp/p{x}"),
    ("query", "--question", "{x}", "--target", "a", "--authorization", "a", "--packet-out", "b"),
    ("query", "--question", "impact", "--target", "a", "--authorization", "a", "--packet-out", "b", "--depth", "{x}"),
)


class Terminal:
    def __init__(self, base: Path) -> None:
        self.repo = make_g0_repo(base / "repo")
        self.state = base / "state"
        publish(self.repo, self.state, g0_graph())
        self.env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")} | {
            "CM_GRAPH_HOME": str(self.state)}

    def in_process(self, args: list[str]) -> Outcome:
        """``args`` through the typer application, run in the G0 checkout ("." and the default
        checkout are it, as for a user in it) with the state root as the environment names it."""
        previous, home = os.getcwd(), os.environ.get("CM_GRAPH_HOME")
        os.chdir(self.repo)
        os.environ["CM_GRAPH_HOME"] = str(self.state)
        try:
            return cli(*args)
        finally:
            os.chdir(previous)
            if home is None:
                del os.environ["CM_GRAPH_HOME"]
            else:
                os.environ["CM_GRAPH_HOME"] = home

    def console(self, args: list[bytes], cwd: Path | None = None) -> Outcome:
        done = subprocess.run([bytes(CM_GRAPH), *args], cwd=cwd or self.repo, env=self.env, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=120, check=False)
        return Outcome(done.returncode, done.stdout.decode("utf-8", "replace"), _decoded(done.stderr),
                       b"Traceback" in done.stderr)


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"(stderr is not UTF-8: {error})"


def judged(outcome: Outcome, what: str) -> str | None:
    if outcome.traceback:
        last = (outcome.stderr.strip().splitlines() or ["?"])[-1][:160]
        return f"{what} crashed with a traceback ({last})"
    if outcome.code not in (0, 1, 2):
        return f"{what} exited {outcome.code}"
    for stream, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        found = FORBIDDEN.search(text)
        if found:
            around = text[max(0, found.start() - 40):found.end() + 20]
            return f"{what} printed {found.group()!r} on {stream}: {around!r}"
        if "is not UTF-8" in text[:40] and stream == "stderr":
            return f"{what}: {text[:120]}"
    return None


def filled(template: tuple[str, ...], value: str) -> list[str]:
    return [part.replace("{x}", value) for part in template]


def filled_bytes(template: tuple[str, ...], value: bytes) -> list[bytes]:
    return [part.encode().replace(b"{x}", value) for part in template]


def non_utf8_checkout(terminal: Terminal, base: Path) -> list[tuple[str, str | None]]:
    """A checkout whose directory name is not UTF-8 (a latin-1 tarball unpacked as it is)."""
    repo = make_g0_repo(Path(os.fsdecode(bytes(base) + b"/caf\xe9-repo")))
    found = []
    for args in (["status"], ["ask", "impact", "parse_config"], ["context", "usage", "parse_config"],
                 ["build", "--from-graph", "/nonexistent"], ["connect", "--connection", "latin", "--repository",
                                                             "o/r", "--recipient", "claude:builder"],
                 ["fleet", "add", "latin", "--repo-path", "."], ["remove"]):
        outcome = terminal.console([arg.encode() for arg in args], cwd=repo)
        found.append((f"in a checkout not named in UTF-8: {' '.join(args[:2])}", judged(outcome, args[0])))
    return found


def hostile_files(terminal: Terminal, base: Path, value: str) -> list[tuple[str, str | None]]:
    """An authorization file, a session file and a packet whose strings hold ``value``."""
    auth, packet, session = base / "auth.json", base / "packet.json", base / "session.json"
    made = cli("auth", "init", "--connection", "local-graph", "--repository", "owner/repo", "--recipient",
               "claude:builder", "--repo-path", terminal.repo, "--state-dir", terminal.state, "--out", auth)
    assert made.code == 0, made.stderr
    document = json.loads(auth.read_text())
    envelope = document.get("envelope", document)
    for key in ("connection", "repository_root", "provider"):
        if key in envelope:
            envelope[key] = f"{envelope[key]}{value}"
    auth.write_text(json.dumps(document))
    packet.write_text(json.dumps({"schema": f"code_mower.contextPacket.v1{value}", "documents": [
        {"text": f"t{value}", "citations": [{"source": f"example_pkg/{value}.py#L1", "title": value}],
         "confidence": "extracted"}], "source_revision": value, "binding": {"connection": value}}))
    session.write_text(json.dumps({"schema": value, "connection": value, "recipient": value}))
    runs = {
        "query with a hostile authorization file": cli(
            "query", "--question", "impact", "--target", "parse_config", "--authorization", auth, "--packet-out",
            base / "out.json", "--repo-path", terminal.repo, "--state-dir", terminal.state),
        "score a hostile packet": cli("score", packet, "--repo-path", terminal.repo),
        "score a hostile packet (json)": cli("score", packet, "--repo-path", terminal.repo, "--json"),
        "session prepare with a hostile session file": cli(
            "session", "prepare", session, "--question", "impact", "--query", "parse_config",
            "--state-dir", terminal.state),
    }
    return [(case, judged(outcome, case)) for case, outcome in runs.items()]


def sweep(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    terminal = Terminal(base)
    names = sorted(CLASSES)
    pairs = {(template, rng.choice(names)) for template in TEMPLATES}  # every template once
    pairs |= {(rng.choice(TEMPLATES), name) for name in names}  # every class once
    while len(pairs) < len(TEMPLATES) + len(names) + count * 4:
        pairs.add((rng.choice(TEMPLATES), rng.choice(names)))
    for template, name in sorted(pairs):
        args = filled(template, CLASSES[name])
        tally.judge(judged(terminal.in_process(args), " ".join(template[:2])), f"{' '.join(template[:3])} [{name}]")
    for template in (*FAST, *rng.sample(TEMPLATES, min(len(TEMPLATES), 4 + count))):
        raw = rng.choice(sorted(NOT_UTF8))
        tally.judge(judged(terminal.console(filled_bytes(template, NOT_UTF8[raw])), " ".join(template[:2])),
                    f"{' '.join(template[:3])} [not UTF-8: {raw}] (console script)")
        name = rng.choice(names)
        tally.judge(judged(terminal.console([arg.encode() for arg in filled(template, CLASSES[name])]),
                           " ".join(template[:2])), f"{' '.join(template[:3])} [{name}] (console script)")
    for case, problem in non_utf8_checkout(terminal, base):
        tally.judge(problem, case)
    for name in rng.sample(names, min(len(names), max(2, count // 2))):
        directory = base / f"files-{name}"
        directory.mkdir()
        for case, problem in hostile_files(terminal, directory, CLASSES[name]):
            tally.judge(problem, f"{case} [{name}]")
