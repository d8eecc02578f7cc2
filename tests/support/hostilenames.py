"""A repository whose names hold terminal escapes, and what output may hold (issue 25 item 3).

``hostile_repo`` makes a real git repository (for the pinned provider to build) whose tracked
file names, a docstring, the checkout directory and every commit message hold CSI, OSC 52, OSC 8,
C1, BEL, backspace, CR, DEL, tab, newline and the bidi overrides and isolates, with the history
change coupling needs and a last commit that adds, removes and changes hostile files.
``Hostile`` runs the installed console script in it, piped or on pseudo-terminals
(``on_terminal``); ``leaks`` finds what no output may hold, ``shown`` is how a table must still
spell a name, ``prose`` the sentences of an answer. Used by ``tests/cli/test_terminal_escapes.py``
(every command) and ``tests/surfaces/test_mcp_escapes.py`` (the MCP tools).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import tty
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .helpers import CM_GRAPH, git

# Each hostile name by what it tries; each file calls ``helper`` and changes with pkg/core.py.
HOSTILE = {
    "csi": "pkg/csi\x1b[31mred\x1b[2J.py",
    "osc52": "pkg/osc\x1b]52;c;SGVsbG8=\x07.py",
    "osc8": "pkg/link\x1b]8;;mailto:a@example.invalid\x07click\x1b]8;;\x07.py",
    "c1": "pkg/c1\u009b31m.py",
    "bel_bs": "pkg/bel\x07bs\x08\x08.py",
    "cr": "pkg/cr\rover.py",
    "del": "pkg/del\x7f.py",
    "nl_tab": "pkg/nl\nline\ttab.py",
    "bidi": "pkg/\u202egnp.\u2066x\u2069.py",  # citable: no control character, only bidi ones
}
ADDED = "pkg/new\x1b]0;title\x07.py"  # added by the last commit (diff: files added)
ADDED_BIDI = "pkg/add\u202eed.py"  # added too, and citable: diff's nodes added
BIDI_TEST = "tests/test_\u2067evil\u2069.py"
CHECKOUT = "re\u202epo"  # the checkout directory (connect, fleet list, doctor print its path)
DOCSTRING = "Helps \x1b]52;c;SGVsbG8=\x07 a lot \u009b2J."
MESSAGE = "change \x1b[2J\x1b]0;title\x07\u202e \u009b31m"
BIDI_LABEL = "add\u202eed.py"  # the provider labels a file node by its name
CONNECTION, RECIPIENT, FLEET = "hostile", "claude:builder", "hostile"
COUPLED = tuple(HOSTILE[kind] for kind in ("bel_bs", "c1", "del"))  # coupled with pkg/core.py first
UNRESOLVED = "help\u202eer\u2069"  # a target no definition has: echoed in the answer, "helper" suggested
WITH_ESCAPE = "nope\x1b]52;c;QUFB\x07"  # an argument no target may be: refused, or a usage error

# What the test holds output to, written here rather than imported: a gap in the code's own
# definition must fail this test. C0 but newline, DEL, C1, the bidi formatting characters, the
# line and paragraph separators.
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
# rich's own styles on a terminal (bold, dim, italic, reset) and the refusal's bold red: any
# other escape, such as a name's ESC[31m or ESC[2J, is a leak.
OWN_STYLE = re.compile("\x1b\\[(?:0|1|2|3|1;31|)m")
# The build progress a terminal's stderr shows during build and refresh (``render.build_progress``):
# rich's live display hides the cursor, redraws its lines and colours the spinner and the time.
# Its stage names are ours; nothing else is printed on that stream but a refusal.
OWN_PROGRESS = re.compile("\x1b\\[\\?25[lh]|\r|\x1b\\[2K|\x1b\\[1A|\x1b\\[[0-9;]*m")
PROGRESS_COMMANDS = ("build", "refresh")
PROSE = ("answer", "detail", "next_action", "why", "command")


def shown(name: str) -> str:
    """How a table must spell ``name``: each forbidden character as Python writes it."""
    short = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

    def spell(match: re.Match[str]) -> str:
        code = ord(match.group())
        return short.get(match.group()) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")

    return re.sub("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]", spell, name)


def _write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def hostile_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    _write(root, "pkg/__init__.py", "")
    _write(root, "pkg/core.py", f'def helper(x):\n    """{DOCSTRING}"""\n    return x + 1\n')
    _write(root, "pkg/use.py", "from pkg.core import helper\n\n\ndef caller():\n    return helper(1)\n")
    for path, test in (("tests/test_core.py", "test_helper"), (BIDI_TEST, "test_bidi")):
        _write(root, path, f"from pkg.core import helper\n\n\ndef {test}():\n    assert helper(1) == 2\n")
    for number, (kind, path) in enumerate(HOSTILE.items()):
        _write(root, path, f"from pkg.core import helper\n\n\ndef user_{kind}():\n    return helper({number})\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"initial {MESSAGE}")
    for number in range(6):  # code-maat's thresholds: 5 revisions, 5 shared
        for path in ("pkg/core.py", *HOSTILE.values()):
            with open(root / path, "a") as handle:
                handle.write(f"# change {number}\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"{MESSAGE} {number}")
    for path in (ADDED, ADDED_BIDI):
        _write(root, path, "from pkg.core import helper\n\n\ndef user_new():\n    return helper(9)\n")
    (root / HOSTILE["cr"]).unlink()
    with open(root / HOSTILE["csi"], "a") as handle:
        handle.write("# last\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"last {MESSAGE}")
    return root


@dataclass
class Run:
    args: tuple[str, ...]
    terminal: bool
    code: int
    stdout: bytes
    stderr: bytes

    def where(self) -> str:
        return f"cm-graph {' '.join(self.args)!r} ({'terminal' if self.terminal else 'piped'}, exit {self.code})"


@dataclass
class Hostile:
    repo: Path
    state: Path
    runs: list[Run] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES", "NO_COLOR")}
        return {**env, "CM_GRAPH_HOME": str(self.state), "TERM": "xterm-256color"}

    def run(self, *args: str, terminal: bool = False) -> Run:
        command = [str(CM_GRAPH), *args]
        if terminal:
            code, out, err = on_terminal(command, self.repo, self.env())
        else:
            done = subprocess.run(command, cwd=self.repo, env=self.env(), capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=300, check=False)
            code, out, err = done.returncode, done.stdout, done.stderr
        run = Run(tuple(args), terminal, code, out, err)
        self.runs.append(run)
        return run

    def json(self, *args: str) -> Any:
        run = self.run(*args)
        assert run.code == 0, (run.where(), run.stderr.decode(errors="replace"))
        return json.loads(run.stdout)


def on_terminal(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run ``command`` with stdout and stderr on two pseudo-terminals (raw, 1000 columns, so the
    bytes read are the program's own and a table never folds), and read both to the end."""
    masters, slaves = [], []
    for _ in range(2):
        master, slave = pty.openpty()
        tty.setraw(slave)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 1000, 0, 0))
        masters.append(master)
        slaves.append(slave)
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slaves[0],
                               stderr=slaves[1], start_new_session=True)
    for slave in slaves:
        os.close(slave)
    read: dict[int, list[bytes]] = {master: [] for master in masters}
    open_ = set(masters)
    while open_:
        ready, _, _ = select.select(list(open_), [], [], 300)
        if not ready:  # a hang, never a measure of speed
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError(f"{command} printed nothing for 300 s")
        for master in ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                chunk = b""
            if chunk:
                read[master].append(chunk)
            else:
                open_.discard(master)
                os.close(master)
    return process.wait(timeout=300), b"".join(read[masters[0]]), b"".join(read[masters[1]])


def strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value.keys(), *(text for item in value.values() for text in strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return [value] if isinstance(value, str) else []


def prose(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for key, item in value.items()
                for text in ([item] if key in PROSE and isinstance(item, str) else prose(item))]
    if isinstance(value, list):
        return [text for item in value for text in prose(item)]
    return []


def documents(text: str) -> list[Any]:
    """The JSON value(s) a run printed on stdout: one object, or one per line (export)."""
    if not text.strip():
        return []
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def leaks(run: Run) -> list[str]:
    """Every forbidden character a run printed, with where, and whether it decodes as UTF-8."""
    found = []
    for stream, data in (("stdout", run.stdout), ("stderr", run.stderr)):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            found.append(f"{stream} is not UTF-8: {error}")
            continue
        if run.terminal:
            progress = stream == "stderr" and run.args[:1] in [(name,) for name in PROGRESS_COMMANDS]
            text = (OWN_PROGRESS if progress else OWN_STYLE).sub("", text)
        found += [f"{stream} {match.group()!r} in {text[max(0, match.start() - 30):match.end() + 30]!r}"
                  for match in FORBIDDEN.finditer(text)]
    return found


