"""The local outcome store: what agents said about answers, kept owner-only on this machine.

One apsw file, ``<state>/feedback/outcomes.sqlite``, private like the rest of the state: the
directory is 0700 and the file 0600, both checked (owner, mode, one link, no symlink) on every
open, because a file made private can have been replaced or chmod-ed since. Rows are appended and
never updated; a second report of one answer by one client changes nothing (idempotent), and
only a purge (``feedback purge``, ``disconnect``) or the row cap removes any. No query prose is
stored: the target comes from the repository's own graph and a note is kept only on request.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import apsw

from ..base.errors import Refusal
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.privfs import check_private_dir, create_exclusive, ensure_private_dir, open_private_read
from ..base.refusals import refusal_for_os_error, refusal_for_sqlite_error
from ..base.rules import is_object_name
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_value
from ..index.format import configure

STORE_APPLICATION_ID = 0x636D6662  # "cmfb": an outcome store cm-graph made
STORE_VERSION = 1
MAX_OUTCOMES = 100_000
OUTCOME_FIELDS = ("seq", "at", "client", "connection", "capability_id", "answer_id", "generation", "kind",
                  "intent", "target", "reads_avoided", "files_read", "correct", "note_sha256", "note")
CASE_FIELDS = ("answer_id", "capability_id", "kind", "intent", "target", "arguments", "generation", "commit",
               "cited")
# The store's own sentences, each with the remedy that works for it: never the index's words
# (an outcome store is not derived state; no `index --rebuild` remakes it). The path is named
# relative to the state directory, so no local path is printed.
STORE_FILE = "`feedback/outcomes.sqlite` under the state directory"
STORE_DAMAGED = (f"The outcome store ({STORE_FILE}) is damaged: SQLite cannot read it. Move it aside to keep "
                 "what can be salvaged; the next `cm-graph feedback record` starts a new one.")
STORE_FOREIGN = (f"The outcome store ({STORE_FILE}) was not written by cm-graph. Move it aside; the next "
                 "`cm-graph feedback record` starts a new one.")
STORE_BUSY = ("The outcome store is being written by another process; record again once it is done "
              "(nothing is damaged).")
STORE_FULL = "The outcome store could not be written: the disk is full. Free some space and record again."
STORE_UNWRITABLE = ("The outcome store could not be written (SQLite could not open its journal or write its "
                    "pages: a full disk or a state directory it cannot write). Free some space or fix the state "
                    "directory, then record again.")


def store_path(state_root: Path) -> Path:
    return Path(state_root) / "feedback" / "outcomes.sqlite"


class OutcomeStore:
    """An open outcome store; use as a context manager. ``mode``: ``create`` (recording: make the
    store if it is missing), ``write`` (purging: an existing store only), ``read`` (report, export,
    eval: opened read-only, so a read-only state root still reports). Without a store, ``write``
    and ``read`` give an empty view: reading never creates state."""

    def __init__(self, state_root: Path, *, mode: str = "read") -> None:
        assert mode in ("create", "write", "read")
        self.path = store_path(state_root)
        self._connection: apsw.Connection | None = None
        try:
            self._connection = self._open(Path(state_root), mode)
        except OSError as error:
            raise refusal_for_os_error(error) from None
        except apsw.Error as error:
            raise store_refusal(error, writing=mode != "read") from None

    def _open(self, root: Path, mode: str) -> apsw.Connection | None:
        if mode == "create":
            ensure_private_dir(self.path.parent, private_from=root)
            try:
                os.close(create_exclusive(self.path))
            except FileExistsError:
                pass
        elif not os.path.lexists(self.path.parent) or not os.path.lexists(self.path):
            return None
        check_private_dir(self.path.parent)
        os.close(open_private_read(self.path))
        access = apsw.SQLITE_OPEN_READONLY if mode == "read" else apsw.SQLITE_OPEN_READWRITE
        connection = apsw.Connection(str(self.path), flags=access | apsw.SQLITE_OPEN_NOFOLLOW)
        try:
            configure(connection)
            marker = fetch_value(connection.execute("PRAGMA application_id"), int)
            if marker not in (0, STORE_APPLICATION_ID):
                raise Refusal(STORE_FOREIGN, reason="unreadable")
            if mode == "read":
                if marker == 0:  # made, never written: no outcome yet
                    connection.close()
                    return None
                return connection
            with connection:
                connection.execute(f"PRAGMA application_id = {STORE_APPLICATION_ID}")
                connection.execute(f"PRAGMA user_version = {STORE_VERSION}")
                connection.execute(query_sql("feedback_schema"))
        except BaseException:
            connection.close()
            raise
        return connection

    def __enter__(self) -> OutcomeStore:
        return self

    def __exit__(self, *_: object) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _write(self, steps: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """Run the named statements in one transaction; the rows each changed."""
        assert self._connection is not None
        changed = []
        try:
            with self._connection:
                for name, bindings in steps:
                    self._connection.execute(query_sql(name), bindings)
                    changed.append(self._connection.changes())
        except apsw.ConstraintError:
            raise Refusal("The outcome breaks the store's contract.", reason="invalid") from None
        except apsw.Error as error:
            raise store_refusal(error, writing=True) from None
        return changed

    def _rows(self, name: str, bindings: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The rows of one named statement; a store SQLite cannot read is the store's refusal."""
        assert self._connection is not None
        try:
            return self._connection.execute(query_sql(name), bindings).fetchall()
        except apsw.Error as error:
            raise store_refusal(error, writing=False) from None
        except UnicodeDecodeError:  # a flipped byte inside a stored text: the page reads, its text does not
            raise Refusal(STORE_DAMAGED, reason="unreadable") from None

    def append(self, outcome: dict[str, Any], case: dict[str, Any] | None) -> tuple[bool, int]:
        """Append ``outcome`` (and, for a correct one, its eval ``case``) unless this client already
        reported this answer: (whether a row was added, the outcome's seq)."""
        assert self._connection is not None
        key = {"answer_id": outcome["answer_id"], "client": outcome["client"]}
        existing = self._rows("feedback_find_outcome", key)
        if existing:
            return False, int(existing[0][0])
        steps = [("feedback_insert_outcome", outcome)]
        if case is not None:
            row = {key: case[key] for key in CASE_FIELDS if key != "commit"}
            row.update(arguments=dumps_canonical(case["arguments"]).decode(),
                       cited=dumps_canonical(case["cited"]).decode(),
                       commit_sha=case["commit"], workspace=outcome["workspace"], client=outcome["client"])
            steps.append(("feedback_insert_case", row))
        steps += [("feedback_prune_oldest", {"keep": MAX_OUTCOMES}), ("feedback_delete_orphan_cases", {})]
        inserted = self._write(steps)[0]  # one transaction; 0 when a concurrent twin won the race
        return bool(inserted), int(self._rows("feedback_find_outcome", key)[0][0])

    def outcomes(self, workspace: str) -> list[dict[str, Any]]:
        if self._connection is None:
            return []
        rows = self._rows("feedback_select_outcomes", {"workspace": workspace})
        return [dict(zip(OUTCOME_FIELDS, row, strict=True)) | {"correct": bool(row[12])} for row in rows]

    def cases(self, workspace: str) -> list[dict[str, Any]]:
        """The eval cases, each in the shape ``append`` writes; a row in any other shape (edited
        by hand: arguments that are not a JSON object, a cited set that is not a list of
        citations, a commit that is not a full object name, which ``git diff`` would read as an
        option) is a store cm-graph did not write, refused as such, never handed on."""
        if self._connection is None:
            return []
        rows = self._rows("feedback_select_cases", {"workspace": workspace})
        return [_case(dict(zip(CASE_FIELDS, row, strict=True))) for row in rows]

    def purge_connection(self, connection: str) -> int:
        """Forget the outcomes recorded through ``connection`` (and cases no outcome backs)."""
        if self._connection is None:
            return 0
        return self._write([("feedback_delete_connection_outcomes", {"connection": connection}),
                            ("feedback_delete_orphan_cases", {})])[0]

    def purge_workspace(self, workspace: str) -> int:
        if self._connection is None:
            return 0
        return self._write([("feedback_delete_workspace_outcomes", {"workspace": workspace}),
                            ("feedback_delete_orphan_cases", {})])[0]


def _case(case: dict[str, Any]) -> dict[str, Any]:
    try:
        case["arguments"], case["cited"] = loads_strict(case["arguments"].encode(), "A case"), \
            loads_strict(case["cited"].encode(), "A case")
    except Refusal:
        raise Refusal(STORE_FOREIGN, reason="unreadable") from None
    cited = case["cited"]
    if not (isinstance(case["arguments"], dict) and isinstance(cited, list)
            and all(isinstance(citation, str) for citation in cited) and is_object_name(case["commit"])):
        raise Refusal(STORE_FOREIGN, reason="unreadable")
    return case


def store_refusal(error: apsw.Error, *, writing: bool) -> Refusal:
    """The outcome store's own refusal for what SQLite said: a full disk, another writer still
    holding it after the busy wait, a journal or page it could not write (while writing), or a
    file it cannot read as a database (damaged). SQLite rolls a transaction back itself on a full
    disk, so the rollback of ``with connection:`` then fails too: the error it raised first is the
    one that says what happened."""
    while isinstance(error.__context__, apsw.Error):
        error = error.__context__
    if isinstance(error, apsw.FullError):
        return Refusal(STORE_FULL, reason="disk_full")
    if isinstance(error, apsw.BusyError | apsw.LockedError):  # another writer, past the busy wait
        return Refusal(STORE_BUSY, reason="busy")
    if isinstance(error, apsw.ReadOnlyError):
        return refusal_for_sqlite_error(error)
    if writing and isinstance(error, apsw.CantOpenError | apsw.IOError):
        return Refusal(STORE_UNWRITABLE, reason="io")
    return Refusal(STORE_DAMAGED, reason="unreadable")
