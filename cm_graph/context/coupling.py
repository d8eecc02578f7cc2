"""Change coupling from git history, bound to a generation (code-maat's coupling degree).

Read from the bound commit's ancestry only (``git log <commit>``: never "now", never the work
tree), so the history is as reproducible as the index and ``audit`` could re-derive it. Change
sets larger than ``max_changeset`` files are dropped (release plumbing, mass renames), lockfiles
and generated files are filtered, and only paths in the bound commit's census are counted.
At query time a pair's degree is ``shared / mean(revs_a, revs_b) * 100`` (integer), kept when the
mean is at least ``min_revs``, ``shared`` at least ``min_shared`` and the degree at least
``min_degree`` (code-maat's defaults 5 / 5 / 30). Too few revisions is ``insufficient_history``
with the counts, never "no coupling"; a shallow clone is ``unavailable``.

The history is a separate file (``indexes/<generation>.history.sqlite``) built by
``cm-graph context history``, never by a question: until it exists the sections say
``history_not_built``. When another generation's history was built at an ancestor of this
commit, only ``git log old..new`` runs and the stored change sets are reused.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from itertools import combinations
from pathlib import Path

import apsw

from ..base.errors import Refusal
from ..base.git import run_git
from ..base.privfs import owned_sibling
from ..base.records import record
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows, fetch_value
from ..index.format import configure
from ..index.seal import derived_is_sealed, write_derived_seal

WINDOW_COMMITS = 5000
MAX_CHANGESET = 30
MIN_REVS, MIN_SHARED, MIN_DEGREE = 5, 5, 30
HISTORY_APPLICATION_ID = 0x636D6768
LOCKFILES = frozenset({
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Pipfile.lock", "uv.lock",
    "Cargo.lock", "Gemfile.lock", "composer.lock", "go.sum", "npm-shrinkwrap.json", "bun.lockb",
})
GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", ".pb.go", "_pb2.py", ".snap", ".lock")
GENERATED_DIRS = ("dist/", "build/", "vendor/", "node_modules/", "__generated__/", "generated/")


@record
class HistoryReport:
    path: Path
    commits: int
    dropped: int
    reused: int
    shallow: bool


def history_path(index_path: Path) -> Path:
    return index_path.with_name(index_path.name.removesuffix(".sqlite") + ".history.sqlite")


def is_filtered(path: str) -> bool:
    """Lockfiles and generated files: they co-change with everything and explain nothing."""
    base = path.rsplit("/", 1)[-1]
    if base in LOCKFILES or base.endswith(GENERATED_SUFFIXES):
        return True
    return path.startswith(GENERATED_DIRS) or any(f"/{d}" in path for d in GENERATED_DIRS)


def read_log(checkout: Path, revisions: list[str], limit: int) -> list[tuple[str, tuple[str, ...]]]:
    """(sha, changed paths) newest first, for the commits ``revisions`` select (no merges).

    Read as ``--raw -z``, so the output's shape is fixed whatever a name holds (any byte but NUL):
    a commit's id, then for each changed file a status record (``:``, modes, ids, letter) and its
    name. A name is only ever the token after a status record, so none can pass for a commit."""
    done = run_git(
        checkout, "log", "--no-merges", "--no-renames", "-z", "--raw", "--no-abbrev", "--format=%H",
        f"--max-count={limit}", *revisions, "--",
    )
    commits: list[tuple[str, set[str]]] = []
    tokens = iter(done.stdout.split(b"\0"))
    for token in tokens:
        if token.startswith((b":", b"\n:")):
            raw = next(tokens, b"")
            try:
                commits[-1][1].add(raw.decode("utf-8"))
            except UnicodeDecodeError:
                continue  # a name the census (UTF-8 text) cannot hold either
        elif token:
            commits.append((token.decode("ascii"), set()))
    return [(sha, tuple(sorted(names))) for sha, names in commits]


def is_shallow(checkout: Path) -> bool:
    done = run_git(checkout, "rev-parse", "--is-shallow-repository")
    return done.stdout.strip() == b"true"


def build_history(
    checkout: Path, commit: str, index: apsw.Connection, destination: Path, *, window: int = WINDOW_COMMITS,
    max_changeset: int = MAX_CHANGESET, token: str | None = None,
) -> HistoryReport:
    """Derive the history file for ``commit`` (written to a private temp sibling, then renamed).

    ``token`` is the writer's scratch owner token: the sibling carries it, so a writer killed
    mid-write leaves a file (and its journal) the next command's sweep removes, and a live
    writer's is never touched."""
    shallow = is_shallow(checkout)
    previous = _reusable_history(checkout, commit, destination, window)
    commits: list[tuple[str, tuple[str, ...]]] | None = None
    reused = 0
    if previous is not None:
        # The old history read all of its commit's ancestry; old..new is the rest of ours. Only
        # when the two together still fit the window is that exactly what a full read gives.
        old_commit, old_commits = previous
        fresh = read_log(checkout, [f"{old_commit}..{commit}"], window + 1)
        if len(fresh) + len(old_commits) <= window:
            commits, reused = fresh + old_commits, len(old_commits)
    if commits is None:
        commits = read_log(checkout, [commit], window)
    commits.sort()  # stored and counted by sha: the same file however it was read
    census = {row[0] for row in index.execute("SELECT path FROM census")}
    revs: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    dropped = 0
    kept_changes: list[tuple[int, str]] = []
    for seq, (_, names) in enumerate(commits):
        kept = [name for name in names if not is_filtered(name)]
        kept_changes.extend((seq, name) for name in kept)
        if len(kept) > max_changeset:
            dropped += 1
            continue
        counted = [name for name in kept if name in census]
        revs.update(counted)
        pairs.update(combinations(counted, 2))
    params = {
        "commit": commit, "window_commits": str(window), "max_changeset": str(max_changeset),
        "commits_read": str(len(commits)), "changesets_dropped": str(dropped), "shallow": str(int(shallow)),
        "commit_digest": hashlib.sha256("\n".join(sha for sha, _ in commits).encode()).hexdigest(),
        "filter": "lockfiles, generated files, paths outside the bound commit's census",
    }
    _write(owned_sibling(destination, token), destination, params, commits, kept_changes, revs, pairs)
    write_derived_seal(destination, _sealed_subject(destination), token=token)
    return HistoryReport(destination, len(commits), dropped, reused, shallow)


def _write(temp: Path, destination: Path, params: dict[str, str], commits: list[tuple[str, tuple[str, ...]]],
           changes: list[tuple[int, str]], revs: Counter[str], pairs: Counter[tuple[str, str]]) -> None:
    try:
        connection = apsw.Connection(str(temp))
        os.chmod(temp, 0o600)
        try:
            configure(connection)
            connection.execute("PRAGMA page_size = 4096")
            connection.execute(query_sql("history_schema"))
            with connection:
                connection.executemany("INSERT INTO params VALUES (?, ?)", sorted(params.items()))
                numbered = [(seq, sha) for seq, (sha, _) in enumerate(commits)]
                connection.executemany("INSERT INTO commits VALUES (?, ?)", numbered)
                connection.executemany("INSERT INTO changes VALUES (?, ?)", sorted(changes))
                connection.executemany("INSERT INTO revs VALUES (?, ?)", sorted(revs.items()))
                connection.executemany(
                    "INSERT INTO pairs VALUES (?, ?, ?)",
                    sorted((a, b, n) for (a, b), n in pairs.items() if n >= 2),
                )
        finally:
            connection.close()
        os.replace(temp, destination)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _reusable_history(
    checkout: Path, commit: str, destination: Path, window: int
) -> tuple[str, list[tuple[str, tuple[str, ...]]]] | None:
    """The largest other history in the same directory built, with the same parameters and
    without reaching its window, at an ancestor of ``commit``."""
    best = None
    for other in sorted(destination.parent.glob("*.history.sqlite")):
        if other == destination:
            continue
        try:
            connection = open_history(other)
        except Refusal:
            continue
        try:
            old = read_params(connection)
            if old.get("commit") == commit or int(old["commits_read"]) >= int(old["window_commits"]) or (
                old["window_commits"], old["max_changeset"]) != (str(window), str(MAX_CHANGESET)) or run_git(
                checkout, "merge-base", "--is-ancestor", old["commit"], commit, check=False
            ).returncode != 0:
                continue
            lists: dict[int, list[str]] = {}
            for seq, path in connection.execute("SELECT seq, path FROM changes ORDER BY seq, path"):
                lists.setdefault(seq, []).append(path)
            commits = [(sha, tuple(lists.get(seq, ()))) for seq, sha in
                       connection.execute("SELECT seq, sha FROM commits ORDER BY seq")]
            if best is None or len(commits) > len(best[1]):
                best = (old["commit"], commits)
        except (apsw.Error, KeyError):
            continue
        finally:
            connection.close()
    return best


def _sealed_subject(path: Path) -> str:
    """What a history file's seal names: the generation it was built for (from its file name),
    so another generation's file and seal renamed into place are not this one's."""
    return path.name.removesuffix(".history.sqlite")


def open_history(path: Path) -> apsw.Connection:
    """The history file at ``path``, read only while its bytes are the ones its seal describes:
    an edited one (counts, a text no longer UTF-8) is ``unreadable``, never answered."""
    if not derived_is_sealed(path, _sealed_subject(path)):
        raise Refusal("The history file is not the one cm-graph wrote.", reason="unreadable")
    try:
        connection = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_NOFOLLOW)
        if fetch_value(connection.execute("PRAGMA application_id"), int) != HISTORY_APPLICATION_ID:
            connection.close()
            raise Refusal("The history file was not written by cm-graph.", reason="unreadable")
    except apsw.Error:
        raise Refusal("The history file cannot be read.", reason="unreadable") from None
    return connection


@record
class Coupling:
    status: str  # ok | insufficient_history | unavailable
    params: dict[str, str]
    revs: int
    pairs: tuple[tuple[str, int, int, int, int], ...]  # (other, shared, revs_path, revs_other, degree)


def read_params(history: apsw.Connection) -> dict[str, str]:
    """The parameters a history file was computed with (``params``: name and value, both text)."""
    return dict(fetch_rows(history.execute("SELECT name, value FROM params"), tuple[str, str]))


def coupled_with(history: apsw.Connection, path: str) -> Coupling:
    params = read_params(history)
    if params.get("shallow") == "1":
        return Coupling("unavailable", params, 0, ())
    rows = fetch_rows(history.execute("SELECT n FROM revs WHERE path = ?", (path,)), tuple[int])
    revs = rows[0][0] if rows else 0
    if revs < MIN_REVS:
        return Coupling("insufficient_history", params, revs, ())
    found = []
    for other, shared, revs_path, revs_other in history.execute(
        query_sql("coupled_with"), {"path": path, "min_shared": MIN_SHARED}
    ):
        mean2 = revs_path + revs_other  # twice the mean, so the tests stay in integers
        degree = shared * 200 // mean2
        if mean2 >= 2 * MIN_REVS and degree >= MIN_DEGREE:
            found.append((other, shared, revs_path, revs_other, degree))
    found.sort(key=lambda p: (-p[4], -(p[2] + p[3]), p[0]))
    return Coupling("ok", params, revs, tuple(found))
