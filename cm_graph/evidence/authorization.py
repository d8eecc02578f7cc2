"""The packet contract's inputs: policy, connection envelope and the authorization file.

All three are validated exactly (key sets, bounded text, identifiers, limits with defaults and
ceilings, timestamps with a timezone) because the packet copies them into its binding, and a
recipient trusts the binding to say who may read the evidence and until when.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..base.errors import InvalidInput, Unauthorized
from ..base.jsonio import loads_strict
from ..base.records import record
from ..base.rules import bounded_text, identifier, timestamp

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

POLICY_SCHEMA = "code_mower.contextPolicy.v1"
ENVELOPE_SCHEMA = "code_mower.contextConnection.v1"
MAX_AUTHORIZATION_BYTES = 65_536
AUTHORIZATION_SECONDS = 3600
POLICY_LIMITS: dict[str, tuple[int, int]] = {  # name: (default, ceiling)
    "max_packet_bytes": (262_144, 262_144),
    "max_documents": (5, 50),
    "max_document_bytes": (20_000, 80_000),
    "max_text_bytes": (80_000, 160_000),
    "max_requests": (3, 20),
    "max_pages": (2, 20),
    "timeout_seconds": (30, 120),
    "max_age_seconds": (3600, 86_400),
}
_ENVELOPE_KEYS = frozenset({
    "schema", "capability_version", "connection", "provider", "kind", "generation", "state",
    "identity", "repositories", "recipients", "expires_at", "capabilities",
})
_CAPABILITIES = frozenset({"search", "memory", "revision_binding"})


def _exact(
    value: Any, required: frozenset[str] | set[str], optional: frozenset[str] | set[str], what: str
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object.")
    keys = set(value)
    if not set(required) <= keys or not keys <= set(required) | set(optional):
        raise InvalidInput(f"{what} does not have exactly the expected keys.")
    return value


def _limit(value: Any, name: str, ceiling: int) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 8:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= ceiling:
        raise InvalidInput(f"The policy's {name} must be an integer from 1 to {ceiling}.")
    return value


def string_list(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= 32:
        raise InvalidInput(f"{what} must be a list of 1 to 32 entries.")
    items = tuple(bounded_text(item, what) for item in value)
    if len(set(items)) != len(items):
        raise InvalidInput(f"{what} repeats an entry.")
    return items


@record
class Policy:
    connection: str
    policy_version: str
    required: bool
    limits: dict[str, int]

    @property
    def max_documents(self) -> int:
        return self.limits["max_documents"]

    @property
    def max_age_seconds(self) -> int:
        return self.limits["max_age_seconds"]


def parse_policy(value: Any) -> Policy:
    data = _exact(value, {"schema", "connection", "policy_version", "required"}, set(POLICY_LIMITS), "The policy")
    if data["schema"] != POLICY_SCHEMA:
        raise InvalidInput(f"The policy's schema must be {POLICY_SCHEMA}.")
    if not isinstance(data["required"], bool):
        raise InvalidInput("The policy's required must be true or false.")
    limits = {
        name: _limit(data[name], name, ceiling) if name in data else default
        for name, (default, ceiling) in POLICY_LIMITS.items()
    }
    return Policy(
        connection=identifier(data["connection"], "The policy's connection"),
        policy_version=identifier(data["policy_version"], "The policy's policy_version"),
        required=data["required"],
        limits=limits,
    )


@record
class Envelope:
    raw: dict[str, Any]
    connection: str
    provider: str
    kind: str
    generation: str
    identity: dict[str, Any]
    repositories: tuple[str, ...]
    recipients: tuple[str, ...]
    expires_at: datetime


def parse_envelope(value: Any, now: datetime) -> Envelope:
    data = _exact(value, _ENVELOPE_KEYS, set(), "The connection envelope")
    if data["schema"] != ENVELOPE_SCHEMA:
        raise InvalidInput(f"The connection envelope's schema must be {ENVELOPE_SCHEMA}.")
    if type(data["capability_version"]) is not int or data["capability_version"] != 1:
        raise InvalidInput("The connection envelope's capability_version must be 1.")
    kind = data["kind"]
    if kind not in ("repository", "organization"):
        raise InvalidInput("The connection envelope's kind must be repository or organization.")
    if data["state"] != "verified":
        raise InvalidInput("The connection envelope is not verified.")
    if kind == "repository":
        identity = _exact(data["identity"], {"repository_root"}, set(), "The envelope identity")
        root = bounded_text(identity["repository_root"], "The envelope's repository_root", 4096)
        if not root.startswith("/"):
            raise InvalidInput("The envelope's repository_root must be an absolute path.")
    else:
        identity = _exact(data["identity"], {"principal", "workspace", "endpoint"}, set(), "The envelope identity")
        for key in ("principal", "workspace", "endpoint"):
            bounded_text(identity[key], f"The envelope's {key}", 4096)
    capabilities = _exact(data["capabilities"], _CAPABILITIES, set(), "The envelope capabilities")
    if any(not isinstance(capabilities[key], bool) for key in _CAPABILITIES):
        raise InvalidInput("The envelope capabilities must be true or false.")
    expires_at = timestamp(data["expires_at"], "The envelope's expires_at")
    if expires_at <= now:
        raise InvalidInput("The connection envelope has expired.")
    return Envelope(
        raw=data,
        connection=identifier(data["connection"], "The envelope's connection"),
        provider=identifier(data["provider"], "The envelope's provider"),
        kind=kind,
        generation=bounded_text(data["generation"], "The envelope's generation"),
        identity=dict(identity),
        repositories=string_list(data["repositories"], "The envelope's repositories"),
        recipients=string_list(data["recipients"], "The envelope's recipients"),
        expires_at=expires_at,
    )


@record
class Authorization:
    """What a query is allowed to mint: for whom, under which policy, about which work."""

    envelope_json: dict[str, Any]
    policy: Policy
    repository: str
    work_item: str


def parse_authorization(data: bytes) -> Authorization:
    """An authorization file: exactly connection, policy, repository and work_item."""
    if len(data) > MAX_AUTHORIZATION_BYTES:
        raise InvalidInput("The authorization file exceeds 64 KiB.")
    value = loads_strict(data, "The authorization file")
    fields = _exact(value, {"connection", "policy", "repository", "work_item"}, set(), "The authorization file")
    if not isinstance(fields["connection"], dict):
        raise InvalidInput("The authorization file's connection must be a JSON object.")
    authorization = Authorization(
        envelope_json=fields["connection"],
        policy=parse_policy(fields["policy"]),
        repository=bounded_text(fields["repository"], "The authorization's repository"),
        work_item=bounded_text(fields["work_item"], "The authorization's work_item"),
    )
    check_covered(authorization)
    return authorization


def check_covered(authorization: Authorization) -> None:
    """Refuse an authorization whose own parts disagree: the policy must be the envelope
    connection's policy and the repository one the envelope approves. The packet's binding copies
    all three, so a mismatch would mint evidence bound to a scope nobody approved; it is refused
    when the file is loaded, as an unapproved recipient is (reason ``unauthorized``)."""
    envelope = authorization.envelope_json
    if envelope.get("connection") != authorization.policy.connection:
        raise Unauthorized("The authorization's policy names a different connection than its envelope.")
    repositories = envelope.get("repositories")
    if not isinstance(repositories, list) or authorization.repository not in repositories:
        raise Unauthorized("The authorization's repository is not one its envelope approves.")


def binding_expiry(envelope: Envelope, policy: Policy, now: datetime) -> datetime:
    return min(envelope.expires_at, now + timedelta(seconds=policy.max_age_seconds))


def mint_envelope(
    *, connection: str, generation: str, repository_root: str, repositories: list[str],
    recipients: list[str], now: datetime, provider: str = "graphify",
) -> dict[str, Any]:

    """A local repository envelope for one generation, valid for an hour."""
    return {
        "schema": ENVELOPE_SCHEMA,
        "capability_version": 1,
        "connection": connection,
        "provider": provider,
        "kind": "repository",
        "generation": generation,
        "state": "verified",
        "identity": {"repository_root": repository_root},
        "repositories": repositories,
        "recipients": recipients,
        "expires_at": (now + timedelta(seconds=AUTHORIZATION_SECONDS)).isoformat(),
        "capabilities": {"search": True, "memory": False, "revision_binding": True},
    }
