"""A generation's manifest is covered like everything a question trusts (issue 25, item 9).

The manifest's key set is a shared contract (another compatible tool reads and writes exactly
those keys), so it cannot carry a digest of itself: the build record beside it
(``build.json``, ours) records the manifest's SHA-256 when the generation is published, and every
read of the generation checks it. A generation another tool published has no build record and
reads as before.
"""

from __future__ import annotations

import hashlib
import json
import string
from pathlib import Path

from cm_graph.generation.layout import Workspace
from cm_graph.generation.status import graph_status
from cm_graph.generation.store import BUILD_RECORD_NAME, MANIFEST_NAME, read_current

from ..support.cli import invoke, where
from ..support.g0 import g0_graph
from ..support.helpers import code_paths, inventory_for, publish, write_output


def _built(repo: Path, state: Path, tmp_path: Path) -> Workspace:
    """G0 built the way ``build --from-graph`` builds it (with its build record)."""
    out = write_output(tmp_path / "out", g0_graph(), inventory_for(repo, code_paths(repo)))
    assert invoke("build", "--from-graph", out, *where(repo, state)).exit_code == 0
    return Workspace.locate(repo, state)


def _substitute(byte: int) -> int:
    """Another byte of the same kind, so the flipped manifest still looks well formed: a digit
    for a digit, a hex letter for a hex letter, a letter for a letter; anything else one bit off."""
    char = chr(byte)
    for alphabet in (string.digits, "abcdef", string.ascii_lowercase, string.ascii_uppercase):
        if char in alphabet:
            return ord(alphabet[(alphabet.index(char) + 1) % len(alphabet)])
    return byte ^ 0x01


def _undetected(workspace: Workspace, path: Path) -> list[str]:
    """Every single-byte change of ``path`` (two per byte) the question path still calls current."""
    original = path.read_bytes()
    missed = []
    try:
        for place, byte in enumerate(original):
            for other in sorted({_substitute(byte), byte ^ 0x01} - {byte}):
                path.write_bytes(original[:place] + bytes([other]) + original[place + 1:])
                status = graph_status(workspace, trust_seal=True)
                if status.state == "current":
                    missed.append(f"{place}: {original[max(0, place - 12):place + 12]!r} -> {chr(other)!r}")
    finally:
        path.write_bytes(original)
    return missed


def test_every_single_byte_change_of_a_manifest_is_detected(g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    workspace = _built(g0_repo, state_dir, tmp_path)
    generation = read_current(workspace)
    manifest = generation.directory / MANIFEST_NAME
    assert graph_status(workspace, trust_seal=True).state == "current"
    assert _undetected(workspace, manifest) == []
    # Each of them says what is wrong and how to recover, as any other invalid manifest does.
    fields = json.loads(manifest.read_bytes())
    manifest.write_bytes(manifest.read_bytes().replace(
        fields["census_digest"].encode(), fields["census_digest"][::-1].encode()))
    status = graph_status(workspace, trust_seal=True)
    assert (status.state, status.detail) == (
        "invalid", "The generation's manifest is not the one its build recorded; remove and rebuild.")
    assert status.to_json()["next_action"] == "Remove and rebuild the graph: cm-graph remove && cm-graph build."


def test_a_change_of_the_recorded_digest_is_detected_too(g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    workspace = _built(g0_repo, state_dir, tmp_path)
    generation = read_current(workspace)
    record = generation.directory / BUILD_RECORD_NAME
    digest = hashlib.sha256((generation.directory / MANIFEST_NAME).read_bytes()).hexdigest()
    assert json.loads(record.read_bytes())["manifest_sha256"] == digest
    start = record.read_bytes().index(digest.encode())
    original = record.read_bytes()
    for place in range(start, start + len(digest)):
        record.write_bytes(original[:place] + bytes([_substitute(original[place])]) + original[place + 1:])
        assert graph_status(workspace, trust_seal=True).state == "invalid", place
    record.write_bytes(original[:start] + b"{" + original[start + 1:])  # no longer JSON at all
    assert graph_status(workspace, trust_seal=True).state == "invalid"


def test_a_generation_another_tool_published_has_no_build_record_and_reads_as_before(
    g0_repo: Path, state_dir: Path,
) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    generation = read_current(workspace)
    assert not (generation.directory / BUILD_RECORD_NAME).exists()
    assert graph_status(workspace, trust_seal=True).state == "current"
