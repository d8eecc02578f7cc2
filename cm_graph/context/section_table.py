"""The one table of ``code_context`` sections: a section is a row, and an intent shows the rows
that name it, in table order.

A row says everything about its section in one place: the intents that show it, the primitive
it runs, its composer (``composers.py``), the sentence the prose says of it, why it is empty and
why it is unavailable, and the walk it runs (direction, the provider's relation words, depth:
``relations.py`` says why each word is followed). A new section is one row here, at the place in
the order its intents show it, plus its composer; a new intent is one row of ``intents.py`` and
its name in the rows it shows. ``used_relations`` and ``used_primitives`` are read from the rows
an answer ran, so they cannot disagree with what it did.
"""

from __future__ import annotations

from collections.abc import Iterable

from .composers import (
    DYNAMIC,
    catch_sites,
    concept_markers,
    coupled_files,
    dynamic_lines,
    fleet_usages,
    hidden_coupled_files,
    mention_lines,
    overrides,
    raise_sites,
    rationale,
    similar_by_callees,
    test_mention_lines,
    tests_reached,
    walked,
    walked_by_hop,
    walked_with_members,
)
from .intents import INTENT_NAMES
from .relations import CALLS, DEFINES, IMPACTS, INCOMING, OUTGOING, REACHES_TESTS, REFERENCES, SUBCLASSES, WalkSpec
from .resolved import RUN_ROLES, USE_ROLES
from .resolved_sections import CALL_ROLES, resolved_callers, resolved_calls, resolved_reach, resolved_tests
from .sections import Section
from .sentences import (
    CATCH_UNSEEN,
    OVERRIDE_UNSEEN,
    RAISE_UNSEEN,
    affected,
    calls_made,
    caught,
    count,
    coupled,
    executed_it,
    listing,
    marked_concepts,
    mentioned,
    named_dynamically,
    overridden,
    quotes,
    raised,
    reaching_tests,
    resolved_beyond,
    resolved_callees,
    resolved_tests_beyond,
    to_run,
    used_by,
    used_in_fleet,
)
from .testrun import TEST_DEPTH, observed_section, ranked_section

HISTORY = "run `cm-graph context history`."
NOT_RESOLVED = ("not_resolved",
                "The resolver, which reads Python, JavaScript and TypeScript files only, has no definition of it.")
# Why a resolved section of an anchor the resolver has no definition of is unavailable, by what the
# resolver made of the anchor's file (``resolved_files.status``; None: a file it does not read).
# ``{path}`` and ``{language}`` are the anchor's.
RESOLVER_SILENCE: dict[str | None, tuple[str, str]] = {
    None: (NOT_RESOLVED[0], "The resolver, which reads Python, JavaScript and TypeScript files only (no `.d.ts` "
                            "declarations), did not read {path}."),
    "resolved": ("no_definition_matched", "The resolver read {path} but none of its definitions matches the graph's "
                                          "node (path, line and name)."),
    "unparsable": ("file_unparsable", "The resolver could not parse {path} (not Python 3.11 syntax)."),
    "too_large": ("file_too_large", "{path} is over the resolver's size bound, so it was not read."),
    "failed": ("resolver_failed", "The {language} resolver failed on this commit, so {path} and every other "
                                  "{language} file has no resolved evidence; the graph's and the text's still answer."),
}
NOT_A_CLASS = ("not_a_class", "The target is no class.")

SECTIONS: tuple[Section, ...] = (
    Section("calls", ("how",), "dependency", walked_with_members, calls_made,
            empty=("no_callee_within_depth", "It calls nothing within depth {depth} in this graph; " + DYNAMIC + "."),
            walk=WalkSpec(OUTGOING, CALLS, 2)),
    Section("resolved_calls", ("how",), "resolved_references", resolved_calls, resolved_callees,
            empty=("no_resolved_call", "The resolver finds no call in it that the graph's calls lack (depth {depth})."),
            unavailable=NOT_RESOLVED, walk=WalkSpec(OUTGOING, CALLS, 1), beside=("calls",), roles=CALL_ROLES),
    Section("defines", ("how",), "symbol", walked, lambda s: f"It defines {count(s)}: {listing(s)}.",
            empty=("defines_nothing", "The graph records nothing it defines or contains."),
            walk=WalkSpec(OUTGOING, DEFINES, 1)),
    Section("rationale", ("how",), "rationale", rationale, quotes,
            empty=("no_rationale", "The provider recorded no docstring or NOTE/WHY/HACK-style comment for it.")),
    Section("concepts", ("how",), "rationale", concept_markers, marked_concepts,
            empty=("no_concept_marker", "None of its docstrings or rationale comments starts with CONCEPT:.")),
    Section("callers", ("usage",), "impact", walked, None,
            empty=("no_caller_within_depth",
                   "No caller reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
            walk=WalkSpec(INCOMING, CALLS, 1), headline=used_by),
    Section("references", ("usage",), "impact", walked, lambda s: f"Referenced by {count(s)}: {listing(s)}.",
            empty=("no_reference", "Nothing imports, references, subclasses or re-exports it in this graph."),
            walk=WalkSpec(INCOMING, REFERENCES, 1)),
    Section("resolved_callers", ("usage",), "resolved_references", resolved_callers,
            lambda s: resolved_beyond(s, "use(s) of it"),
            empty=("no_resolved_use", "The resolver binds no use of it that the graph lacks (depth {depth})."),
            unavailable=NOT_RESOLVED, walk=WalkSpec(INCOMING, CALLS + REFERENCES, 1), beside=("callers", "references"),
            roles=USE_ROLES),
    Section("callers_by_hop", ("impact",), "impact", walked_by_hop, None,
            empty=("no_caller_within_depth", "Nothing reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
            walk=WalkSpec(INCOMING, IMPACTS, 3), headline=affected),
    Section("resolved_by_hop", ("impact",), "resolved_references", resolved_reach,
            lambda s: resolved_beyond(s, "node(s) the change reaches"),
            empty=("no_resolved_reach", "Resolved references reach nothing the graph misses (depth {depth})."),
            unavailable=NOT_RESOLVED, walk=WalkSpec(INCOMING, IMPACTS, 3), beside=("callers_by_hop",), roles=USE_ROLES),
    Section("raises", ("usage", "impact"), "exception_sites", raise_sites, raised,
            empty=("no_raise_site", "No line of commit {commit} raises `{name}` by name (`raise X`, `throw new X`). "
                   + RAISE_UNSEEN),
            unavailable=NOT_A_CLASS, textual=True),
    Section("catches", ("usage", "impact"), "exception_sites", catch_sites, caught,
            empty=("no_catch_site", "No line of commit {commit} catches `{name}` by name (`except X`, "
                   "`catch (e: X)`, `instanceof X` in a catch block). " + CATCH_UNSEEN),
            unavailable=NOT_A_CLASS, textual=True),
    Section("overrides", ("usage", "impact"), "overrides", overrides, overridden,
            empty=("no_override", "No subclass within depth {depth} defines `{name}` again, by the graph's inherits "
                   "edges or the resolver's overrides. " + OVERRIDE_UNSEEN),
            unavailable=("not_a_method", "The target is no method."),
            walk=WalkSpec(INCOMING, SUBCLASSES, 4)),
    Section("mentions", ("usage", "impact"), "text_mentions", mention_lines, lambda s: mentioned(s, False),
            empty=("no_mention", "No code line of commit {commit} calls or names `{name}` outside the graph's "
                   "relationships."),
            textual=True),
    Section("dynamic_uses", ("usage", "impact"), "text_mentions", dynamic_lines, named_dynamically,
            empty=("no_dynamic_use", "No string, `__all__`, getattr or dispatch spelling, decorator, registry, "
                   "template or config file of commit {commit} names `{name}`."),
            textual=True),
    Section("tests", ("usage", "impact", "tests"), "related_tests", tests_reached, None,
            empty=("no_test_within_depth", "No test reaches it within depth {depth} in this graph; " + DYNAMIC + "."),
            walk=WalkSpec(INCOMING, REACHES_TESTS, 2), headline=reaching_tests),
    Section("resolved_tests", ("usage", "impact", "tests"), "resolved_references", resolved_tests,
            resolved_tests_beyond,
            empty=("no_resolved_test", "No test beyond the graph's reaches it by resolved references (depth {depth})."),
            unavailable=NOT_RESOLVED, walk=WalkSpec(INCOMING, REACHES_TESTS, 2), beside=("tests",), roles=RUN_ROLES),
    Section("observed_tests", ("impact",), "observed_tests", observed_section, executed_it,
            empty=("no_observed_test", "No test of this generation's recorded run ({tests} tests) executed it.")),
    Section("test_mentions", ("tests",), "text_mentions", test_mention_lines, lambda s: mentioned(s, True),
            empty=("no_test_mention", "No test file of commit {commit} uses `{name}` by name outside the graph's "
                   "relationships."),
            textual=True),
    Section("tests_to_run", ("tests",), "related_tests", ranked_section, to_run,
            empty=("no_test_to_run", "No test reaches it within depth {depth} by the graph or the resolver, and no "
                   "test names it; " + DYNAMIC + "."),
            walk=WalkSpec(INCOMING, REACHES_TESTS, TEST_DEPTH)),
    Section("similar", ("usage",), "similar_by_callees", similar_by_callees,
            lambda s: f"Structurally similar (shared callees): {listing(s)}.",
            empty=("no_similar_code", "No other code shares at least two callees and half its callee set with it.")),
    Section("cross_repo", ("usage",), "cross_repo_usages", fleet_usages, used_in_fleet,
            empty=("no_cross_repo_usage", "No other repository of the fleet {fleet} imports or calls it by an "
                   "anchor stronger than its name{unsearched}."),
            unavailable=("fleet_not_configured", "No fleet of repositories is configured; only this repository is "
                         "indexed.")),
    Section("change_coupling", ("impact",), "change_coupling", coupled_files, lambda s: coupled(s, False),
            unavailable=("history_not_built", "Change coupling is not built for this generation: " + HISTORY)),
    Section("hidden_coupling", ("impact",), "change_coupling", hidden_coupled_files, lambda s: coupled(s, True),
            unavailable=("history_not_built", "Coupled files without a graph path need the change-coupling history: "
                         + HISTORY)),
    Section("routes", ("how", "usage"), None, None,
            unavailable=("provider_does_not_extract", "The pinned provider emits no route relation.")),
)
BY_NAME = {row.name: row for row in SECTIONS}
SECTIONS_OF = {intent: tuple(row for row in SECTIONS if intent in row.intents) for intent in INTENT_NAMES}


def used_relations(rows: Iterable[Section]) -> dict[str, str]:
    """The declared map of the walks among ``rows`` (an answer's: those that found none), in their
    order, one line each:
    ``"<along|against> <depth>: <relation words>"``; a resolved section walks its graph twins'
    words and the resolver's roles: ``"against 1: callers+references, resolved call,import,…"``."""
    direction = {OUTGOING: "along", INCOMING: "against"}
    return {row.name: f"{direction[row.walk.direction]} {row.walk.depth}: "
                      + (f"{'+'.join(row.beside)}, resolved {','.join(row.roles)}" if row.beside
                         else ",".join(row.walk.relations))
            for row in rows if row.walk is not None}


def used_primitives(ran: Iterable[Section]) -> list[str]:
    """The primitives of the rows an answer filled (an unavailable section ran nothing), sorted."""
    return sorted({row.primitive for row in ran if row.primitive is not None})
