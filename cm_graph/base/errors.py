"""Refusals: the one exception family every expected failure travels in.

Each refusal carries a stable ``reason`` code a caller can branch on and one human sentence that
names no local path and echoes no indexed content, so the CLI can print it verbatim and exit
non-zero without a traceback.
"""

from __future__ import annotations

from .printable import printable

# Every reason code a refusal or an unavailable answer can carry: one closed list, which
# tests/base/test_vocabulary.py holds equal to the codes the source uses (docs/cli.md explains them).
REASONS = frozenset({
    # the graph's state (generation/status.py STATES)
    "absent", "invalid", "oversized", "corrupt", "stale", "partial",
    # the index and the reader
    "unreadable", "reader_incompatible", "superseded", "index_missing",
    # the question and the packet
    "unresolved", "uncitable", "unauthorized", "unsafe_destination", "disconnected", "budget_too_small",
    # builds and the provider
    "busy", "current", "provider", "needs_attention", "not_configured",
    # the fleet: a member's judgement and doctor --fleet verdicts (fleet/judgement.py, doctor.py),
    # a fleet with no members (fleet/usages.py)
    "checkout_missing", "bound_commit_missing", "diverged", "unknown", "no_members",
    # the agent surfaces (surfaces/): a fault no refusal explains, a request refused at the door
    "internal", "forbidden_host", "forbidden_origin", "unauthenticated", "not_found", "too_large", "extra_missing",
    "bad_token_file",
    # feedback and the eval corpus (feedback/)
    "not_reproduced", "eval_failed",
    # the command line itself (cli/): a usage error (exit 2), an interrupt (exit 130)
    "usage", "interrupted",
    # faults of the machine (base/refusals.py)
    "read_only", "disk_full", "permission_denied", "not_a_file", "not_a_directory", "missing", "unsafe", "io",
})

# The one sentence for an index SQLite cannot read, wherever it surfaces.
INDEX_DAMAGED = "The index file is damaged; run `cm-graph index --rebuild`."


class Refusal(Exception):
    """An expected, explained failure: a stable reason code plus one sentence.

    The sentence may quote what a caller typed or a repository holds (a target, a suggested
    name), and it is printed on stderr, in ``--json`` and to agents as it is: so it is made
    ``printable`` here, once, for every refusal."""

    reason = "invalid"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        message = printable(message)
        super().__init__(message)
        if reason is not None:
            self.reason = reason
        self.message = message


class InvalidInput(Refusal):
    """Something the operator handed us (a flag, a file, a manifest) breaks its contract."""

    reason = "invalid"


class Unreadable(Refusal):
    """The provider's document cannot be read under the pinned provider's contract."""

    reason = "unreadable"


class Corrupt(Refusal):
    """Stored bytes no longer match the digests or sizes recorded for them."""

    reason = "corrupt"


class Oversized(Refusal):
    """A budget was exceeded; nothing larger than the budget is ever allocated or read."""

    reason = "oversized"


class Absent(Refusal):
    """Nothing has been built or published for this checkout."""

    reason = "absent"


class Stale(Refusal):
    """The generation is bound to a different commit than the one asked about."""

    reason = "stale"


class ReaderIncompatible(Refusal):
    """The generation is well-formed, but this reader was not reviewed against its provider."""

    reason = "reader_incompatible"

    def __init__(self, message: str, *, remediation: dict[str, object]) -> None:
        super().__init__(message)
        self.remediation = remediation


class GitFailure(Refusal):
    """Git could not answer about the bound commit (not a repository, unknown revision...)."""

    reason = "invalid"


class Unsafe(Refusal):
    """Private state failed an ownership, mode, link-count or symlink check."""

    reason = "invalid"


class UnsafeStateRoot(Unsafe):
    """The state root (or its ``graph/`` directory) is not an owner-only real directory: no
    build would be accepted there, so the remedy is the directory, not a rebuild."""


class UnsafeDestination(Refusal):
    """An output path names something that must not be replaced: a device, FIFO, socket or
    directory. Only a regular file or a symlink is ever replaced."""

    reason = "unsafe_destination"


class Unauthorized(Refusal):
    """The authorization does not cover this request: a recipient, repository or connection the
    envelope does not name."""

    reason = "unauthorized"


class ConnectionRefusal(Unauthorized):
    """A connection cannot authorize this request (unknown, disconnected, or not covering it)."""

    reason = "unauthorized"


class BadTokenFile(Refusal):
    """The HTTP server's bearer token file is not one cm-graph made (its shape, mode or kind)."""

    reason = "bad_token_file"


class BuildBusy(Refusal):
    """Another build holds this checkout's lock past the wait."""

    reason = "busy"


class AlreadyCurrent(Refusal):
    """``build`` found the graph already current for the revision (``refresh`` builds anyway)."""

    reason = "current"


class ProviderRefusal(Refusal):
    """The pinned provider is missing, unverified, uncontained when containment is required, or
    failed its run."""

    reason = "provider"


class FixedRootRefusal(Refusal):
    """The provider's fixed run root cannot be made or held safely."""

    reason = "provider"


class IndexUnreadable(Refusal):
    """An index file SQLite cannot open or read as ours."""

    reason = "unreadable"


class IndexMissing(Refusal):
    """The generation has no usable index and the caller may not derive one: a question served to
    an agent must answer within its host's timeout, and a derivation can take minutes."""

    reason = "index_missing"


class Uncitable(Refusal):
    """No honest packet could be minted; ``next_action`` says what would change that."""

    reason = "uncitable"

    def __init__(self, message: str, next_action: str | None = None) -> None:
        super().__init__(message)
        self.next_action = next_action
