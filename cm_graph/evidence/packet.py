"""The ``code_mower.contextPacket.v1`` repository packet and the query summary.

The packet is the evidence (documents with citations) plus the binding that says who may read
it and until when; the summary is metadata only and is all the terminal ever shows.
"""

from __future__ import annotations

from datetime import datetime

from ..base.errors import Refusal, Uncitable
from ..base.jsonio import dumps_canonical
from ..generation.manifest import Manifest
from ..query.answer import Answer
from ..query.questions import MAX_DEPTH
from .authorization import Authorization, binding_expiry, parse_envelope
from .availability import Wording, available_outcome
from .documents import Documents

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

PACKET_SCHEMA = "code_mower.contextPacket.v1"
QUERY_SUMMARY_SCHEMA = "code_mower.contextGraphQuery.v1"


_REAUTHORIZE = "Mint a fresh authorization for the current generation (`cm-graph auth init`) and retry."


def _dedupe(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def build_packet(
    answer: Answer,
    documents: Documents,
    authorization: Authorization,
    manifest: Manifest,
    now: datetime,
) -> dict[str, Any]:
    """Assemble the packet, or refuse (uncitable) when it could not be honest or authorized."""
    if now.tzinfo is None:
        raise Uncitable("The clock must carry a timezone.")
    try:
        envelope = parse_envelope(authorization.envelope_json, now)
    except Refusal as refusal:
        raise Uncitable(refusal.message, _REAUTHORIZE) from None
    if envelope.kind != "repository":
        raise Uncitable("The connection envelope is not a repository connection.", _REAUTHORIZE)
    if envelope.generation != manifest.generation:
        raise Uncitable(
            "The connection envelope names a different generation than the one queried.", _REAUTHORIZE
        )
    if not answer.resolved:
        raise Uncitable("The target names no symbol or path in the graph.")
    if not answer.relations:
        spec = answer.question
        raise Uncitable(
            f"The graph has no {spec.name} relationship ({', '.join(spec.kinds)}) for this target within "
            f"depth {answer.depth} and node budget {answer.budget}: there is nothing to cite.",
            f"See every relationship the target has with `cm-graph ask symbol TARGET`; ask another question"
            f"{' or raise --depth' if answer.depth < MAX_DEPTH else ''}, or carry on with ordinary repository tools.",
        )
    if not documents.items:
        raise Uncitable(
            "No relationship in the answer has a citation the bound commit confirms.",
            "The provider's locations do not match the bound commit; rebuild the graph (`cm-graph refresh`).",
        )
    items = list(documents.items)
    extra: list[str] = []
    limit = authorization.policy.limits["max_packet_bytes"]
    while True:
        packet = _assemble(answer, items, documents.omissions() + extra, envelope, authorization, manifest, now)
        if len(dumps_canonical(packet)) <= limit:
            return packet
        if len(items) == 1:
            raise Uncitable(
                "Even one document does not fit the policy's packet budget.",
                "Raise the policy's max_packet_bytes, or ask a narrower question.",
            )
        items.pop()  # the furthest relationship goes first, as with every other bound
        extra = ["text_limit"]


def _assemble(
    answer: Answer,
    items: list[dict[str, Any]],
    document_omissions: list[str],
    envelope: Any,
    authorization: Authorization,
    manifest: Manifest,
    now: datetime,
) -> dict[str, Any]:
    omissions = answer.omissions() + document_omissions
    if manifest.completeness == "partial":
        omissions.append("provider_partial")
    omissions = _dedupe(omissions)
    truncated = answer.truncated or "document_limit" in omissions or "text_limit" in omissions
    policy = authorization.policy
    return {
        "schema": PACKET_SCHEMA,
        "capability_version": 1,
        "provider": envelope.provider,
        "kind": "repository",
        "retrieved_at": now.isoformat(),
        "source_revision": manifest.commit,
        "source_built_at": manifest.built_at,
        "completeness": "partial" if omissions else "complete",
        "truncated": truncated,
        "omissions": omissions,
        "documents": items,
        "binding": {
            "connection": envelope.connection,
            "generation": envelope.generation,
            "identity": envelope.identity,
            "recipients": list(envelope.recipients),
            "repository": authorization.repository,
            "work_item": authorization.work_item,
            "policy_version": policy.policy_version,
            "expires_at": binding_expiry(envelope, policy, now).isoformat(),
        },
    }


def available_summary(
    answer: Answer, packet: dict[str, Any], manifest: Manifest
) -> dict[str, Any]:
    return available_outcome(
        schema=QUERY_SUMMARY_SCHEMA,
        question=answer.question.name,
        generation=manifest.generation,
        graph_generation=manifest.generation,
        source_revision=manifest.commit,
        seeds=len(answer.seeds),
        relations=len(answer.relations),
        ambiguous=answer.ambiguous,
        documents=len(packet["documents"]),
        completeness=packet["completeness"],
        generation_completeness=manifest.completeness,
        query_completeness=packet["completeness"],
        truncated=packet["truncated"],
        omissions=packet["omissions"],
        recipients=packet["binding"]["recipients"],
    )


# How a query's caller is told what to do when the evidence is unavailable (evidence/availability.py).
QUERY_WORDING = Wording(
    carry_on="Carry on with ordinary repository tools; no graph context is attached.",
    paused=" Dependent work is paused until then.",
)
