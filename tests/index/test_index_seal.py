"""The derived index's integrity seal, and the question path trusting only what it can verify.

An index altered after its derivation is never answered from (it is derived again: it is
derived state), and a graph.bin edited under a forged seal is refused by ``query`` exactly as
``status`` calls it: ``corrupt``. Real SQLite files, real graph.bin edits, the real CLI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import apsw

from cm_graph.generation.store import ARTIFACT_NAME, read_current

from ..cli.test_cli_query import Case, auth_document, query, run, write_auth
from ..support.g0 import g0_graph
from ..support.helpers import code_paths, inventory_for, write_output


def built(g0_repo: Path, state_dir: Path, tmp_path: Path) -> Case:
    """G0 built by ``build --from-graph`` (so its index is derived and sealed at publication)."""
    files = tmp_path / "files"
    (files / "out").mkdir(parents=True)
    out = write_output(files / "graphify-out", g0_graph(), inventory_for(g0_repo, code_paths(g0_repo)))
    case = Case(g0_repo, state_dir, files)
    done = run("build", "--from-graph", out, *case.where())
    assert done.exit_code == 0, done.stderr
    return case


def packet_citations(case: Case, auth: Path) -> list[list[str]]:
    case.packet.unlink(missing_ok=True)
    done = query(case, auth, "--packet-out", case.packet)
    assert done.exit_code == 0, done.stdout
    packet = json.loads(case.packet.read_text())
    return [[c["source"] for c in d["citations"]] for d in packet["documents"]]


def test_an_index_altered_after_its_derivation_is_never_answered_from(
    g0_repo: Path, state_dir: Path, tmp_path: Path
) -> None:
    case = built(g0_repo, state_dir, tmp_path)
    auth = write_auth(case, auth_document(case))
    before = packet_citations(case, auth)
    index = case.workspace.index_path(case.generation)
    connection = apsw.Connection(str(index))
    connection.execute("UPDATE nodes SET line = line + 1 WHERE line IS NOT NULL")
    connection.close()
    assert packet_citations(case, auth) == before, "a packet cited a line the index was edited to"

    # status (and audit) hash the index in full: an altered index is derived again there too.
    connection = apsw.Connection(str(index))
    connection.execute("UPDATE nodes SET line = line + 1 WHERE line IS NOT NULL")
    connection.close()
    os.utime(index, ns=(0, 0))  # mtime changes, ctime cannot be set back
    status = run("status", *case.where(), "--json")
    assert status.exit_code == 0 and json.loads(status.stdout)["search"] == "available"
    assert json.loads(run("audit", *case.where(), "--json").stdout)["status"] == "pass"
    assert packet_citations(case, auth) == before


def test_a_forged_artifact_seal_over_an_edited_graph_bin_is_refused_as_status_refuses_it(
    g0_repo: Path, state_dir: Path, tmp_path: Path
) -> None:
    case = built(g0_repo, state_dir, tmp_path)
    auth = write_auth(case, auth_document(case))
    packet_citations(case, auth)
    generation = read_current(case.workspace)
    artifact = case.workspace.generation_dir(generation.id) / ARTIFACT_NAME
    data = bytearray(artifact.read_bytes())
    data[-1] ^= 0x01  # tar padding: same size, different digest
    artifact.write_bytes(bytes(data))
    st = os.stat(artifact)
    identity = f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"
    forged = f"{identity} {generation.manifest.graph_digest}\n"
    generation.seal_path.write_text(forged)

    status = run("status", *case.where(), "--json")
    assert status.exit_code == 1 and json.loads(status.stdout)["state"] == "corrupt"
    done = query(case, auth, "--packet-out", case.packet, "--json")
    summary = json.loads(done.stdout)
    assert done.exit_code == 1 and summary["status"] == "required_unavailable", summary
    assert summary["reason"] == "corrupt", summary
    shown = run("ask", "impact", "parse_config", *case.where())
    assert shown.exit_code == 1 and shown.stderr.startswith("cm-graph: corrupt: ")
