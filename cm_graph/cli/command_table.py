"""The command table: every ``cm-graph`` command and every ``query`` option, once, without typer.

Two readers need the same facts and must not drift apart. The fast entry (``entry.py``) answers
``cm-graph --help`` and parses well-formed ``query`` argument lists from this table alone, because
loading typer costs many times the interpreter's start; the typer application (``app.py``)
registers each command from it, with the same summary as its help. So a command's name, summary
and home are written here and nowhere else, and adding a command group is one row here plus its
module under ``cli/``.
"""

from __future__ import annotations

from ..base.records import record

SUMMARY = "Offline, bounded questions over a per-generation SQLite index of a Graphify code graph."


@record
class Command:
    """One top-level command: ``attribute`` of ``cli/<module>.py`` is its function, or the
    ``typer.Typer`` of a group of subcommands."""

    name: str
    summary: str
    module: str
    attribute: str


# In the order ``cm-graph --help`` lists them (typer lists a group of subcommands after the
# single commands, so groups stay last).
COMMANDS: tuple[Command, ...] = (
    Command("index", "Build (or reuse) the SQLite index of the current generation and print its metadata.",
            "graph_commands", "index_command"),
    Command("build", "Run the pinned provider on REVISION, publish the generation and index it.",
            "graph_commands", "build_command"),
    Command("refresh", "Like build, but also when the graph is already current.", "graph_commands", "refresh_command"),
    Command("query", "Answer one bounded question; stdout gets metadata only, the evidence goes to --packet-out.",
            "question_commands", "query_command"),
    Command("ask", "Show an answer's relationships on the terminal, for the operator (no packet is written).",
            "question_commands", "ask_command"),
    Command("status", "Say whether the checkout's graph is usable for REVISION, and whether search is ready.",
            "graph_commands", "status_command"),
    Command("remove", "Delete this checkout's graph state: generations and indexes.",
            "graph_commands", "remove_command"),
    Command("doctor", "Check the provider install and pin, containment, state privacy, generation and index.",
            "audit_commands", "doctor_command"),
    Command("audit", "Re-derive a generation's index and compare it with the stored one, byte for byte.",
            "audit_commands", "audit_command"),
    Command("diff", "What changed in the code graph between two generations: nodes, relationships, files.",
            "audit_commands", "diff_command"),
    Command("export", "Write a canonical, sorted text dump of an index to stdout (for diff, sqlite-utils, sqlite3).",
            "audit_commands", "export_command"),
    Command("score", "Score a packet's citations against a checkout: resolution rate, revision state, gate.",
            "audit_commands", "score_command"),
    Command("connect", "Register this checkout's graph as a local connection (no credential, no network).",
            "connection_commands", "connect_command"),
    Command("connection-status", "Whether the connection could authorize evidence now; exit 0 only when it could.",
            "connection_commands", "connection_status_command"),
    Command("disconnect", "Disconnect and purge the connection's packets and outcomes.",
            "connection_commands", "disconnect_command"),
    Command("mcp", "Serve the graph to agents: MCP over stdio (default) or HTTP with its REST twin.",
            "mcp_commands", "mcp_command"),
    Command("version", "Print the installed cm-graph version.", "audit_commands", "version_command"),
    Command("changes", "Which definitions a diff touched (added, modified, deleted, renamed) and who calls them.",
            "changes_commands", "changes_command"),
    Command("symbols", "List a file's definitions (label, kind, line) from the index, by line.",
            "question_commands", "symbols_command"),
    Command("auth", "Authorization files for `cm-graph query`.", "connection_commands", "auth_app"),
    Command("session", "Guided sessions.", "connection_commands", "session_app"),
    Command("context", "Code context for an agent (how, usage, impact, tests), and evidence from connections.",
            "context_commands", "context_app"),
    Command("tests", "Observed test evidence: record what the project's own suite executes (contained, no network).",
            "tests_commands", "tests_app"),
    Command("fleet", "A named set of checkouts and cross-repository usages over them.", "fleet_commands", "fleet_app"),
    Command("feedback", "Record whether an answer saved reads; report, export or purge the local outcomes.",
            "feedback_commands", "feedback_app"),
    Command("eval", "Re-ask the eval corpus (correct answers) and grade the answers.", "feedback_commands", "eval_app"),
    Command("agents", "Tell agents to ask the graph first (AGENTS.md, CLAUDE.md) and register the MCP server per host.",
            "agents_commands", "agents_app"),
)


@record
class QueryOption:
    """One ``cm-graph query`` option. ``kind`` says how the fast parser reads its value:
    "question" (one of ``questions.QUESTION_NAMES``), "text", "path", "int" or "flag"."""

    flag: str
    parameter: str
    kind: str
    help: str


QUERY_OPTIONS: dict[str, QueryOption] = {option.flag: option for option in (
    QueryOption("--question", "question", "question", "The bounded question to ask."),
    QueryOption("--target", "target", "text", "A symbol name or a repository-relative path (once)."),
    QueryOption("--authorization", "authorization", "path",
                "JSON file: connection envelope, policy, repository, work_item."),
    QueryOption("--packet-out", "packet_out", "path", "Where to write the evidence packet (0600, atomic)."),
    QueryOption("--revision", "revision", "text", "The revision the answer must be about."),
    QueryOption("--depth", "depth", "int", "Hop limit, 1..4 (default per question)."),
    QueryOption("--node-budget", "node_budget", "int", "Relationship budget, 1..200 (default 40)."),
    QueryOption("--repo-path", "repo_path", "path", "A directory inside the checkout (default: cwd)."),
    QueryOption("--state-dir", "state_dir", "path",
                "Private state root (default: $CM_GRAPH_HOME or ~/.local/share/cm-graph)."),
    QueryOption("--show", "show", "flag", "Also render the relationships on stderr for the operator."),
    QueryOption("--json", "json_output", "flag", "Print one JSON object on stdout."),
)}
QUERY_REQUIRED = ("question", "target", "authorization")


# The question commands the fast entry also runs without typer (``entry.parse_fast``), each by its
# ``question_runs.py`` body: the positional arguments in order and the options, as
# (parameter, kind) — the kinds of ``QueryOption``, plus "texts" (one or more positional values),
# "scope" (text that is not only slashes) and "intent" (one of ``context.intents.INTENT_NAMES``:
# the subcommand's name, first). They must say what the typer command declares
# (tests/cli/test_fast_questions.py holds them equal); an argument list they do not describe goes
# to typer.
_WHERE = {"--repo-path": ("repo_path", "path"), "--state-dir": ("state_dir", "path"), "--json": ("json_output", "flag")}
_GRAPH = {"--revision": ("revision", "text"), "--allow-partial": ("allow_partial", "flag"), **_WHERE}
FAST_COMMANDS: dict[str, tuple[str, tuple[tuple[str, str], ...], dict[str, tuple[str, str]]]] = {
    "ask": ("run_ask", (("question", "question"), ("targets", "texts")), {
        "--in": ("within", "scope"), "--depth": ("depth", "int"), "--node-budget": ("node_budget", "int"), **_GRAPH}),
    "symbols": ("run_symbols", (("path", "text"),), _GRAPH),
    "status": ("run_status", (), {"--verify": ("verify", "flag"), **_GRAPH}),
    "context": ("run_context", (("intent", "intent"), ("target", "text")), {
        "--max-chars": ("max_chars", "int"), "--max-items": ("max_items", "int"), "--cursor": ("cursor", "text"),
        **_WHERE}),
}
# Options a fast command's typer twin declares that the fast entry leaves to typer: an argument
# list naming one is not described above, so it goes to typer (``context --format pytest-args``
# prints a test list, not an answer, and `--max-share` bounds that list).
TYPER_ONLY_OPTIONS: dict[str, frozenset[str]] = {"context": frozenset({"--format", "--max-share"})}
