"""The generation manifest (``code_mower.contextGraphBuild.v1``): what a generation is bound to.

Read strictly, because every later answer trusts it: the exact key set, full object names, UTC
timestamps, digests and the budgets the lifecycle enforces. Written canonically, so the bytes of a
manifest are a function of its content.
"""

from __future__ import annotations

import re

from ..base.errors import InvalidInput, Oversized
from ..base.git import MAX_TRACKED_BYTES  # the census's own limit
from ..base.jsonio import dumps_canonical, loads_strict
from ..base.records import record
from ..base.rules import (
    bounded_text,
    exact_int,
    identifier,
    is_generation_id,
    is_object_name,
    is_sha256_hex,
    timestamp,
)

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "code_mower.contextGraphBuild.v1"
MAX_MANIFEST_BYTES = 262_144
MAX_ARTIFACT_BYTES = 268_435_456
MAX_COUNT = 50_000
REQUIRED_OPTIONS = ("--code-only", "--no-cluster")
REFUSED_OPTIONS = ("--cluster", "--no-code-only")
MAX_OPTIONS = 16
PINNED_DISTRIBUTION = "graphifyy"
PINNED_VERSION = "0.9.58"
PINNED_WHEEL_SHA256 = "e239803288e91c723d6e30540860bd6d5a1dc3f0914b9fc1104b0233e98aaeb8"
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+!-]{0,63}")
_REQUIRED_KEYS = frozenset({
    "schema", "generation", "commit", "tree", "provider", "built_at", "tracked_files",
    "tracked_bytes", "census_digest", "graph_digest", "graph_bytes", "completeness",
    "skipped_paths", "indexed_files",
})
_OPTIONAL_KEYS = frozenset({"unsupported_inputs"})
_PIN_KEYS = frozenset({"distribution", "version", "wheel_sha256", "options"})


@record
class ProviderPin:
    distribution: str
    version: str
    wheel_sha256: str
    options: tuple[str, ...]

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"

    def to_json(self) -> dict[str, Any]:
        return {
            "distribution": self.distribution,
            "version": self.version,
            "wheel_sha256": self.wheel_sha256,
            "options": list(self.options),
        }


PINNED_PROVIDER = ProviderPin(
    PINNED_DISTRIBUTION, PINNED_VERSION, PINNED_WHEEL_SHA256, REQUIRED_OPTIONS
)



def normalise_options(raw: Any) -> tuple[str, ...]:
    """Required flags first, exactly once; the rest kept in order; refused flags refused."""
    if raw is None:
        raw = []
    if not isinstance(raw, list) or len(raw) > MAX_OPTIONS:
        raise InvalidInput(f"Provider options must be a list of at most {MAX_OPTIONS} strings.")
    rest: list[str] = []
    for option in raw:
        bounded_text(option, "A provider option", 128)
        name = option.split("=", 1)[0].strip()
        if name in REFUSED_OPTIONS:
            raise InvalidInput("Provider options may not turn clustering on or code-only off.")
        if name in REQUIRED_OPTIONS:
            if "=" in option:
                raise InvalidInput("A required provider flag may not be given a value.")
            continue
        rest.append(option)
    options = (*REQUIRED_OPTIONS, *rest)
    if len(options) > MAX_OPTIONS:
        raise InvalidInput(f"Provider options exceed {MAX_OPTIONS} after normalisation.")
    return options


def parse_pin(value: Any) -> ProviderPin:
    if not isinstance(value, dict) or not set(value) <= _PIN_KEYS or not {
        "distribution", "version", "wheel_sha256"
    } <= set(value):
        raise InvalidInput("The provider pin must hold exactly distribution, version, wheel_sha256 and options.")
    distribution = identifier(value["distribution"], "The provider distribution")
    version = value["version"]
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise InvalidInput("The provider version must be one exact release.")
    if not is_sha256_hex(value["wheel_sha256"]):
        raise InvalidInput("The provider wheel_sha256 must be 64 lowercase hex characters.")
    return ProviderPin(distribution, version, value["wheel_sha256"], normalise_options(value.get("options")))


@record
class Manifest:
    generation: str
    commit: str
    tree: str
    provider: ProviderPin
    built_at: str
    tracked_files: int
    tracked_bytes: int
    census_digest: str
    graph_digest: str
    graph_bytes: int
    completeness: str
    skipped_paths: int
    indexed_files: int
    unsupported_inputs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "generation": self.generation,
            "commit": self.commit,
            "tree": self.tree,
            "provider": self.provider.to_json(),
            "built_at": self.built_at,
            "tracked_files": self.tracked_files,
            "tracked_bytes": self.tracked_bytes,
            "census_digest": self.census_digest,
            "graph_digest": self.graph_digest,
            "graph_bytes": self.graph_bytes,
            "completeness": self.completeness,
            "skipped_paths": self.skipped_paths,
            "indexed_files": self.indexed_files,
            "unsupported_inputs": self.unsupported_inputs,
        }

    def serialise(self) -> bytes:
        data = dumps_canonical(self.to_json())
        if len(data) > MAX_MANIFEST_BYTES:
            raise Oversized("The generation manifest exceeds its size budget.")
        if parse_manifest(data, expected_generation=self.generation) != self:
            raise InvalidInput("The generation manifest does not round-trip through its validator.")
        return data


def parse_manifest(data: bytes, *, expected_generation: str | None = None) -> Manifest:
    if len(data) > MAX_MANIFEST_BYTES:
        raise Oversized("The generation manifest exceeds its size budget.")
    value = loads_strict(data, "The generation manifest")
    if not isinstance(value, dict):
        raise InvalidInput("The generation manifest must be a JSON object.")
    keys = set(value)
    if not _REQUIRED_KEYS <= keys or not keys <= _REQUIRED_KEYS | _OPTIONAL_KEYS:
        raise InvalidInput("The generation manifest does not have exactly the expected keys.")
    if value["schema"] != SCHEMA:
        raise InvalidInput("The generation manifest has an unknown schema.")
    generation = value["generation"]
    if not is_generation_id(generation):
        raise InvalidInput("The manifest's generation must be 32 lowercase hex characters.")
    if expected_generation is not None and generation != expected_generation:
        raise InvalidInput("The manifest names a different generation than its directory.")
    for key in ("commit", "tree"):
        if not is_object_name(value[key]):
            raise InvalidInput(f"The manifest's {key} must be a full object name.")
    for key in ("census_digest", "graph_digest"):
        if not is_sha256_hex(value[key]):
            raise InvalidInput(f"The manifest's {key} must be 64 lowercase hex characters.")
    built_at = value["built_at"]
    timestamp(built_at, "The manifest's built_at")
    if value["completeness"] not in ("complete", "partial"):
        raise InvalidInput("The manifest's completeness must be complete or partial.")
    tracked_files = exact_int(value["tracked_files"], "tracked_files", 0, MAX_COUNT)
    return Manifest(
        generation=generation,
        commit=value["commit"],
        tree=value["tree"],
        provider=parse_pin(value["provider"]),
        built_at=built_at,
        tracked_files=tracked_files,
        tracked_bytes=exact_int(value["tracked_bytes"], "tracked_bytes", 0, MAX_TRACKED_BYTES),
        census_digest=value["census_digest"],
        graph_digest=value["graph_digest"],
        graph_bytes=exact_int(value["graph_bytes"], "graph_bytes", 0, MAX_ARTIFACT_BYTES),
        completeness=value["completeness"],
        skipped_paths=exact_int(value["skipped_paths"], "skipped_paths", 0, MAX_COUNT),
        indexed_files=exact_int(value["indexed_files"], "indexed_files", 0, MAX_COUNT),
        unsupported_inputs=exact_int(
            value.get("unsupported_inputs", 0), "unsupported_inputs", 0, MAX_COUNT
        ),
    )
