"""Refusals: the one exception family every expected failure travels in.

Each refusal carries a stable ``reason`` code a caller can branch on and one human sentence that
names no local path and echoes no indexed content, so the CLI can print it verbatim and exit
non-zero without a traceback.
"""

from __future__ import annotations


class Refusal(Exception):
    """An expected, explained failure: a stable reason code plus one sentence."""

    reason = "invalid"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
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


class UnsafeDestination(Refusal):
    """An output path names something that must not be replaced: a device, FIFO, socket or
    directory. Only a regular file or a symlink is ever replaced."""

    reason = "unsafe_destination"


class Unauthorized(Refusal):
    """The authorization does not cover this request: a recipient, repository or connection the
    envelope does not name."""

    reason = "unauthorized"
