"""The feedback-store category of the issue-25 sweep (``adversarial2.py``): the outcome store as a
hostile operator, a crashed recorder or a second recorder leaves it.

G0 with one recorded, correct outcome (so the store has an outcome and an eval case) and then a
second commit published over it (so ``eval run`` carries the case through ``git diff``). Each
trial damages, replaces, locks, forges or races the store, then runs every command that reads or
writes it (``feedback record``, ``report``, ``export``, ``purge``, ``eval run``). A trial *holds*
when each command answered or refused in one line (no traceback), nothing was written outside the
state root, and a forged row never turned into a recorded outcome or a case.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import apsw

from cm_graph.base.sqlrows import fetch_value
from cm_graph.feedback.outcomes import MAX_OUTCOMES, store_path
from cm_graph.index.ensure import ensure_index

from .adversarial import Outcome, Tally, cli, unclean
from .g0 import g0_graph, make_g0_repo
from .helpers import commit_all, publish, write_files

COMMANDS = (("feedback", "report"), ("feedback", "export"), ("eval", "run"), ("feedback", "purge"))


class Store:
    """A G0 checkout with a recorded outcome and a later generation; restorable."""

    def __init__(self, base: Path) -> None:
        self.repo = make_g0_repo(base / "repo")
        self.state = base / "state"
        self.snapshot = base / "snapshot"
        self.outside = base / "outside"  # where an injected write would land: must stay empty
        self.outside.mkdir()
        publish(self.repo, self.state, g0_graph())
        self.answer = self.ask()
        done = self.record("agent-1")
        assert done.code == 0, done.stderr
        loader = self.repo / "example_pkg/loader.py"
        write_files(self.repo, {"example_pkg/loader.py": "# moved\n" + loader.read_text()})
        commit_all(self.repo, "a line above everything")
        ensure_index(publish(self.repo, self.state, g0_graph()))
        self.current = self.ask()  # what every_command records (gen 1's answer is carried by eval run)
        shutil.copytree(self.state, self.snapshot, symlinks=True)

    @property
    def path(self) -> Path:
        return store_path(self.state)

    def where(self) -> list[str]:
        return ["--repo-path", str(self.repo), "--state-dir", str(self.state)]

    def ask(self) -> dict[str, str]:
        done = cli("context", "how", "load", "--json", *self.where())
        return dict(json.loads(done.stdout))

    def record(self, client: str, answer_id: str | None = None) -> Outcome:
        return cli("feedback", "record", "--intent", "how", "--target", "load", "--answer-id",
                   answer_id or self.answer["answer_id"], "--reads-avoided", "1", "--files-read", "0", "--correct",
                   "--client", client, *self.where())

    def restore(self) -> None:
        shutil.rmtree(self.state)
        shutil.copytree(self.snapshot, self.state, symlinks=True)
        for leftover in self.outside.iterdir():
            leftover.unlink()

    def every_command(self, client: str = "agent-2") -> str | None:
        """Each store command in turn: the first unclean one, or a file an injection wrote outside."""
        runs = [("feedback record", self.record(client, self.current["answer_id"])),
                *((" ".join(args), cli(*args, *self.where())) for args in COMMANDS)]
        for what, outcome in runs:
            problem = unclean(outcome, what)
            if problem:
                return problem
        written = sorted(os.listdir(self.outside))
        return f"a forged store made cm-graph write {written}" if written else None

    def execute(self, statement: str, bindings: tuple[object, ...] = ()) -> None:
        connection = apsw.Connection(str(self.path))
        try:
            connection.execute(statement, bindings)
        finally:
            connection.close()


# --- the file itself ---------------------------------------------------------------------------


def damaged_file(store: Store, rng: random.Random, how: str) -> str | None:
    data = bytearray(store.path.read_bytes())
    if how == "truncated":
        store.path.write_bytes(bytes(data[: rng.randrange(0, len(data))]))
    elif how == "flipped":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= rng.randint(1, 255)
        store.path.write_bytes(bytes(data))
    elif how == "zeroed page":
        start = rng.randrange(0, max(1, len(data) // 4096)) * 4096
        data[start:start + 4096] = bytes(min(4096, len(data) - start))
        store.path.write_bytes(bytes(data))
    return store.every_command()


def replaced_file(store: Store, how: str) -> str | None:
    path = store.path
    if how == "symlink":
        target = path.with_name("elsewhere.sqlite")
        path.rename(target)
        path.symlink_to(target)
    elif how == "directory":
        path.unlink()
        path.mkdir(mode=0o700)
    elif how == "fifo":
        path.unlink()
        os.mkfifo(path, 0o600)
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "group-readable":
        path.chmod(0o640)
    elif how == "hard-linked":
        os.link(path, path.with_name("second-name"))
    elif how == "open directory":
        path.parent.chmod(0o755)
    elif how == "an index file":
        from cm_graph.generation.layout import Workspace
        from cm_graph.generation.store import read_current

        workspace = Workspace.locate(store.repo, store.state)
        shutil.copy(workspace.index_path(read_current(workspace).id), path)
    elif how == "tables of another shape":
        path.unlink()
        connection = apsw.Connection(str(path))
        connection.execute("PRAGMA application_id = 1668113506; CREATE TABLE outcomes (x); CREATE TABLE cases (y)")
        connection.close()
        path.chmod(0o600)
    elif how == "a trigger that forges cases":
        store.execute("CREATE TRIGGER forge AFTER INSERT ON outcomes BEGIN INSERT INTO cases SELECT "
                      "'sha256:' || hex(randomblob(32)), workspace, capability_id, kind, intent, target, "
                      "'{\"max_chars\":8000}', generation, '--output=" + str(store.outside / "trigger") +
                      "', '[\"x#L1\"]', NEW.seq FROM outcomes WHERE seq = NEW.seq; END")
    elif how == "wal journal":
        store.execute("PRAGMA journal_mode = WAL")
    return store.every_command()


def oversized(store: Store) -> str | None:
    """More rows than the store keeps (made by hand): the next record prunes to the cap."""
    store.execute(f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {MAX_OUTCOMES + 5}) "
                  "INSERT INTO outcomes (at, workspace, client, connection, capability_id, answer_id, generation, "
                  "kind, intent, target, reads_avoided, files_read, correct) SELECT at, workspace, 'bulk-' || i, "
                  "connection, capability_id, 'sha256:' || printf('%064d', i), generation, kind, intent, target, 1, 0, "
                  "0 FROM outcomes, n")
    for what, outcome in (("feedback record", store.record("agent-2", store.current["answer_id"])),
                          ("feedback report", cli("feedback", "report", *store.where()))):
        problem = unclean(outcome, what)
        if problem:
            return problem
    left = fetch_value(apsw.Connection(str(store.path)).execute("SELECT count(*) FROM outcomes"), int)
    return f"{left} outcomes kept, over the cap of {MAX_OUTCOMES}" if left > MAX_OUTCOMES else None


# --- rows forged by hand -----------------------------------------------------------------------

def forged_rows(store: Store) -> dict[str, Callable[[], None]]:
    outside = str(store.outside / "injected")
    return {
        "case commit is an option": lambda: store.execute("UPDATE cases SET commit_sha = ?", (f"--output={outside}",)),
        "case commit names a path": lambda: store.execute("UPDATE cases SET commit_sha = '../../HEAD'"),
        "case arguments not JSON": lambda: store.execute("UPDATE cases SET arguments = 'not json'"),
        "case arguments a list": lambda: store.execute("UPDATE cases SET arguments = '[1]'"),
        "case arguments unknown": lambda: store.execute("UPDATE cases SET arguments = '{\"depth\": 99}'"),
        "case cited an object": lambda: store.execute("UPDATE cases SET cited = '{\"a\": 1}'"),
        "case cited not strings": lambda: store.execute("UPDATE cases SET cited = '[1, null, \"x#L1\"]'"),
        "case cited an option": lambda: store.execute("UPDATE cases SET cited = ?",
                                                      (json.dumps([f"--output={outside}#L1"]),)),
        "case cited escapes": lambda: store.execute("UPDATE cases SET cited = ?",
                                                    (json.dumps(["example_pkg/\x1b[31m.py#L1", "../x#L999999"]),)),
        "case kind unknown": lambda: store.execute("UPDATE cases SET kind = 'zzz', intent = 'zzz'"),
        "case target with escape": lambda: store.execute("UPDATE cases SET target = 'lo\x1b]52;c;QUFB\x07ad'"),
        "case generation unknown": lambda: store.execute("UPDATE cases SET generation = '../../etc'"),
        "outcome target with escape": lambda: store.execute("UPDATE outcomes SET target = 'lo\x1b[2Jad', "
                                                            "client = 'c\u202el'"),
        "outcome counts huge": lambda: store.execute("UPDATE outcomes SET reads_avoided = 9223372036854775807, "
                                                     "files_read = 9223372036854775807"),
        "outcome time not a time": lambda: store.execute("UPDATE outcomes SET at = ?", ("yesterday\x00",)),
        "outcome of another workspace": lambda: store.execute("UPDATE outcomes SET workspace = 'elsewhere'"),
        "outcome id not an id": lambda: store.execute("UPDATE outcomes SET answer_id = 'sha256:zz', "
                                                      "capability_id = ''"),
        "outcome kind unknown": lambda: store.execute("UPDATE outcomes SET kind = 'zzz', intent = ''"),
    }


def forged(store: Store, forge: Callable[[], None]) -> str | None:
    forge()
    return store.every_command()


def forged_ids(store: Store, rng: random.Random) -> str | None:
    """An answer id made up by hand: refused (not reproduced, or not an id), never kept."""
    made = rng.choice([
        "sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64)),
        "sha256:" + store.answer["answer_id"][7:][::-1], store.answer["answer_id"].upper(),
        store.answer["answer_id"] + "0", store.answer["answer_id"][:-1], " " + store.answer["answer_id"],
        "sha256:" + "0" * 64, "md5:" + "0" * 32, "sha256:" + "é" * 64,
    ])
    done = store.record("forger", made)
    problem = unclean(done, "feedback record")
    if problem:
        return problem
    if done.code == 0:
        return f"the made-up id {made!r} was recorded"
    return None


# --- two recorders at once, and a store another process holds --------------------------------


def _recorders(store: Store, count: int) -> list[subprocess.Popen[str]]:
    code = ("import sys; from tests.support.adversarial import cli; "
            "done = cli(*sys.argv[1:]); sys.stderr.write(done.stderr); "
            "sys.exit(3 if done.traceback else done.code)")
    root = Path(__file__).resolve().parents[2]
    return [subprocess.Popen([sys.executable, "-c", code, "feedback", "record", "--intent", "how", "--target", "load",
                              "--answer-id", store.answer["answer_id"], "--reads-avoided", "1", "--files-read", "0",
                              "--correct", "--client", f"racer-{number % 3}", *store.where()],
                             cwd=root, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for number in range(count)]


def concurrent_recorders(store: Store, count: int) -> str | None:
    """``count`` recorders at once, three client names among them: each recorded, said it was
    already recorded, or was refused busy; one row per (answer, client) in the end."""
    store.restore()  # the first generation's answer id is no longer current: record on a fresh store
    shutil.rmtree(store.path.parent)
    store.answer = store.ask()
    children = _recorders(store, count)
    for child in children:
        _, stderr = child.communicate(timeout=300)
        if child.returncode not in (0, 1) or (child.returncode == 1 and ": busy:" not in stderr):
            return f"a concurrent recorder exited {child.returncode}: {stderr.strip()[-200:]}"
    rows = apsw.Connection(str(store.path)).execute(
        "SELECT client, count(*) FROM outcomes GROUP BY answer_id, client").fetchall()
    if any(n != 1 for _, n in rows) or len(rows) > 3:
        return f"concurrent recorders left {rows}"
    return None


def held_by_another(store: Store) -> str | None:
    """Another process is inside a write transaction of the store for the whole run (a recorder
    that hangs): recording waits its turn and then says busy in one line, reading still answers."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import apsw, sys; c = apsw.Connection(sys.argv[1]); c.execute('BEGIN IMMEDIATE'); "
        "print('held', flush=True); sys.stdin.read()"), str(store.path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        for what, outcome in (("feedback record", store.record("agent-3", store.current["answer_id"])),
                              ("feedback report", cli("feedback", "report", *store.where()))):
            problem = unclean(outcome, what)
            if problem:
                return problem
            if what == "feedback report" and outcome.code:
                return f"reading the store failed while another process writes: {outcome.stderr.strip()[:160]}"
        return None
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)


def sweep(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    store = Store(base)
    fixed: list[tuple[str, Callable[[], str | None]]] = [
        *((f"store {how}", lambda how=how: replaced_file(store, how)) for how in (
            "symlink", "directory", "fifo", "empty", "group-readable", "hard-linked", "open directory",
            "an index file", "tables of another shape", "a trigger that forges cases", "wal journal")),
        ("store over its row cap", lambda: oversized(store)),
        *((f"forged: {name}", lambda forge=forge: forged(store, forge)) for name, forge in forged_rows(store).items()),
        ("store held by another process", lambda: held_by_another(store)),
    ]
    for case, attack in fixed:
        tally.judge(attack(), case)
        store.restore()
    for number in range(count):
        how = ("truncated", "flipped", "zeroed page")[number % 3]
        tally.judge(damaged_file(store, rng, how), f"store {how} #{number}")
        store.restore()
        tally.judge(forged_ids(store, rng), f"made-up answer id #{number}")
    tally.judge(concurrent_recorders(store, max(4, count)), f"{max(4, count)} concurrent recorders")
