"""``cm-graph score``: how well does a delivered packet's evidence hold up against a checkout?

This is the recipient's check. Every citation is parsed and scope-checked (one out-of-scope
citation refuses the whole packet), each line claim is resolved against the files of the
checkout, and the packet's ``source_revision`` is compared with the checkout's commit. The gate
passes when the revision matches and at least 90 % of line claims resolve.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput
from ..base.git import count_lines, resolve_revision
from ..base.jsonio import loads_strict
from ..base.rules import PRIVATE_ROOTS, is_bounded_text, path_in_scope
from ..evidence.documents import MAX_CITATIONS  # a packet's own limit

QUALITY_SCHEMA = "code_mower.contextGraphQuality.v1"
MAX_PACKET_BYTES = 262_144
GATE_RATE = 0.9
# ASCII digits only: ``\d`` would take any Unicode decimal digit, so ``#L٣٣`` read as line 33
# though no citation this project (or the provider) writes can carry one.
_CITATION = re.compile(r"(?P<path>[^#]{1,1024})(?:#L(?P<start>[0-9]{1,7})(?:-L(?P<end>[0-9]{1,7}))?)?")


def parse_citation(source: Any) -> tuple[str, int | None, int | None]:
    """``PATH``, ``PATH#L<start>`` or ``PATH#L<start>-L<end>``, scope-checked."""
    if not is_bounded_text(source, 2048):
        raise InvalidInput("A citation is not bounded single-line text.")
    match = _CITATION.fullmatch(source)
    if match is None or not path_in_scope(match["path"]):
        raise InvalidInput("A citation names a path outside the repository's scope.")
    if match["start"] is None:
        return match["path"], None, None
    start = int(match["start"])
    end = int(match["end"]) if match["end"] is not None else start
    if not 1 <= start <= end:
        raise InvalidInput("A citation's line range is empty or starts at zero.")
    return match["path"], start, end


def _line_count(root: Path, path: str) -> int | None:
    """Lines of ``root/path`` when it resolves inside the root and outside private roots."""
    candidate = Path(os.path.realpath(root / path))
    if candidate == root or root not in candidate.parents:
        raise InvalidInput("A citation resolves outside the repository.")
    if any(part.casefold() in PRIVATE_ROOTS for part in candidate.relative_to(root).parts):
        raise InvalidInput("A citation resolves into a private directory.")
    if not candidate.is_file():
        return None
    with open(candidate, "rb") as handle:
        return count_lines(iter(lambda: handle.read(256 * 1024), b""))


def score_packet(data: bytes, checkout: Path, revision: str | None) -> dict[str, Any]:
    if len(data) > MAX_PACKET_BYTES:
        raise InvalidInput("The packet exceeds 256 KiB.")
    packet = loads_strict(data, "The packet")
    if not isinstance(packet, dict) or packet.get("kind") != "repository":
        raise InvalidInput("Only a repository-kind packet can be scored.")
    completeness, truncated = packet.get("completeness"), packet.get("truncated")
    if truncated is True and completeness == "complete":
        raise InvalidInput("The packet claims to be complete and truncated at once.")
    documents = packet.get("documents")
    if not isinstance(documents, list):
        raise InvalidInput("The packet has no documents list.")
    if not all(isinstance(d, dict) and isinstance(d.get("citations"), list) for d in documents):
        raise InvalidInput("A document of the packet has no citations list.")
    citations = [c for d in documents for c in d["citations"]]
    if len(citations) > MAX_CITATIONS:
        raise InvalidInput(f"The packet carries more than {MAX_CITATIONS} citations.")
    root = Path(os.path.realpath(checkout))
    claims = resolved = 0
    for citation in citations:
        source = citation.get("source") if isinstance(citation, dict) else None
        path, start, end = parse_citation(source)
        lines = _line_count(root, path)
        if start is None:
            continue
        claims += 1
        if lines is not None and end is not None and lines >= end:
            resolved += 1
    source_revision = packet.get("source_revision")
    current = resolve_revision(checkout, revision).commit if revision is not None else None
    if source_revision is None or current is None:
        state = "unknown"
    else:
        state = "matching" if source_revision == current else "stale"
    rate = resolved / claims if claims else 1.0
    return {
        "schema": QUALITY_SCHEMA,
        "revision_state": state,
        "citations": len(citations),
        "line_citations": claims,
        "resolved_line_citations": resolved,
        "resolution_rate": round(rate, 6),
        "completeness": completeness,
        "truncated": truncated,
        "gate": "pass" if state == "matching" and rate >= GATE_RATE else "fail",
    }
