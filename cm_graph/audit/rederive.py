"""``cm-graph audit``: is the stored index exactly what its generation derives to?

The index is derived state, so the audit derives it again — from the verified artifact and the
bound commit, into a temp file — and compares bytes. When the bytes differ it compares table by
table, so the cause (a flipped byte, a changed line count, a swapped edge) is visible rather
than just "different".
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import apsw

from ..base.errors import Refusal
from ..generation.scratch import scratch_owner
from ..generation.store import Generation
from ..index.format import INDEX_TABLES, configure_readonly
from ..index.importer import build_index
from ..index.mentions import read_postings
from ..index.seal import index_is_sealed

AUDIT_SCHEMA = "cm_graph.audit.v1"
SAMPLE_ROWS = 5
# Table names come from the constant INDEX_TABLES, never from input.
_ONLY_IN = {
    (side, table): f"SELECT * FROM {side}.{table} EXCEPT SELECT * FROM {other}.{table}"
    for table in INDEX_TABLES
    for side, other in (("stored", "rebuilt"), ("rebuilt", "stored"))
}


def _sha256(path: os.PathLike[str] | str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _compare(stored: str, rebuilt: str) -> list[dict[str, Any]]:
    connection = apsw.Connection(":memory:", flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    try:
        connection.execute("ATTACH DATABASE ? AS stored", (f"file:{stored}?mode=ro",))
        connection.execute("ATTACH DATABASE ? AS rebuilt", (f"file:{rebuilt}?mode=ro",))
        configure_readonly(connection)
        tables = []
        for table in INDEX_TABLES:
            entry: dict[str, Any] = {"table": table}
            for side in ("stored", "rebuilt"):
                rows = connection.execute(_ONLY_IN[(side, table)]).fetchall()
                entry[f"only_in_{side}"] = len(rows)
                entry[f"{side}_samples"] = [[_plain(value) for value in row] for row in rows[:SAMPLE_ROWS]]
            tables.append(entry)
        return tables
    except apsw.Error:
        return [{"table": "*", "only_in_stored": -1, "only_in_rebuilt": 0, "stored_samples": [],
                 "rebuilt_samples": [], "error": "SQLite cannot read the stored index: it is corrupt."}]
    finally:
        connection.close()


def _plain(value: Any) -> Any:
    """A sample value as JSON can carry it: a name's postings (the one blob column) as the
    (file, line, form) triples it packs, so a report says which lines differ."""
    return [list(posting) for posting in read_postings(value)] if isinstance(value, bytes) else value


def _integrity(path: str) -> dict[str, str]:
    """SQLite's own structural check of the stored file: it names a damaged index or page that
    a row-by-row comparison cannot see (a flipped byte inside an index b-tree)."""
    try:
        connection = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
        try:
            rows = [row[0] for row in connection.execute("PRAGMA integrity_check(20)")]
        finally:
            connection.close()
    except apsw.Error:
        rows = ["SQLite cannot open the stored index."]
    if rows == ["ok"]:
        return {"check": "integrity", "status": "pass", "message": "SQLite finds the stored file's structure intact."}
    return {"check": "integrity", "status": "fail", "message": "SQLite reports: " + "; ".join(rows[:5])}


def _seal_check(generation: Generation, stored: Path) -> dict[str, str]:
    """The stored index against the seal written when it was derived (hashed in full)."""
    try:
        sealed = index_is_sealed(generation, stored, full=True)
    except Refusal as refusal:
        return {"check": "seal", "status": "fail", "message": refusal.message}
    if sealed:
        return {"check": "seal", "status": "pass", "message": "The stored index matches its derivation seal."}
    return {
        "check": "seal", "status": "fail",
        "message": "The stored index does not match its derivation seal; run `cm-graph index --rebuild`.",
    }


def audit(generation: Generation) -> dict[str, Any]:
    """Re-derive the index and compare; ``status`` is ``pass`` only when everything matches."""
    checks: list[dict[str, str]] = []
    result: dict[str, Any] = {"schema": AUDIT_SCHEMA, "generation": generation.id, "checks": checks}
    coverage = (generation.build_record() or {}).get("coverage")
    if isinstance(coverage, dict) and coverage.get("exclude"):
        result["exclude"] = coverage["exclude"]  # what the operator left out of this generation
    try:
        generation.open_verified_artifact().close()
    except Refusal as refusal:
        checks.append({"check": "artifact", "status": "fail", "message": refusal.message})
        result["status"] = "fail"
        return result
    checks.append({"check": "artifact", "status": "pass", "message": "Size and SHA-256 match the manifest."})
    stored = generation.workspace.index_path(generation.id)
    with scratch_owner(generation.workspace) as token:
        return _rederive_and_compare(generation, stored, stored.with_name(f".audit-{token}.sqlite"), result)


def _rederive_and_compare(
    generation: Generation, stored: Path, rebuilt: Path, result: dict[str, Any]
) -> dict[str, Any]:
    checks: list[dict[str, str]] = result["checks"]
    try:
        try:
            build_index(generation, rebuilt, seal=False)
        except Refusal as refusal:
            checks.append({"check": "rederive", "status": "fail", "message": refusal.message})
            result["status"] = "fail"
            return result
        checks.append({
            "check": "census", "status": "pass",
            "message": "The bound commit's tracked files match the census digest; line counts re-read from git.",
        })
        result["rebuilt_sha256"] = _sha256(rebuilt)
        if not os.path.isfile(stored):
            checks.append({
                "check": "index",
                "status": "fail",
                "message": "There is no stored index; run `cm-graph index`.",
            })
            result["status"] = "fail"
            return result
        result["stored_sha256"] = _sha256(stored)
        checks.append(_seal_check(generation, stored))
        identical = result["stored_sha256"] == result["rebuilt_sha256"]
        result["identical"] = identical
        if identical:
            checks.append({
                "check": "index",
                "status": "pass",
                "message": "The stored index is byte-identical to a fresh derivation.",
            })
        else:
            tables = _compare(str(stored), str(rebuilt))
            result["tables"] = tables
            differing = [t["table"] for t in tables if t["only_in_stored"] or t["only_in_rebuilt"]]
            if tables and tables[0]["table"] == "*":
                differing = ["(unreadable: SQLite reports the stored file as corrupt)"]
            message = (
                f"The stored index differs from a fresh derivation in: {', '.join(differing)}."
                if differing else
                "The stored index's bytes differ but every table's rows match (page layout or header)."
            )
            checks.append(_integrity(str(stored)))
            checks.append({"check": "index", "status": "fail", "message": message})
    finally:
        for leftover in (rebuilt,):
            try:
                os.unlink(leftover)
            except FileNotFoundError:
                pass
    result["status"] = "fail" if any(c["status"] == "fail" for c in checks) else "pass"
    return result
