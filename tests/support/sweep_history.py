"""The history category of the issue-25 sweep (``adversarial2.py``): change coupling read from a
hostile or unusual git history.

G0 with a history of its own: commits whose messages and file names hold every control and bidi
class, a file name with the byte ``git log --format=%x01`` would split on, a commit of more files
than a change set may hold, merges and empty commits; then 10,000 commits made with
``git fast-import``; a shallow clone of it; ``context history`` SIGKILLed at random points; a
history file planted, replaced or damaged in the state. A trial *holds* when ``context history``
and ``context impact`` answer or refuse in one line (no traceback), the history counts exactly
the commits git has (none split, none invented), nothing printed holds a control character, and
after a kill the next command leaves no scratch and answers.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
from pathlib import Path

from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current

from .adversarial import Tally, cli, console_script, leftovers, unclean
from .g0 import g0_graph, make_g0_repo
from .helpers import CM_GRAPH, commit_all, git, publish, write_files
from .hostilenames import FORBIDDEN

CLASSES = {"csi": "\x1b[31m", "osc52": "\x1b]52;c;QUFB\x07", "c1": "\u009b2J", "bel": "\x07", "del": "\x7f",
           "bidi": "\u202e", "isolate": "\u2066", "nl": "\n", "tab": "\t", "cr": "\r", "soh": "\x01",
           "line-separator": "\u2028"}


class History:
    """A G0 checkout with a history, published; its commits counted by git itself."""

    def __init__(self, base: Path, name: str) -> None:
        self.repo = make_g0_repo(base / name)
        self.state = base / f"{name}-state"

    def where(self) -> list[str]:
        return ["--repo-path", str(self.repo), "--state-dir", str(self.state)]

    def publish(self) -> None:
        publish(self.repo, self.state, g0_graph())

    def commits(self) -> int:
        return int(git(self.repo, "rev-list", "--count", "--no-merges", "HEAD"))

    def judged(self, *, window: int = 5000, refusable: bool = False) -> str | None:
        """``context history`` then ``context impact``: clean, printable, counting what git counts;
        the history is built (a repository's own history is never a reason to refuse) unless
        ``refusable`` (the state was damaged by hand: a one-line refusal is enough)."""
        for args in (("context", "history", "--json"), ("context", "impact", "parse_config"),
                     ("context", "impact", "parse_config", "--json")):
            outcome = cli(*args, *self.where())
            problem = unclean(outcome, " ".join(args[:2]))
            if problem:
                return problem
            if (found := FORBIDDEN.search(outcome.stdout + outcome.stderr)) is not None:
                return f"{' '.join(args)} printed {found.group()!r}"
            if args[1] == "history" and outcome.code and not refusable:
                return f"context history refused: {outcome.stderr.strip()[:200]}"
            if args[1] == "history" and outcome.code == 0:
                read, expected = json.loads(outcome.stdout)["commits_read"], min(window, self.commits())
                if read != expected:
                    return f"the history counts {read} commits where git has {expected}"
        return None


def with_names_and_messages(base: Path, names: dict[str, str], message: str, rounds: int = 6) -> History:
    """Commits that change pkg files with ``names`` and carry ``message``, then published."""
    history = History(base, f"h{len(os.listdir(base))}")
    for number in range(rounds):
        write_files(history.repo, {**{name: f"{number}\n" for name in names.values()},
                                   "example_pkg/config.py": (history.repo / "example_pkg/config.py").read_text()
                                   + f"# {number}\n"})
        commit_all(history.repo, f"{message} {number}")
    history.publish()
    return history


def hostile_commits(base: Path, kind: str) -> str | None:
    text = CLASSES[kind]
    return with_names_and_messages(base, {kind: f"notes/{kind}{text}é{text}x.txt"},
                                   f"{text}subject{text}\n\nbody {text}", rounds=2).judged()


def separator_then_ascii(base: Path) -> str | None:
    """A name holding \\x01 then ASCII: a parser that splits on \\x01 makes a commit of it."""
    return with_names_and_messages(base, {"soh": "notes/a\x01deadbeef.txt"}, "soh").judged()


def long_messages(base: Path) -> str | None:
    return with_names_and_messages(base, {}, "m" * 100_000 + "\x01" * 10).judged()


def wide_merges_and_empty(base: Path) -> str | None:
    history = History(base, "wide")
    write_files(history.repo, {f"wide/f{n}.txt": "x\n" for n in range(40)})
    commit_all(history.repo, "forty files at once")
    git(history.repo, "checkout", "-q", "-b", "side")
    write_files(history.repo, {"side.txt": "s\n"})
    commit_all(history.repo, "side")
    git(history.repo, "checkout", "-q", "main")
    commit_all(history.repo, "empty")
    git(history.repo, "merge", "-q", "--no-ff", "-m", "merge", "side")
    history.publish()
    return history.judged()


def untracked_names_in_history(base: Path) -> str | None:
    """A name that is not UTF-8, added and deleted again in history (the commit's census never
    holds it): skipped, and the rest counted."""
    history = History(base, "latin")
    raw = history.repo / os.fsdecode(b"notes/caf\xe9.txt")
    raw.parent.mkdir(exist_ok=True)
    raw.write_text("x\n")
    commit_all(history.repo, "latin-1 name")
    raw.unlink()
    commit_all(history.repo, "gone again")
    history.publish()
    return history.judged()


def many_commits(base: Path, count: int) -> History:
    """G0 and ``count`` more commits on top (fast-import), published."""
    history = History(base, "many")
    head = git(history.repo, "rev-parse", "HEAD")
    stream = []
    for number in range(count):
        message = f"c{number} \x1b[2J".encode()
        stream.append(b"commit refs/heads/main\ncommitter T <t@t.invalid> 1700000000 +0000\n")
        stream.append(b"data %d\n%s\n" % (len(message), message))
        if number == 0:
            stream.append(f"from {head}\n".encode())
        for name in (f"notes/n{number % 7}.txt", f"notes/m{number % 3}.txt"):
            stream.append(b"M 100644 inline %s\ndata %d\n%d\n" % (name.encode(), len(str(number)) + 1, number))
    subprocess.run(["git", "-C", str(history.repo), "fast-import", "--quiet"], input=b"".join(stream), check=True,
                   capture_output=True)
    git(history.repo, "reset", "-q", "--hard")
    history.publish()
    return history


def shallow_clone(base: Path, source: History) -> str | None:
    clone = History.__new__(History)
    clone.repo, clone.state = base / "shallow", base / "shallow-state"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{source.repo}", str(clone.repo)], check=True,
                   capture_output=True)
    clone.publish()
    problem = clone.judged(window=3)
    if problem:
        return problem
    impact = json.loads(cli("context", "impact", "parse_config", "--json", *clone.where()).stdout)
    coupling = impact["sections"]["change_coupling"]
    if coupling["status"] not in ("unavailable",):
        return f"a shallow clone's coupling is {coupling['status']} ({coupling.get('reason')}), not unavailable"
    return None


def killed(history: History, rng: random.Random, number: int) -> str | None:
    """``context history`` SIGKILLed at a random point; then the next command sweeps its scratch,
    and the history is either absent or whole."""
    child = subprocess.Popen([str(CM_GRAPH), "context", "history", *history.where()], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        child.wait(timeout=rng.uniform(0.3, 1.5))
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.stderr is not None
    stderr = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if "Traceback" in stderr:
        return f"context history crashed before the kill: {stderr.strip()[-200:]}"
    after = cli("context", "impact", "parse_config", "--json", *history.where())
    problem = unclean(after, "context impact after the kill")
    if problem:
        return problem
    left = leftovers(history.state)
    if left:
        return f"the killed history's scratch is still there: {left[:2]}"
    workspace = Workspace.locate(history.repo, history.state)
    path = workspace.index_path(read_current(workspace).id).with_name(
        f"{read_current(workspace).id}.history.sqlite")
    if path.exists():
        built = json.loads(cli("context", "history", "--json", *history.where()).stdout)
        if built.get("status") not in ("built", "current") and built.get("commits_read") != 5000:
            return f"a history left by a killed writer reads as {built}"
        path.unlink()
    return None


def planted(history: History, how: str) -> str | None:
    """A history file for the current generation planted or damaged by hand."""
    workspace = Workspace.locate(history.repo, history.state)
    generation = read_current(workspace).id
    path = workspace.indexes_dir / f"{generation}.history.sqlite"
    assert cli("context", "history", *history.where()).code == 0
    outside = history.state.parent / "outside-write"
    if how == "garbage":
        path.write_bytes(b"not sqlite" * 100)
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "symlink":
        path.unlink()
        path.symlink_to("/etc/passwd")
    elif how == "directory":
        path.unlink()
        path.mkdir()
    elif how == "another generation's, forged to be reused":
        import apsw

        forged = workspace.indexes_dir / ("f" * 32 + ".history.sqlite")
        shutil.copy(path, forged)
        path.unlink()
        connection = apsw.Connection(str(forged))
        connection.execute("UPDATE params SET value = ? WHERE name = 'commit'", (f"--output={outside}",))
        connection.execute("UPDATE params SET value = '1' WHERE name = 'commits_read'")
        connection.close()
    problem = history.judged(refusable=True)
    if problem is None and outside.exists():
        problem = "a planted history file made git write outside the state"
    for leftover in (path, workspace.indexes_dir / ("f" * 32 + ".history.sqlite")):
        if leftover.is_dir() and not leftover.is_symlink():
            leftover.rmdir()
        elif os.path.lexists(leftover):
            leftover.unlink()
    return problem


def flipped(history: History, rng: random.Random) -> str | None:
    """A few bytes of the history file flipped (a bad disk block): the commands stay clean."""
    workspace = Workspace.locate(history.repo, history.state)
    path = workspace.indexes_dir / f"{read_current(workspace).id}.history.sqlite"
    if not path.exists():
        assert cli("context", "history", *history.where()).code == 0
    good = path.read_bytes()
    data = bytearray(good)
    for _ in range(rng.randint(1, 6)):
        data[rng.randrange(len(data))] ^= rng.randint(1, 255)
    path.write_bytes(bytes(data))
    try:
        for args in (("context", "impact", "parse_config"), ("context", "impact", "parse_config", "--json")):
            problem = unclean(cli(*args, *history.where()), "context impact")
            if problem:
                return problem
        return None
    finally:
        path.write_bytes(good)


def sweep(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    for kind in CLASSES:
        tally.judge(hostile_commits(base, kind), f"commit messages and names with {kind}")
    tally.judge(separator_then_ascii(base), "a name holding \\x01 then ASCII")
    small = with_names_and_messages(base, {"n": "notes/n.txt"}, "for byte flips")
    for number in range(4 * max(count, 2)):
        tally.judge(flipped(small, rng), f"history file with flipped bytes #{number}")
    tally.judge(long_messages(base), "100,000-character messages")
    tally.judge(wide_merges_and_empty(base), "a 40-file commit, a merge, an empty commit")
    tally.judge(untracked_names_in_history(base), "a name that is not UTF-8, in history only")
    many = many_commits(base, 10_000)
    tally.judge(many.judged(), "10,000 commits (the 5,000-commit window)")
    tally.judge(shallow_clone(base, many), "a shallow clone")
    for how in ("garbage", "empty", "symlink", "directory", "another generation's, forged to be reused"):
        tally.judge(planted(many, how), f"history file {how}")
    for number in range(max(count, 2)):
        tally.judge(killed(many, rng, number), f"context history SIGKILLed #{number}")
    real = console_script("context", "history", "--json", *many.where())
    tally.judge(unclean(real, "context history (console script)"), "the console script on 10,000 commits")
