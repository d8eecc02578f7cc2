"""Refusals: the one exception family every expected failure travels in.

Each refusal carries a stable ``reason`` code a caller can branch on and one human sentence that
names no local path (but the state root and connection file an agent surface read, when it found
no connection or no graph there: the operator's own configuration, which is what to fix) and
echoes no indexed content, so the CLI can print it verbatim and exit
non-zero without a traceback.
"""

from __future__ import annotations

from .printable import printable
from .records import record


@record
class Remedy:
    """What to do about one reason: the words a next action and a person read, and the command.

    ``why`` is the reason in a few words (a next action's ``why``); ``text`` the one sentence a
    person reads (a status's ``next_action``, a query's advice); ``command`` the shell command
    that does it, where one does; ``tool`` and ``arguments`` the MCP tool call that does the same,
    where one does. An upper-case word of a command or an argument (``TARGET``, ``PATH``,
    ``FLEET``, ``CONNECTION``, ``RECIPIENT``, ``STATE``) is a placeholder the caller fills when it knows the value
    (``base/envelope.py``); a tool call with a placeholder left is never offered."""

    why: str
    text: str
    command: str | None = None
    tool: str | None = None
    arguments: dict[str, object] | None = None


_REBUILD = "Remove and rebuild the graph: cm-graph remove && cm-graph build."
_AGAIN = "Run the command again."

# Every reason code a refusal or an unavailable answer can carry, each with its remedy: one closed
# table, which tests/base/test_vocabulary.py holds equal to the codes the source uses (docs/cli.md
# explains them). A remedy more precise for one state (no work tree, a revision git cannot
# resolve, one fleet member's checkout) overrides its row where that state is judged.
REMEDIES: dict[str, Remedy] = {
    # the graph's state (generation/status.py STATES; status says a graph found ``invalid`` is rebuilt)
    "absent": Remedy("no graph is built for this checkout", "Build the graph: cm-graph build.", "cm-graph build"),
    "invalid": Remedy("an input breaks its contract", "Correct what the sentence names, then run the command again."),
    "oversized": Remedy("the graph is over its size budget", _REBUILD, "cm-graph remove && cm-graph build"),
    "corrupt": Remedy("the stored graph no longer matches its digests", _REBUILD, "cm-graph remove && cm-graph build"),
    "stale": Remedy("the graph is not bound to HEAD", "Refresh the graph for this revision: cm-graph refresh.",
                    "cm-graph refresh"),
    "partial": Remedy("the provider did not cover every code input",
                      "See each uncovered input and its next action (cm-graph status --json, key coverage): fix "
                      "the file in a new commit or leave it out with --exclude, then cm-graph refresh.",
                      "cm-graph status --json"),
    # the index and the reader
    "unreadable": Remedy("the index cannot be read", "Rebuild the index: cm-graph index --rebuild.",
                         "cm-graph index --rebuild"),
    "reader_incompatible": Remedy("this reader was not reviewed against the generation's provider",
                                  "Refresh the graph with the pinned provider (cm-graph refresh), or install the "
                                  "cm-graph release that reads it.", "cm-graph refresh"),
    "superseded": Remedy("the graph was rebuilt meanwhile",
                         "The graph was rebuilt meanwhile; ask again (cm-graph status names the new generation).",
                         "cm-graph status", "graph_status", {}),
    "index_missing": Remedy("the current generation has no index yet",
                            "Build the index once: cm-graph index (then ask again; no restart needed).",
                            "cm-graph index"),
    # the question and the packet
    "bad_revision": Remedy("git cannot resolve the ref, commit or range the diff names",
                           "Name a revision git resolves in this checkout (git rev-parse --verify REF), or a range "
                           "A..B of two."),
    "unresolved": Remedy("the target names no symbol or path in the graph",
                         "Name a symbol as the provider labels it (cm-graph symbols PATH lists a file's), or a "
                         "repository-relative path.", "cm-graph symbols PATH"),
    "uncitable": Remedy("nothing the answer reached could be cited",
                        "Nothing in the graph could be cited for this target; see every relationship it has "
                        "(cm-graph ask symbol TARGET) or ask another question.", "cm-graph ask symbol TARGET",
                        "ask", {"question": "symbol", "target": "TARGET"}),
    "unauthorized": Remedy("the connection does not authorize this",
                           "Check the connection (connected, recipient and repository approved) and that the work "
                           "is in the checkout the graph was built for: cm-graph connection-status --connection "
                           "CONNECTION.", "cm-graph connection-status --connection CONNECTION"),
    "unsafe_destination": Remedy("the output path names something that must not be replaced",
                                 "Name a regular file, or a path that does not exist yet."),
    "disconnected": Remedy("the connection is disconnected",
                           "Connect it again: cm-graph connect --connection CONNECTION.",
                           "cm-graph connect --connection CONNECTION"),
    "budget_too_small": Remedy("the answer's fixed part alone passes the character budget",
                               "Raise the character budget (--max-chars, or max_chars)."),
    "cursor_stale": Remedy("the answer the cursor pages was replaced by a refresh",
                           "Ask the question again without --cursor (or cursor) and page the new answer."),
    "cursor_mismatch": Remedy("the cursor pages another answer",
                              "Pass the cursor with the intent and target of the answer whose next action named it."),
    # builds and the provider
    "busy": Remedy("another process holds the lock", "Another build or server holds it; try again once it is done "
                   "(cm-graph status).", "cm-graph status", "graph_status", {}),
    "current": Remedy("the graph is already current for the revision",
                      "Nothing to build; cm-graph refresh builds anyway.", "cm-graph refresh"),
    "provider": Remedy("the pinned provider is missing, unverified or failed",
                       "Install the pinned provider (pip install 'cm-graph[provider]'), then check it: "
                       "cm-graph doctor.",
                       "cm-graph doctor"),
    # recording the project's own suite (cm-graph tests record: provider/suiterun.py)
    "no_pytest": Remedy("the chosen interpreter cannot import pytest",
                        "Name an interpreter that has pytest with --python PATH (the project's venv), or install "
                        "pytest in it."),
    "no_containment": Remedy("no sandbox without network can be made here",
                             "Install bubblewrap (/usr/bin/bwrap) with user namespaces allowed, then check it: "
                             "cm-graph doctor.", "cm-graph doctor"),
    "suite_crashed": Remedy("the test suite did not run to its end",
                            "Run the same pytest arguments in the project yourself to see why (a collection "
                            "error, a usage error, no test collected), then record again."),
    "suite_timeout": Remedy("the test suite ran past --timeout",
                            "Record a part of the suite (cm-graph tests record -- tests/unit) or raise --timeout."),
    "needs_attention": Remedy("something was left that needs attention", "See what needs attention: cm-graph doctor.",
                              "cm-graph doctor"),
    "no_connection": Remedy("the server's state root has no connection of that name",
                            "Connect the checkout in the state root the server reads (cm-graph connect --connection "
                            "CONNECTION --repository OWNER/REPO --recipient RECIPIENT --state-dir STATE), or start "
                            "the server on the root that has it: --state-dir DIR, or an env block with CM_GRAPH_HOME "
                            "in the host's MCP config (cm-graph agents init writes one).",
                            "cm-graph connect --connection CONNECTION --repository OWNER/REPO --recipient RECIPIENT "
                            "--state-dir STATE"),
    "not_configured": Remedy("nothing of that name is configured",
                             "Configure it first: cm-graph connect for a connection, cm-graph fleet add for a fleet.",
                             "cm-graph fleet list"),
    # the fleet: a member's judgement and doctor --fleet verdicts (fleet/judgement.py, doctor.py),
    # a fleet with no members (fleet/usages.py)
    "checkout_missing": Remedy("the member's checkout is gone",
                               "Restore the checkout, or drop it with `cm-graph fleet remove`.",
                               "cm-graph fleet remove FLEET PATH"),
    "bound_commit_missing": Remedy("the member's bound commit is not in its clone",
                                   "Fetch the bound commit (git fetch --unshallow), or refresh the member's graph.",
                                   "cm-graph refresh --repo-path PATH"),
    "diverged": Remedy("the member's HEAD left the bound commit's history",
                       "Refresh the member's graph: cm-graph refresh --repo-path PATH.",
                       "cm-graph refresh --repo-path PATH"),
    "unknown": Remedy("git could not answer for the member",
                      "Make git runnable for this checkout (on PATH, a readable repository); run the doctor again.",
                      "cm-graph doctor --fleet FLEET", "graph_status", {"fleet": "FLEET"}),
    "no_members": Remedy("the fleet has no members",
                         "Add a member: cm-graph fleet add FLEET --repo-path PATH (or --connection NAME), then ask "
                         "again.",
                         "cm-graph fleet add FLEET --repo-path PATH"),
    # the agent surfaces (surfaces/): a fault no refusal explains, a request refused at the door
    "internal": Remedy("cm-graph failed while answering", "See the server's log (its stderr) and report it."),
    "forbidden_host": Remedy("the Host header is not the server's", "Send the request to the loopback address "
                             "and port the server is bound to."),
    "forbidden_origin": Remedy("the Origin is not loopback", "Call from a loopback page, or without an Origin header."),
    "unauthenticated": Remedy("the bearer token is missing or wrong",
                              "Send the server's token: Authorization: Bearer $(cat <state>/run/token)."),
    "not_found": Remedy("no such tool or route", "See the tools in tools/list, or the routes in /openapi.json."),
    "too_large": Remedy("the request body is over 64 KiB", "Send a body of at most 64 KiB."),
    "method_not_allowed": Remedy("the route takes another HTTP method",
                                 "Send the method the Allow header names (see /openapi.json)."),
    "socket_path_too_long": Remedy("the Unix socket path is longer than the platform takes",
                                   "Choose a shorter path with --socket, or a shorter state root (--state-dir)."),
    "extra_missing": Remedy("the optional extra mcp is not installed", "Install it: pip install 'cm-graph[mcp]'.",
                            "pip install 'cm-graph[mcp]'"),
    "bad_token_file": Remedy("the bearer token file is not one cm-graph made",
                             "Delete the token file and start cm-graph mcp --http --port N again, which makes a "
                             "new one."),
    # writing a checkout's agent instructions and host configs (agents/)
    "linked_path": Remedy("a file cm-graph agents would write is a symlink, or under one",
                          "Replace the symlink with a regular file or directory (or delete it), then run the "
                          "command again; cm-graph never writes through a link in a checkout."),
    "unparsable_config": Remedy("a host's config file is not valid JSON or TOML, or not in a shape cm-graph can "
                                "add to", "Fix the file the sentence names (cm-graph agents never overwrites a file "
                                "it cannot parse), then run the command again."),
    # feedback and the eval corpus (feedback/)
    "not_reproduced": Remedy("the answer id did not come back", "Ask again (the graph changed, or an argument differs "
                             "from the original call) and report the new answer's ids."),
    "eval_failed": Remedy("an eval case regressed or was not reproduced",
                          "See the regressions: cm-graph eval run --json.",
                          "cm-graph eval run --json"),
    "graded_an_earlier_generation": Remedy("the eval corpus was last graded against an earlier generation",
                                           "Grade it against this one: cm-graph eval run --json.",
                                           "cm-graph eval run --json"),
    # the command line itself (cli/): a usage error (exit 2), an interrupt (exit 130)
    "usage": Remedy("the command line is not one cm-graph takes", "See the command's options: cm-graph --help.",
                    "cm-graph --help"),
    "interrupted": Remedy("the command was interrupted", _AGAIN),
    # faults of the machine (base/refusals.py)
    "read_only": Remedy("the file system is read-only",
                        "Point --state-dir (or CM_GRAPH_HOME) at a writable directory."),
    "disk_full": Remedy("the disk or quota is full", "Free some space, then run the command again."),
    "permission_denied": Remedy("permission was denied", "Give this user access, or point --state-dir at a directory "
                                "it owns."),
    "not_a_file": Remedy("a directory stands where a file belongs", "Name a regular file."),
    "not_a_directory": Remedy("a file stands where a directory belongs", "Name a directory."),
    "missing": Remedy("a file or directory does not exist", "Check the path, then run the command again."),
    "unsafe": Remedy("a symlink stands where private state must be real",
                     "Replace the symlink with a real owner-only file or directory."),
    "io": Remedy("the file system failed the operation", "Check the disk, then run the command again."),
}
REASONS = frozenset(REMEDIES)

# The one exit code of each outcome, the same on every command (docs/cli.md's table is this one:
# tests/cli/test_exit_codes.py holds the two equal). An answer that names nothing or several
# (``unresolved``, ``ambiguous``, a fleet's ``not_found``) exits like a refusal, whichever command
# asked: the answer is printed, the reason on stderr.
EXIT_CODES: dict[str, int] = {
    "answered": 0,  # what was asked was done (also an optional_unavailable: work continues)
    "refused": 1,  # a refusal of any reason above, a required_unavailable, a status that is not usable
    "unresolved": 1,  # no such name, or several without a pick: ask, context, symbols, fleet usages
    "usage": 2,  # the command line is not one cm-graph takes
    "warnings": 3,  # doctor --fleet: warnings only, no failure
    "interrupted": 130,  # Ctrl-C
}
# The answer statuses that are "no such name" (or several), on any surface that prints one.
UNRESOLVED_STATUSES = frozenset({"unresolved", "ambiguous", "not_found"})


def remedy(reason: str) -> Remedy:
    """The remedy of ``reason`` (every reason has one: tests/base/test_vocabulary.py)."""
    return REMEDIES[reason]


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


class BadRevision(InvalidInput):
    """A ref, commit or range a diff names that git cannot resolve (``cm-graph changes``)."""

    reason = "bad_revision"


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
    """The state root (or a private directory under it) is not an owner-only real directory: no
    build would be accepted there, so the remedy is the directory, not a rebuild. One the user
    made themselves is named with its ``chmod 700`` (``base/privfs.py``)."""


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


class NoConnection(ConnectionRefusal):
    """The state root a server reads has no connection of the name it serves: most often a host
    that started the server without the operator's ``CM_GRAPH_HOME``, so the sentence names the
    root and the file it read."""

    reason = "no_connection"


class LinkedPath(Refusal):
    """A path ``cm-graph agents`` would read or write in a checkout is a symlink (or lies under
    one): a repository may plant ``AGENTS.md -> ~/.bashrc``, so nothing is written through it."""

    reason = "linked_path"


class UnparsableConfig(Refusal):
    """A host's config file is not valid JSON or TOML, or its servers are not a table cm-graph can
    add to: it is refused and left as it is, never overwritten."""

    reason = "unparsable_config"


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


class SuiteRefusal(Refusal):
    """``cm-graph tests record`` could not run the project's suite contained, or the suite did not
    run to its end (``reason``: no_pytest, no_containment, suite_timeout; suite_crashed by default)."""

    reason = "suite_crashed"


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
