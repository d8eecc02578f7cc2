"""Local graph connections and their packet store: the guided route to graph evidence.

A local connection is one private JSON file: a checkout and the repositories and recipients the
operator approved for it. There is no credential to store; what replaces it is the graph itself.
Authorization is re-derived from current local state on every fetch and every load (never
cached): the graph must be current at the *consuming* revision (the commit of the checkout doing
the work), and the minted envelope names the published generation. So a rebuilt graph makes old
packets refuse to load, and a moved HEAD makes authorization fail outright.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..base.errors import ConnectionRefusal, InvalidInput, Refusal
from ..base.git import checkout_root, resolve_revision
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.locking import build_lock
from ..base.privfs import ensure_private_dir, read_private_bytes, write_private_atomic
from ..base.rules import identifier, is_bounded_text, timestamp
from ..evidence.ask import ask
from ..evidence.authorization import Authorization, Policy, mint_envelope, parse_envelope, parse_policy, string_list
from ..evidence.packet import PACKET_SCHEMA
from ..generation.layout import Workspace
from ..generation.status import GraphStatus, graph_status
from ..query.questions import QUESTION_NAMES
from .storeshape import (
    HANDLE,
    INDEX_SCHEMA,
    LOCAL_CONNECTION_SCHEMA,
    MAX_ENTRIES,
    PROVIDER,
    check_connection_state,
    check_index,
)

CONNECTION_SUMMARY_SCHEMA = "code_mower.contextConnectionSummary.v1"
CONTEXT_SUMMARY_SCHEMA = "code_mower.contextSummary.v1"
EVIDENCE_SCHEMA = "cm_graph.evidence.v1"
MAX_STATE_BYTES = 262_144
MAX_QUERY_CHARS = 2000
GUIDED_HOSTS = ("claude", "codex", "devin")
GUIDED_ROLES = ("orchestrator", "builder", "reviewer")
_HANDLE = HANDLE
# The packet's ``provider`` names the provider tool, which the rendered evidence must not.
EVIDENCE_FIELDS = (
    "kind", "retrieved_at", "source_revision", "source_built_at", "completeness",
    "truncated", "documents", "omissions",
)


@dataclass(frozen=True)
class Connection:
    name: str
    state: str
    repository_root: Path
    repositories: tuple[str, ...]
    recipients: tuple[str, ...]


def _index_name(name: str) -> str:
    return f".i-{hashlib.sha256(name.encode()).hexdigest()[:48]}.json"


class ConnectionStore:
    """The connection store, laid out as the reference lays it: flat in the state root.

    ``<root>/<name>.json`` (state), ``<name>.lock``, ``.i-<digest>.json`` (packet index) and
    ``.p-<handle>.json`` (packets), beside ``graph/``, so each tool finds the other's
    connections. Earlier cm-graph releases kept them in ``<root>/connections/``; a connection
    found only there (``LEGACY_DIRECTORY``) is still read and used there, all its files together.
    If both places hold one, the state root wins. Reconnecting a disconnected legacy connection
    moves it to the state root (its packets were purged first, so nothing is left to move).
    """

    LEGACY_DIRECTORY = "connections"

    def __init__(self, state_root: Path) -> None:
        self.root = Path(os.path.realpath(os.path.abspath(state_root)))
        self.legacy = self.root / self.LEGACY_DIRECTORY

    def directory_for(self, name: str) -> Path:
        """Where connection ``name`` lives: the state root, unless only the legacy place has it."""
        identifier(name, "The connection name")  # names become file names: never a path
        if not os.path.lexists(self.root / f"{name}.json") and os.path.lexists(self.legacy / f"{name}.json"):
            return self.legacy
        return self.root

    def lock(self, name: str, wait: float = 35.0):  # type: ignore[no-untyped-def]
        directory = self.directory_for(name)
        ensure_private_dir(directory, private_from=self.root)
        return build_lock(
            directory / f"{name}.lock", wait,
            busy_message="Another command is using this connection; try again shortly.",
        )

    def state_path(self, name: str) -> Path:
        return self.directory_for(name) / f"{name}.json"

    def index_path(self, name: str) -> Path:
        return self.directory_for(name) / _index_name(name)

    def packet_path(self, name: str, handle: str) -> Path:
        return self.directory_for(name) / f".p-{handle}.json"

    def move_to_root(self, name: str) -> None:
        """After a clean purge of a legacy connection: drop its legacy state and index, so the
        state just written to the root is the only one (call with the connection lock held)."""
        for stale in (self.legacy / f"{name}.json", self.legacy / _index_name(name)):
            try:
                os.unlink(stale)
            except FileNotFoundError:
                pass

    # -- connection state -------------------------------------------------------------------

    def read(self, name: str) -> Connection | None:
        try:
            data = read_private_bytes(self.state_path(name), MAX_STATE_BYTES)
        except FileNotFoundError:
            return None
        value = check_connection_state(loads_strict(data, "The connection state"), name)
        return Connection(
            name, value["state"], Path(value["repository_root"]),
            tuple(value["repositories"]), tuple(value["recipients"]),
        )

    def write(self, connection: Connection, *, at_root: bool = False) -> None:
        """Save the state where the connection lives (``at_root``: in the state root, always)."""
        directory = self.root if at_root else self.directory_for(connection.name)
        ensure_private_dir(directory, private_from=self.root)
        write_private_atomic(directory / f"{connection.name}.json", dumps_canonical({
            "schema": LOCAL_CONNECTION_SCHEMA,
            "connection": connection.name,
            "provider": PROVIDER,
            "kind": "repository",
            "state": connection.state,
            "repository_root": str(connection.repository_root),
            "repositories": list(connection.repositories),
            "recipients": list(connection.recipients),
        }))

    # -- packet index -----------------------------------------------------------------------

    def entries(self, name: str) -> list[dict[str, Any]]:
        try:
            data = read_private_bytes(self.index_path(name), MAX_STATE_BYTES)
        except FileNotFoundError:
            return []
        return check_index(loads_strict(data, "The packet index"))

    def save_entries(self, name: str, entries: list[dict[str, Any]]) -> None:
        ensure_private_dir(self.directory_for(name), private_from=self.root)
        write_private_atomic(self.index_path(name), dumps_canonical({"schema": INDEX_SCHEMA, "entries": entries}))

    def purge(self, name: str) -> bool:
        """Delete every packet of the connection and empty its index; False if any remained.

        An entry whose packet could not be deleted stays in the index, so the next purge (the one
        a reconnect runs first) tries it again and refuses the reconnect while it still fails.
        """
        clean = True
        remaining: list[dict[str, Any]] = []
        try:
            entries = self.entries(name)
        except Refusal:
            entries = []
            clean = False
        for entry in entries:
            handle = entry.get("handle")
            if isinstance(handle, str) and _HANDLE.fullmatch(handle):
                try:
                    os.unlink(self.packet_path(name, handle))
                except FileNotFoundError:
                    pass
                except OSError:
                    clean = False
                    remaining.append(entry)
        try:
            self.save_entries(name, remaining)
        except OSError:
            clean = False
        return clean


def _summary(status: str, search: str, **extra: Any) -> dict[str, Any]:
    return {
        "schema": CONNECTION_SUMMARY_SCHEMA, "provider": PROVIDER, "kind": "repository", "status": status,
        "search": search, "memory": "unavailable", "credential_storage": "none", **extra,
    }


def connect(
    store: ConnectionStore, name: str, repo_path: Path, repositories: list[str], recipients: list[str]
) -> dict[str, Any]:
    identifier(name, "The connection name")
    root = checkout_root(Path(repo_path))
    if root is None:
        raise InvalidInput("A local graph connection needs a git checkout.")
    approved = Connection(
        name,
        "verified",
        root,
        string_list(repositories, "The approved repositories"),
        string_list(recipients, "The approved recipients"),
    )
    with store.lock(name, wait=1.0):
        existing = store.read(name)
        if existing is not None and existing.state != "disconnected":
            raise InvalidInput("The connection exists; disconnect it before changing it.")
        if existing is not None and not store.purge(name):
            raise Refusal(
                "The connection's old packets could not all be removed; fix the store first.", reason="needs_attention"
            )
        store.write(approved, at_root=True)
        store.move_to_root(name)
    return _summary("verified", "available")


def disconnect(store: ConnectionStore, name: str) -> dict[str, Any]:
    identifier(name, "The connection name")
    with store.lock(name):
        existing = store.read(name)
        if existing is None:
            raise Refusal("No such connection.", reason="not_configured")
        store.write(
            Connection(name, "disconnected", existing.repository_root, existing.repositories, existing.recipients)
        )
        clean = store.purge(name)
    return _summary("disconnected", "unavailable", packet_cleanup="complete" if clean else "needs_attention")


def connection_status(store: ConnectionStore, name: str) -> dict[str, Any]:
    from ..index.ensure import search_readiness

    identifier(name, "The connection name")
    connection = store.read(name)
    if connection is None:
        raise Refusal("No such connection.", reason="not_configured")
    workspace = Workspace(connection.repository_root, store.root)
    status = graph_status(workspace)
    if connection.state != "verified":
        readiness: dict[str, Any] = {"search": "unavailable", "reader": "not_checked", "reason": "disconnected"}
    else:
        readiness = search_readiness(status)
    available = connection.state == "verified" and status.usable and readiness["search"] == "available"
    return _summary(
        connection.state, readiness["search"], graph=status.to_json(), query_reader=readiness,
        authorization="available" if available else "unavailable",
        repositories=list(connection.repositories), recipients=list(connection.recipients),
    )


def consuming_revision(directory: Path) -> str:
    """The commit of the checkout doing the work; outside a git checkout there is none."""
    if checkout_root(directory) is None:
        raise ConnectionRefusal("The work is not in a git checkout, so a repository graph cannot be bound to it.")
    return resolve_revision(directory, "HEAD").commit


def authorize(
    store: ConnectionStore, name: str, revision: str, now: datetime
) -> tuple[dict[str, Any], Workspace]:
    """Re-derive an envelope from current state (call with the connection lock held)."""
    envelope, workspace, _ = authorize_judged(store, name, revision, now)
    return envelope, workspace


def authorize_judged(
    store: ConnectionStore, name: str, revision: str, now: datetime, *, trust_seal: bool = False,
    judged: Callable[[Workspace], GraphStatus | None] | None = None,
) -> tuple[dict[str, Any], Workspace, GraphStatus]:
    """``authorize``, also returning the status the envelope was minted from, so a question can
    be answered from that same judgement. ``trust_seal``: judge graph.bin by its seal, as the
    question path does (the agent surfaces re-derive on every call and cannot re-hash a large
    artifact each time). ``judged``: a judgement already held for the connection's workspace
    (a resident server's, for ``revision`` with ``trust_seal``), None to judge it now."""
    connection = store.read(name)
    if connection is None:
        raise ConnectionRefusal("No such connection.")
    if connection.state != "verified":
        raise ConnectionRefusal("The connection is disconnected.")
    workspace = Workspace(connection.repository_root, store.root)
    status = (judged(workspace) if judged is not None else None) or graph_status(workspace, revision,
                                                                                trust_seal=trust_seal)
    if not status.usable or status.generation is None:
        raise Refusal(f"The local graph is not current for this revision ({status.state}).", reason=status.state)
    envelope = mint_envelope(
        connection=name, generation=status.generation.id, repository_root=str(connection.repository_root),
        repositories=list(connection.repositories), recipients=list(connection.recipients), now=now,
        provider=PROVIDER,
    )
    parse_envelope(envelope, now)
    return envelope, workspace, status


def _request_key(spec: dict[str, Any]) -> str:
    return hashlib.sha256(dumps_canonical(spec)).hexdigest()


def fetch(
    store: ConnectionStore, name: str, *, repository: str, work_item: str, recipient: str,
    query: str, question: str, policy_json: dict[str, Any], revision: str, refresh: bool = False,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Get (or reuse) a packet for ``query`` and return its summary with the protected handle."""
    policy = parse_policy(policy_json)
    if policy.connection != name:
        raise InvalidInput("The policy names a different connection.")
    if question not in QUESTION_NAMES:
        raise InvalidInput(f"The question must be one of: {', '.join(QUESTION_NAMES)}.")
    if not is_bounded_text(query, MAX_QUERY_CHARS):
        raise InvalidInput(f"The query must be one line of at most {MAX_QUERY_CHARS} characters.")
    with store.lock(name, wait=float(policy.limits["timeout_seconds"])):
        # Read the clock only once the lock is held: a packet another process prepared while
        # this one waited has a retrieved_at later than any time read before the wait.
        now = now or datetime.now(UTC)
        envelope, workspace = authorize(store, name, revision, now)
        if repository not in envelope["repositories"] or recipient not in envelope["recipients"]:
            raise ConnectionRefusal("That repository or recipient is not approved for this connection.")
        normalised = {"schema": policy_json["schema"], "connection": policy.connection,
                      "policy_version": policy.policy_version, "required": policy.required, **policy.limits}
        request = {"repository": repository, "work_item": work_item, "query": query, "source": question,
                   "policy": normalised}
        key = _request_key(request)
        entries = store.entries(name)
        existing = next((e for e in entries if e.get("key") == key), None)
        if existing is not None and not refresh:
            loaded = _load(store, name, existing, policy, repository, work_item, recipient, envelope, revision, now)
            return _context_summary(loaded, existing["handle"], reused=True)
        handle = uuid.uuid4().hex
        entry: dict[str, Any] = {"key": key, "handle": handle, "reference": None,
                                 "generation": envelope["generation"], "usage": None, "request": request}
        kept = [e for e in entries if e.get("key") != key]
        while len(kept) >= MAX_ENTRIES:
            evicted = kept.pop(0)
            if isinstance(evicted.get("handle"), str) and _HANDLE.fullmatch(evicted["handle"]):
                try:
                    os.unlink(store.packet_path(name, evicted["handle"]))
                except FileNotFoundError:
                    pass
        if existing is not None and _HANDLE.fullmatch(str(existing.get("handle"))):
            try:
                os.unlink(store.packet_path(name, existing["handle"]))
            except FileNotFoundError:
                pass
        entries = [*kept, entry]
        store.save_entries(name, entries)
        authorization = Authorization(envelope, policy, repository, work_item)
        try:
            outcome = ask(workspace, question, query, authorization, revision=revision, now=now)
        except Refusal as refusal:
            entry["failure_reason"] = refusal.reason
            store.save_entries(name, entries)
            raise
        if outcome.packet is None:
            entry["failure_reason"] = outcome.summary.get("reason", "unavailable")
            store.save_entries(name, entries)
            raise Refusal(outcome.summary.get("detail", "No packet."), reason=entry["failure_reason"])
        data = dumps_canonical(outcome.packet)
        write_private_atomic(store.packet_path(name, handle), data)
        entry["reference"] = {"path": store.packet_path(name, handle).name, "sha256": hashlib.sha256(data).hexdigest()}
        store.save_entries(name, entries)
        loaded = _load(store, name, entry, policy, repository, work_item, recipient, envelope, revision, now)
        return _context_summary(loaded, handle, reused=False)


def _context_summary(packet: dict[str, Any], handle: str, *, reused: bool) -> dict[str, Any]:
    return {
        "schema": CONTEXT_SUMMARY_SCHEMA, "status": "available", "kind": packet["kind"],
        "documents": len(packet["documents"]), "completeness": packet["completeness"],
        "truncated": packet["truncated"], "revision_state": "matching", "packet_handle": handle,
        "reused": reused, "usage": None,
    }


def _load(
    store: ConnectionStore, name: str, entry: dict[str, Any], policy: Policy, repository: str, work_item: str,
    recipient: str, envelope: dict[str, Any], revision: str, now: datetime,
) -> dict[str, Any]:
    """Every check the delivery contract makes before evidence may be read."""
    reference = entry.get("reference")
    if reference is None:
        reason = entry.get("failure_reason")
        raise ConnectionRefusal(
            f"The packet did not complete ({reason}); use an explicit refresh." if reason
            else "The packet did not complete; use an explicit refresh."
        )
    if not isinstance(reference, dict) or reference.get("path") != store.packet_path(name, entry["handle"]).name:
        raise ConnectionRefusal("The packet reference is not safe.")
    try:
        data = read_private_bytes(store.packet_path(name, entry["handle"]), policy.limits["max_packet_bytes"])
    except FileNotFoundError:
        raise ConnectionRefusal("The packet is missing or was invalidated.") from None
    if hashlib.sha256(data).hexdigest() != reference.get("sha256"):
        raise ConnectionRefusal("The packet does not match its recorded digest.")
    packet = loads_strict(data, "The packet")
    live = parse_envelope(envelope, now)
    if not isinstance(packet, dict) or not isinstance(packet.get("binding"), dict):
        raise ConnectionRefusal("The packet no longer matches its authorization: schema.")
    binding = packet["binding"]
    checks = [
        (packet.get("schema") == PACKET_SCHEMA, "schema"),
        (packet.get("provider") == live.provider and packet.get("kind") == live.kind, "provider or kind"),
        (binding.get("connection") == live.connection, "connection"),
        (binding.get("generation") == live.generation, "generation (the graph was rebuilt)"),
        (binding.get("identity") == live.identity, "identity"),
        (binding.get("repository") == repository and binding.get("work_item") == work_item, "request"),
        (binding.get("policy_version") == policy.policy_version, "policy version"),
        (
            recipient in binding.get("recipients", [])
            and set(binding.get("recipients", [])) <= set(live.recipients),
            "recipient",
        ),
        (packet.get("source_revision") == revision, "revision (the work moved to another commit)"),
    ]
    for ok, what in checks:
        if not ok:
            message = f"The packet no longer matches its authorization: {what}."
            if what.startswith("generation"):
                raise Refusal(message, reason="superseded")
            raise ConnectionRefusal(message)
    retrieved = timestamp(packet.get("retrieved_at"), "The packet's retrieved_at", ConnectionRefusal)
    expires = timestamp(binding.get("expires_at"), "The packet's expires_at", ConnectionRefusal)
    if not retrieved <= now < expires or (now - retrieved).total_seconds() > policy.max_age_seconds \
            or expires > live.expires_at:
        raise ConnectionRefusal("The packet has expired.")
    if packet.get("truncated") is True and packet.get("completeness") == "complete":
        raise ConnectionRefusal("The packet claims to be complete and truncated at once.")
    _check_documents(packet, policy)
    return packet


OMISSIONS = frozenset({
    "provider_partial", "provider_has_more", "unresolved_entities", "provider_warning",
    "provider_compaction", "text_limit", "document_limit", "source_title_unavailable",
    "missing_citation", "unsupported_record_kind",
})


def _check_documents(packet: dict[str, Any], policy: Policy) -> None:
    """The contract's document rules and the policy's budgets, before anyone reads the text."""
    omissions, documents = packet.get("omissions", []), packet.get("documents")
    if not isinstance(omissions, list) or len(omissions) > 10 or not set(omissions) <= OMISSIONS:
        raise ConnectionRefusal("The packet's omissions are not in the contract's vocabulary.")
    if not isinstance(documents, list) or len(documents) > min(16, policy.max_documents):
        raise ConnectionRefusal("The packet carries more documents than the policy allows.")
    total = 0
    for document in documents:
        text = document.get("text") if isinstance(document, dict) else None
        citations = document.get("citations") if isinstance(document, dict) else None
        if not isinstance(text, str) or not text.strip() or document.get("confidence") not in (
            "extracted", "inferred", "unknown"
        ) or not isinstance(citations, list) or not 1 <= len(citations) <= 10:
            raise ConnectionRefusal("A packet document breaks the contract.")
        size = len(text.encode("utf-8"))
        total += size
        if size > policy.limits["max_document_bytes"] or total > policy.limits["max_text_bytes"]:
            raise ConnectionRefusal("The packet's text exceeds the policy's budget.")


def entry_required(store: ConnectionStore, name: str, handle: str) -> bool:
    """Whether the policy a packet was prepared under requires it (unknown: required)."""
    try:
        entries = store.entries(name)
    except (Refusal, OSError):
        return True
    entry = next((e for e in entries if e.get("handle") == handle), None)
    policy = (entry or {}).get("request", {}).get("policy", {})
    return policy.get("required", True) is not False


def load_authorized(
    store: ConnectionStore, name: str, handle: str, recipient: str, revision: str, now: datetime | None = None,
) -> dict[str, Any]:
    """Re-authorize from current state and return the packet a recipient may read."""
    if not _HANDLE.fullmatch(handle):
        raise InvalidInput("A packet handle is 32 lowercase hex characters.")
    with store.lock(name):
        now = now or datetime.now(UTC)
        envelope, _ = authorize(store, name, revision, now)
        if recipient not in envelope["recipients"]:
            raise ConnectionRefusal("That recipient is not approved for this connection.")
        entry = next((e for e in store.entries(name) if e.get("handle") == handle), None)
        if entry is None:
            raise ConnectionRefusal("The packet is missing or was invalidated.")
        request = entry.get("request", {})
        policy = parse_policy(request.get("policy"))
        return _load(
            store, name, entry, policy, request.get("repository"), request.get("work_item"), recipient, envelope,
            revision, now,
        )


def render_evidence(packet: dict[str, Any]) -> bytes:
    """What a recipient reads: the evidence fields only (no connection, root, store path or
    binding), canonical, so every approved recipient receives the same bytes."""
    return dumps_canonical({"schema": EVIDENCE_SCHEMA, **{k: packet[k] for k in EVIDENCE_FIELDS}})


def guided_recipient(recipient: str) -> str:
    host, _, role = recipient.partition(":")
    if host not in GUIDED_HOSTS or role not in GUIDED_ROLES:
        raise ConnectionRefusal(
            "Guided sessions deliver only to claude, codex or devin as orchestrator, builder or reviewer."
        )
    return recipient
