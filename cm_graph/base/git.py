"""Git, read-only and hardened: revisions, the commit's census, and blob contents.

Every git child cm-graph starts is built here (``git_command``), and none runs a program a
repository configures (issue 25): a repository's ``.git/config``, the files it includes and its
attributes are untrusted input like its contents. Three layers hold that:

1. **Only the subcommands of ``SUBCOMMANDS``**, each with the options that switch off what it
   could run (``--no-ext-diff --no-textconv`` for the diff machinery of diff/log/show, which
   covers ``diff.external`` and every ``diff.<driver>.command``/``textconv``;
   ``--no-show-signature`` for log/show; ``--ignore-submodules=all`` so no submodule's own
   configuration is read). No allowed subcommand talks to a remote, edits, commits, merges or
   signs, so hooks, credential helpers, ``core.sshCommand``/``core.askPass``/``core.gitProxy``,
   ``core.alternateRefsCommand``, merge drivers and editors have no way in; the fixed
   configuration below closes them again.
2. **A fixed configuration** (``FIXED_CONFIG``), given as command-line configuration through the
   environment (``GIT_CONFIG_COUNT``), which outranks every file a repository has, includes
   included: no transport, no fsmonitor, no hooks, no credential helper, no askpass, no pager,
   no editor, no signature checks, no gpg program, no submodule recursion, no implicitly found
   bare repository. ``--no-pager`` and ``GIT_PAGER``/``GIT_EDITOR`` say it once more.
3. **Filter drivers neutralised** for the subcommands that may read the work tree (status, and
   diff/log/show, whose diff machinery reads a stat-clean work-tree file instead of its blob):
   a ``clean``/``smudge``/``process`` filter runs on a file whose stat changed, and a driver's
   name is whatever ``.gitattributes`` says, so the names are read from the configuration first
   (``git config --get-regexp``, which follows ``include.path``/``includeIf`` and runs nothing)
   and each driver is given empty commands and ``required=false``. The hot path (rev-parse,
   ls-tree, cat-file) pays no extra child.

Every child also gets a scrubbed environment (no system or global config, no proxies, no prompts,
no lazy fetches) so that what we read is the object database of the checkout and nothing else.
The census reads the commit's tree, never the working tree or the index.
``tests/base/test_hostile_config.py`` holds all of this against a repository that configures
every program git can run, for every command of the command table.
"""

from __future__ import annotations

import hashlib
import os
import select
import signal
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from .errors import GitFailure, Oversized
from .records import record
from .rules import PRIVATE_ROOTS, is_bounded_text, is_object_name, text_checkout

MAX_TRACKED_FILES = 50_000
MAX_TRACKED_BYTES = 512 * 1024 * 1024
MAX_BLOB_BYTES = 32 * 1024 * 1024
MAX_SKIPPED_PATHS = 50_000
MAX_RECORD_BYTES = 16 * 1024
MAX_FILTER_DRIVERS = 1_000
_READ_CHUNK = 64 * 1024
_GIT_TIMEOUT_SECONDS = 120
PROVIDER_STATE = frozenset({"graphify-out", ".graphify", ".graph"})
PRIVATE_STATE = PRIVATE_ROOTS | {"graphify-out"}
_PARTIAL_CLONE_KEYS = r"^(extensions\.partialclone|remote\..*\.(promisor|partialclonefilter))$"


@record
class Subcommand:
    """A git subcommand the wrapper runs: the options it always gets (right after its name), and
    whether it may read the work tree (then every filter driver is neutralised for it)."""

    options: tuple[str, ...]
    reads_work_tree: bool = False


_NO_DIFF_PROGRAMS = ("--no-ext-diff", "--no-textconv", "--no-color")
SUBCOMMANDS: dict[str, Subcommand] = {
    "rev-parse": Subcommand(()),
    "rev-list": Subcommand(()),
    "merge-base": Subcommand(()),
    "config": Subcommand(()),
    "ls-tree": Subcommand(()),
    "cat-file": Subcommand(()),
    "status": Subcommand(("--ignore-submodules=all",), reads_work_tree=True),
    "diff": Subcommand((*_NO_DIFF_PROGRAMS, "--ignore-submodules=all"), reads_work_tree=True),
    "log": Subcommand((*_NO_DIFF_PROGRAMS, "--no-show-signature"), reads_work_tree=True),
    "show": Subcommand((*_NO_DIFF_PROGRAMS, "--no-show-signature"), reads_work_tree=True),
}
# Command-line configuration every child gets: it outranks the repository's files (and what they
# include). An empty program value runs nothing; /dev/null as the hooks directory holds no hook.
FIXED_CONFIG: tuple[tuple[str, str], ...] = (
    ("protocol.allow", "never"),  # no transport of any kind (ext::, ssh, file, http)
    ("fetch.recurseSubmodules", "no"),
    ("uploadpack.allowFilter", "false"),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("credential.helper", ""),  # an empty value resets the list of helpers
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("core.pager", "cat"),  # git runs no pager for "cat"
    ("core.editor", ":"),  # nor an editor for ":"
    ("sequence.editor", ":"),
    ("log.showSignature", "false"),
    ("gpg.program", ""),
    ("gpg.openpgp.program", ""),
    ("gpg.x509.program", ""),
    ("gpg.ssh.program", ""),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("submodule.recurse", "false"),
    ("safe.bareRepository", "explicit"),  # a tracked directory laid out as a bare repository
)
_FILTER_KEYS = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))


def git_environment(config: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """The whole environment of a git child: scrubbed, with ``FIXED_CONFIG`` and then ``config``
    as command-line configuration (a key may hold any character a subsection name can)."""
    env = {
        name: os.environ[name]
        for name in ("PATH", "TMPDIR", "LANG", "LC_ALL", "TZ")
        if name in os.environ
    }
    env.update({
        "no_proxy": "*", "NO_PROXY": "*",
        "http_proxy": "", "https_proxy": "", "HTTP_PROXY": "", "HTTPS_PROXY": "",
        "ALL_PROXY": "", "all_proxy": "",
        "PYTHONNOUSERSITE": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_ALLOW_PROTOCOL": "",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_SSH_COMMAND": "false",
        "GIT_PAGER": "cat",
        "GIT_EDITOR": ":",
        "GIT_SEQUENCE_EDITOR": ":",
    })
    count = 0
    for count, (key, value) in enumerate((*FIXED_CONFIG, *config), start=1):
        env[f"GIT_CONFIG_KEY_{count - 1}"] = key
        env[f"GIT_CONFIG_VALUE_{count - 1}"] = value
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def git_command(checkout: Path, subcommand: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of one git child: ``subcommand`` (one of ``SUBCOMMANDS``, else
    ValueError: a programming error) with its options, then ``args``."""
    spec = SUBCOMMANDS.get(subcommand)
    if spec is None:
        raise ValueError(f"git {subcommand} is not a subcommand the git wrapper runs")
    argv = ["git", "--no-pager", "-C", str(checkout), "--no-optional-locks", subcommand, *spec.options, *args]
    return argv, git_environment(_neutralised_filters(checkout) if spec.reads_work_tree else ())


def _neutralised_filters(checkout: Path) -> list[tuple[str, str]]:
    """Empty commands and ``required=false`` for every filter driver the configuration of
    ``checkout`` defines (the only drivers a ``filter=`` attribute can name)."""
    done = run_git(checkout, "config", "-z", "--name-only", "--get-regexp", r"^filter\.", check=False)
    if done.returncode not in (0, 1):
        raise GitFailure("Git could not read this checkout's configuration.")
    drivers = set()
    for name in done.stdout.split(b"\0"):
        section, _, rest = name.decode("utf-8", "surrogateescape").partition(".")
        driver, dot, _ = rest.rpartition(".")
        if section == "filter" and dot and driver:
            drivers.add(driver)
    if len(drivers) > MAX_FILTER_DRIVERS:
        raise GitFailure("This checkout's configuration defines more filter drivers than cm-graph reads past.")
    return [(f"filter.{driver}.{key}", value) for driver in sorted(drivers) for key, value in _FILTER_KEYS]


@record
class GitOutput:
    returncode: int
    stdout: bytes


def run_git(checkout: Path, *args: str, check: bool = True) -> GitOutput:
    """Run one short git command and collect its stdout (stderr is discarded).

    Spawned with ``os.posix_spawnp`` rather than ``subprocess``: every question runs git, and
    importing subprocess (threads, selectors, signals) costs a query more than the child does.
    The long-lived readers below keep subprocess and import it when they start.
    """
    argv, env = git_command(checkout, *args)
    read_end, write_end = os.pipe()  # both close-on-exec; the child's stdout is a dup2 of write_end
    try:
        pid = os.posix_spawnp(
            "git", argv, env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
            setsigdef=(signal.SIGPIPE,),
        )
    except BaseException as error:
        os.close(read_end)
        if isinstance(error, OSError):
            raise GitFailure("Git could not be run for this checkout.") from None
        raise
    finally:
        os.close(write_end)
    try:
        stdout = _read_until_eof(read_end, time.monotonic() + _GIT_TIMEOUT_SECONDS)
    except BaseException as error:  # a timeout, an interrupt: git must not outlive the question
        os.kill(pid, signal.SIGKILL)
        if isinstance(error, TimeoutError):
            raise GitFailure("Git could not be run for this checkout.") from None
        raise
    finally:
        os.close(read_end)
        returncode = _exit_status(pid)
    if check and returncode != 0:
        raise GitFailure("Git could not answer about this checkout or revision.")
    return GitOutput(returncode, stdout)


def _exit_status(pid: int) -> int:
    try:
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except ChildProcessError:
        # SIGCHLD ignored by whoever started us (inherited across exec): the kernel reaped the
        # child and its status is gone. subprocess reports 0 then, and so does this.
        return 0


def _read_until_eof(fd: int, deadline: float) -> bytes:
    """All of ``fd`` until EOF; TimeoutError once ``deadline`` passes, even while data flows."""
    chunks: list[bytes] = []
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(int(remaining * 1000) + 1):
            raise TimeoutError
        chunk = os.read(fd, _READ_CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def checkout_root(directory: Path) -> Path | None:
    """The resolved top level of the work tree holding ``directory``, or None outside one;
    refused (``rules.text_checkout``) when its path is not UTF-8 text."""
    done = run_git(Path(directory), "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        return None
    top = done.stdout.decode("utf-8", "surrogateescape").strip()
    return text_checkout(Path(os.path.realpath(top))) if top else None


def changed_tracked_files(checkout: Path) -> int:
    """How many tracked paths of the work tree differ from HEAD (staged or not): the graph is
    of the commit, so these are edits no answer knows about. Counted as ``git diff --stat
    --no-renames HEAD`` lists them, a rename as its two paths (answers know neither the new path
    nor that the old one is gone; ``git status`` gives a staged rename one line); untracked
    files are not counted. Names only (and ``diff`` runs no diff program: ``SUBCOMMANDS``). 0 when git
    cannot say (no commit yet)."""
    done = run_git(checkout, "diff", "--name-only", "-z", "--no-renames", "HEAD", "--", check=False)
    if done.returncode != 0:
        return 0
    return sum(1 for name in done.stdout.split(b"\0") if name)


def has_commit(checkout: Path) -> bool:
    """Whether the repository has any commit at all (an empty one has none for HEAD to name)."""
    return run_git(checkout, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).returncode == 0


@record
class Revision:
    commit: str
    tree: str


def resolve_revision(checkout: Path, revision: str) -> Revision:
    if not is_bounded_text(revision, 256) or revision.startswith("-"):
        raise GitFailure("The revision must be single-line text that does not start with '-'.")
    # One child for both names: every question resolves its revision, so this is on the hot path.
    # The trailing "--" makes both arguments revisions, never paths; rev-parse echoes it back.
    done = run_git(
        checkout, "rev-parse", f"{revision}^{{commit}}", f"{revision}^{{tree}}", "--", check=False
    )
    if done.returncode != 0:
        if checkout_root(checkout) is None:
            raise GitFailure("This directory is not inside a git work tree; cd into one or pass --repo-path.")
        if not has_commit(checkout):
            raise GitFailure("This repository has no commit yet; commit the code (git add -A && git commit) first.")
        raise GitFailure("Git cannot resolve that revision in this checkout.")
    names = [name for name in done.stdout.decode("ascii", "replace").split() if name != "--"]
    if len(names) != 2:
        raise GitFailure("Git could not answer about this checkout or revision.")
    commit_id, tree_id = names
    if not (is_object_name(commit_id) and is_object_name(tree_id)):
        raise GitFailure("Git did not return full object names for the revision.")
    return Revision(commit_id, tree_id)


def refuse_partial_clone(checkout: Path) -> None:
    done = run_git(
        checkout, "config", "--local", "--name-only", "--get-regexp", _PARTIAL_CLONE_KEYS,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise GitFailure("Git could not read this checkout's configuration.")
    if done.stdout.strip():
        raise GitFailure("This checkout is a partial clone; use a full clone.")


@record
class CensusEntry:
    path: str
    mode: str
    blob: str
    size: int


@record
class Census:
    """The tracked files of one commit that an indexer may see and a citation may name
    (``entries``), how many it skips (links, submodules, private state), and the files over the
    per-file budget, left out of ``entries`` and never read (``oversized``, in path order): the
    census is a function of the commit alone, so every reader of a generation gets the same one,
    and the build decides what an oversized file means (``generation/coverage.py``)."""

    entries: list[CensusEntry]
    skipped: int
    oversized: tuple[CensusEntry, ...] = ()

    def digest(self) -> str:
        """SHA-256 over ``"<mode> <blob> <size> <path>\\n"`` per entry in path order."""
        sha = hashlib.sha256()
        for entry in self.entries:
            sha.update(f"{entry.mode} {entry.blob} {entry.size} {entry.path}\n".encode())
        return sha.hexdigest()

    @property
    def tracked_bytes(self) -> int:
        return sum(entry.size for entry in self.entries)


def _segments_fold(path: str) -> list[str]:
    return [segment.casefold() for segment in path.split("/")]


def _iter_ls_tree_records(stream: Iterable[bytes]) -> Iterator[bytes]:
    pending = b""
    for chunk in stream:
        pending += chunk
        while True:
            cut = pending.find(b"\0")
            if cut < 0:
                break
            record, pending = pending[:cut], pending[cut + 1 :]
            if len(record) > MAX_RECORD_BYTES:
                raise Oversized("A tree record of the bound commit exceeds its budget.")
            yield record
        if len(pending) > MAX_RECORD_BYTES:
            raise Oversized("A tree record of the bound commit exceeds its budget.")
    if pending:
        raise GitFailure("Git ended the tree listing in the middle of a record.")


def read_census(checkout: Path, commit: str) -> Census:
    """Stream ``git ls-tree -r -z --long --full-tree`` of ``commit`` and apply the budgets: a
    file over ``MAX_BLOB_BYTES`` goes to ``oversized`` (its bytes count toward no budget, as it
    is never read); too many files or bytes in ``entries``, or too many skipped and oversized
    paths, refuse."""
    import subprocess

    argv, env = git_command(checkout, "ls-tree", "-r", "-z", "--long", "--full-tree", commit)
    try:
        child = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
    except OSError:
        raise GitFailure("Git could not be run for this checkout.") from None
    entries: list[CensusEntry] = []
    oversized: list[CensusEntry] = []
    skipped = 0
    total = 0
    assert child.stdout is not None
    try:
        chunks = iter(lambda: child.stdout.read(_READ_CHUNK), b"")  # type: ignore[union-attr]
        for record in _iter_ls_tree_records(chunks):
            entry = _parse_tree_record(record)
            if entry is None or entry.size > MAX_BLOB_BYTES:
                if entry is None:
                    skipped += 1
                else:
                    oversized.append(entry)
                if skipped + len(oversized) > MAX_SKIPPED_PATHS:
                    raise Oversized("The bound commit has more skipped paths than the budget.")
                continue
            total += entry.size
            entries.append(entry)
            if len(entries) > MAX_TRACKED_FILES:
                raise Oversized("The bound commit tracks more files than the budget.")
            if total > MAX_TRACKED_BYTES:
                raise Oversized("The bound commit's tracked bytes exceed the budget.")
    finally:
        child.stdout.close()
        returncode = child.wait()
    if returncode != 0:
        raise GitFailure("Git could not list the tree of the bound commit.")
    entries.sort(key=lambda entry: entry.path)
    oversized.sort(key=lambda entry: entry.path)
    return Census(entries, skipped, tuple(oversized))


def _parse_tree_record(record: bytes) -> CensusEntry | None:
    """One ``<mode> <type> <object> <size>\\t<path>`` record; None when it is skipped."""
    head, tab, raw_path = record.partition(b"\t")
    fields = head.split()
    if not tab or len(fields) != 4 or not raw_path:
        raise GitFailure("Git returned a malformed tree record.")
    try:
        path = raw_path.decode("utf-8")
        mode, kind, blob, size_text = (field.decode("ascii") for field in fields)
    except UnicodeDecodeError:
        raise GitFailure("Git returned a tree record that is not UTF-8.") from None
    if mode in ("120000", "160000"):
        return None
    segments = _segments_fold(path)
    if any(segment in PROVIDER_STATE or segment in PRIVATE_STATE for segment in segments):
        return None
    if mode not in ("100644", "100755") or kind != "blob":
        return None
    if not is_object_name(blob) or not size_text.isdigit():
        raise GitFailure("Git returned a malformed tree record.")
    return CensusEntry(path=path, mode=mode, blob=blob, size=int(size_text))


def count_lines(chunks: Iterable[bytes]) -> int:
    """Lines as an editor numbers them: newlines, plus one for an unterminated last line (0 for
    empty content). Shared by citation checks on blobs and the scorer on working-tree files."""
    lines = 0
    last = b""
    for chunk in chunks:
        lines += chunk.count(b"\n")
        last = chunk or last
    return lines if not last or last.endswith(b"\n") else lines + 1


class BlobReader:
    """One long-lived ``git cat-file --batch`` child that streams blobs by object name.

    Blobs are read in chunks and never held whole, so counting lines or hashing a 32 MiB file
    costs a chunk of memory, not the file.
    """

    def __init__(self, checkout: Path) -> None:
        import subprocess

        argv, env = git_command(checkout, "cat-file", "--batch")
        try:
            self._child = subprocess.Popen(
                argv, env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
        except OSError:
            raise GitFailure("Git could not be run for this checkout.") from None

    def chunks(self, blob: str, expected_size: int) -> Iterator[bytes]:
        header = self._ask(blob)
        if len(header) != 3 or header[1] != b"blob" or int(header[2]) != expected_size:
            raise GitFailure("Git could not read a blob of the bound commit.")
        yield from self._content(expected_size)

    def each(self, blobs: list[tuple[str, int]]) -> Iterator[Iterator[bytes]]:
        """The contents of ``blobs`` ((object name, size) pairs), in order, each to be read whole
        before the next. A thread writes every request up front, so git streams the answers
        without a round trip per blob (for a scan that reads a whole commit's code)."""
        import threading

        def ask_all() -> None:
            stdin = self._child.stdin
            try:
                assert stdin is not None
                stdin.write(b"".join(blob.encode("ascii") + b"\n" for blob, _ in blobs))
                stdin.flush()
            except (OSError, ValueError):  # the reader stopped early and closed the child
                pass

        threading.Thread(target=ask_all, name="cm-graph-blob-requests", daemon=True).start()
        stdout = self._child.stdout
        assert stdout is not None
        for _, size in blobs:
            header = stdout.readline(4096).split()
            if len(header) != 3 or header[1] != b"blob" or int(header[2]) != size:
                raise GitFailure("Git could not read a blob of the bound commit.")
            yield self._content(size)

    def _ask(self, blob: str) -> list[bytes]:
        child = self._child
        assert child.stdin is not None and child.stdout is not None
        try:
            child.stdin.write(blob.encode("ascii") + b"\n")
            child.stdin.flush()
        except OSError:
            raise GitFailure("Git stopped while reading blobs of the bound commit.") from None
        return child.stdout.readline(4096).split()

    def _content(self, size: int) -> Iterator[bytes]:
        stdout = self._child.stdout
        assert stdout is not None
        remaining = size
        while remaining:
            chunk = stdout.read(min(remaining, 256 * 1024))
            if not chunk:
                raise GitFailure("Git stopped while reading blobs of the bound commit.")
            remaining -= len(chunk)
            yield chunk
        if stdout.read(1) != b"\n":
            raise GitFailure("Git returned a malformed blob record.")

    def line_count(self, blob: str, size: int) -> int:
        """Lines as an editor numbers them: newlines, plus one for an unterminated last line."""
        return count_lines(self.chunks(blob, size))

    def close(self) -> None:
        child = self._child
        if child.stdin:
            child.stdin.close()
        if child.stdout:
            child.stdout.close()
        import subprocess

        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
