"""code_context (issue 16): shape, intents, relation map, resolution, sections, budget, ids."""

from __future__ import annotations

import json
import random
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cm_graph.base.envelope import ENVELOPE_TAIL
from cm_graph.base.errors import InvalidInput, Refusal
from cm_graph.base.jsonio import dumps_wire
from cm_graph.cli.app import app
from cm_graph.context.intents import INTENT_NAMES
from cm_graph.context.relations import OUTGOING
from cm_graph.context.section_table import BY_NAME
from cm_graph.context.walks import MAX_READ
from cm_graph.context.wire import cited

from ..support.askkit import ask_graph
from ..support.contextkit import ask_context, masked, published, readable
from ..support.g0 import edge, g0_graph, node
from ..support.helpers import make_repo, numbered_lines

G0_TARGETS = {"how": "load", "usage": "parse_config", "impact": "parse_config", "tests": "parse_config"}


def _rich_files() -> dict[str, str]:
    return {
        "pkg/core.py": numbered_lines(40),
        "pkg/use.py": numbered_lines(40),
        "pkg/more.py": numbered_lines(40),
        "tests/test_core.py": numbered_lines(20),
    }


def _rich_graph() -> dict[str, Any]:
    """A callback (indirect_call), a subclass (inherits), an import (imports_from), a method."""
    return {
        "nodes": [
            node("core", "core.py", "pkg/core.py", "L1"),
            node("core_base", "Base", "pkg/core.py", "L3"),
            node("core_base_run", ".run()", "pkg/core.py", "L5"),
            node("core_helper", "helper()", "pkg/core.py", "L10"),
            node("core_step", "step()", "pkg/core.py", "L20"),
            node("use", "use.py", "pkg/use.py", "L1"),
            node("use_child", "Child", "pkg/use.py", "L4"),
            node("use_main", "main()", "pkg/use.py", "L9"),
            node("use_other", "other()", "pkg/use.py", "L20"),
            node("more_helper", "helper()", "pkg/more.py", "L3"),
            node("test_main", "test_main()", "tests/test_core.py", "L4"),
            node("r_base", "Runs the steps in order.", "pkg/core.py", "L4", "rationale"),
            node("r_note", "# NOTE: step must run after helper", "pkg/core.py", "L8", "rationale"),
            node("r_concept", "# CONCEPT: the two-phase run", "pkg/core.py", "L9", "rationale"),
            node("r_long", "Helper.  " + "word " * 100, "pkg/core.py", "L11", "rationale"),
            node("r_past_end", "A docstring the file does not hold.", "pkg/core.py", "L999", "rationale"),
        ],
        "edges": [
            edge("core", "core_base", "contains", path="pkg/core.py", location="L3"),
            edge("core_base", "core_base_run", "method", path="pkg/core.py", location="L5"),
            edge("core", "core_helper", "contains", path="pkg/core.py", location="L10"),
            edge("core_base_run", "core_helper", "calls", path="pkg/core.py", location="L6"),
            edge("core_base_run", "core_step", "calls", path="pkg/core.py", location="L7"),
            edge("use", "core", "imports_from", path="pkg/use.py", location="L2"),
            edge("use_child", "core_base", "inherits", path="pkg/use.py", location="L4"),
            edge("use_main", "core_helper", "indirect_call", "INFERRED", path="pkg/use.py", location="L11"),
            edge("use_main", "core_base_run", "calls", path="pkg/use.py", location="L12"),
            edge("use_other", "core_helper", "calls", path="pkg/use.py", location="L21"),
            edge("use_other", "core_step", "calls", path="pkg/use.py", location="L22"),
            edge("use_other", "use_other", "calls", path="pkg/use.py", location="L23"),
            edge("test_main", "use_main", "calls", path="tests/test_core.py", location="L5"),
            edge("r_base", "core_base", "rationale_for", path="pkg/core.py", location="L4"),
            edge("r_note", "core_base_run", "rationale_for", path="pkg/core.py", location="L8"),
            edge("r_concept", "core_base_run", "rationale_for", path="pkg/core.py", location="L9"),
            edge("r_long", "core_helper", "rationale_for", path="pkg/core.py", location="L11"),
            edge("r_past_end", "core_step", "rationale_for", path="pkg/core.py", location="L999"),
        ],
        "hyperedges": [], "input_tokens": 0, "output_tokens": 0, "extracted_sources": [],
    }


@pytest.fixture
def rich(tmp_path: Path, state_dir: Path):  # type: ignore[no-untyped-def]
    repo = make_repo(tmp_path / "repo", _rich_files())
    return published(repo, state_dir, _rich_graph())


def _labels(section: dict[str, Any]) -> list[str]:
    return [item["label"] for item in section["items"]]


def test_usage_follows_callbacks_where_the_seed_impact_does_not(rich, tmp_path: Path) -> None:
    document = ask_context(rich, "usage", "pkg/core.py::helper")
    callers = document["sections"]["callers"]
    assert _labels(callers) == [".run()", "main()", "other()"]  # hop, then node (provider id) order
    assert [item["relation"] for item in callers["items"]] == ["calls", "indirect_call", "calls"]
    site = callers["items"][1]["site"]
    assert (site["path"], site["line"]) == ("pkg/use.py", 11) and site["cite"] is not None
    assert "callers" not in document["used_relations"]  # it found callers: its items say what they are
    # The seed's impact question over the same graph does not see the callback.
    seed = ask_graph(rich.checkout, tmp_path / "seed-state", _rich_graph(), "impact", "pkg/core.py")
    assert seed.packet is not None
    assert not any("main()" in d["text"] and "helper()" in d["text"] for d in seed.packet["documents"])


def test_a_recursive_call_is_reported_once_as_its_own_caller(rich) -> None:
    callers = ask_context(rich, "usage", "other")["sections"]["callers"]
    assert [(i["label"], i["hop"], i["site"]["line"]) for i in callers["items"]] == [("other()", 1, 23)]


def test_a_recursive_anchor_still_gives_each_test_its_path(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"].append(edge("n-config", "n-config", "calls", path="example_pkg/config.py", location="L13"))
    workspace = published(g0_repo, state_dir, graph)
    tests = ask_context(workspace, "tests", "parse_config")["sections"]["tests"]["items"]
    assert [t["reaching"] for t in tests] == [["test_parse_config", "tests parse_config"]]


def test_impact_groups_by_hop_and_follows_inheritance(rich) -> None:
    document = ask_context(rich, "impact", "Base")
    section = document["sections"]["callers_by_hop"]
    assert [(i["label"], i["hop"], i["group"], i["relation"]) for i in section["items"]] == [
        ("Child", 1, "will_break", "inherits"),
    ]
    impact = ask_context(rich, "impact", "Base.run")["sections"]["callers_by_hop"]
    assert [(i["label"], i["group"]) for i in impact["items"]] == [
        ("main()", "will_break"), ("test_main()", "likely"),
    ]


def test_tests_carry_their_reaching_path(rich) -> None:
    section = ask_context(rich, "tests", "Base.run")["sections"]["tests"]
    assert section["items"][0]["reaching"] == ["test_main()", "calls main()", "calls .run()"]


def test_similar_code_by_shared_callees(rich) -> None:
    section = ask_context(rich, "usage", "Base.run")["sections"]["similar"]
    assert [(i["label"], i["shared"], i["jaccard"]) for i in section["items"]] == [("other()", 2, "2/2")]


@pytest.mark.parametrize(
    ("target", "via", "label"),
    [
        ("Base.run", "owner_name", ".run()"),
        ("run", "method", ".run()"),
        (".run", "label", ".run()"),  # the seed's tier 2: callable base
        ("use.main", "module_name", "main()"),
        ("pkg.use.main", "module_name", "main()"),
        ("pkg/more.py::helper", "path_name", "helper()"),
        # a method at its line without its dot, as path::name reads it (issue 26 item 3: unresolved before)
        ("pkg/core.py::run#L5", "path_line", ".run()"),
        ("pkg/use.py", "path", "use.py"),
    ],
)
def test_agent_resolution(rich, target: str, via: str, label: str) -> None:
    from cm_graph.context.resolve import resolve
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for

    connection = open_index_for(require_current(rich))
    try:
        assert resolve(connection, target).via == via
    finally:
        connection.close()
    document = ask_context(rich, "how", target)
    assert document["status"] == "answered" and document["anchors"][0]["label"] == label


def test_how_quotes_rationale_bounded_and_cited(rich) -> None:
    document = ask_context(rich, "how", "Base.run")
    rationale = document["sections"]["rationale"]
    assert [(i["text"], i["line"]) for i in rationale["items"]] == [
        ("# NOTE: step must run after helper", 8), ("# CONCEPT: the two-phase run", 9),
    ]
    cites = {c["id"]: c["cite"] for c in document["citations"]}
    assert [cites[i["cite"]] for i in rationale["items"]] == ["pkg/core.py#L8", "pkg/core.py#L9"]
    assert "“# NOTE: step must run after helper”" in document["answer"]
    assert [i["text"] for i in document["sections"]["concepts"]["items"]] == ["# CONCEPT: the two-phase run"]
    long = ask_context(rich, "how", "pkg/core.py::helper")["sections"]["rationale"]["items"][0]
    assert long["truncated"] is True and len(long["text"]) == 300 and "  " not in long["text"]
    # A rationale whose line the bound commit's file does not have is never quoted as cited.
    past_end = ask_context(rich, "how", "step")
    items = past_end["sections"]["rationale"]["items"]
    assert [i["cite"] for i in items] == [None] and past_end["bounds"]["unverified_citations"] == 1


def test_several_definitions_are_ambiguous_never_picked(rich) -> None:
    document = ask_context(rich, "usage", "helper")
    assert document["status"] == "ambiguous" and document["sections"] == {}
    assert [(c["label"], c["path"]) for c in document["anchors"]] == [
        ("helper()", "pkg/core.py"), ("helper()", "pkg/more.py"),
    ]
    assert document["candidates"] == {"shown": 2, "total": 2}
    assert document["next_actions"][0]["command"] == "cm-graph context usage 'pkg/core.py::helper()'"


def test_unresolved_gives_ranked_suggestions(rich) -> None:
    document = ask_context(rich, "how", "hel")
    assert document["status"] == "unresolved"
    assert document["suggestions"] == ["helper()"]


# One graph per empty/unavailable reason: every section is present and says why.
EMPTY_REASONS = [
    ("how", "step", "calls", "empty", "no_callee_within_depth"),
    ("how", "step", "defines", "empty", "defines_nothing"),
    ("how", "other", "rationale", "empty", "no_rationale"),
    ("how", "pkg/core.py::helper", "concepts", "empty", "no_concept_marker"),
    ("how", "step", "routes", "unavailable", "provider_does_not_extract"),
    ("usage", "test_main", "callers", "empty", "no_caller_within_depth"),
    ("usage", "other", "references", "empty", "no_reference"),
    ("usage", "other", "tests", "empty", "no_test_within_depth"),
    ("usage", "step", "similar", "empty", "no_similar_code"),
    ("usage", "step", "cross_repo", "unavailable", "fleet_not_configured"),
    ("usage", "step", "routes", "unavailable", "provider_does_not_extract"),
    ("impact", "test_main", "callers_by_hop", "empty", "no_caller_within_depth"),
    ("impact", "step", "change_coupling", "unavailable", "history_not_built"),
    ("impact", "step", "hidden_coupling", "unavailable", "history_not_built"),
    ("tests", "other", "tests", "empty", "no_test_within_depth"),
]


@pytest.mark.parametrize(("intent", "target", "name", "status", "reason"), EMPTY_REASONS)
def test_every_empty_section_says_why(rich, intent: str, target: str, name: str, status: str, reason: str) -> None:
    document = ask_context(rich, intent, target)
    section = document["sections"][name]
    assert (section["status"], section["reason"], section["shown"], section["total"]) == (status, reason, 0, 0)
    walk = BY_NAME[name].walk
    if status == "empty" and walk is not None:  # a "none" says what its walk followed
        direction = "along" if walk.direction == OUTGOING else "against"
        assert document["used_relations"][name] == f"{direction} {walk.depth}: {','.join(walk.relations)}"
    # an unavailable section's sentence is the prose's: it names the section with its reason
    assert section["detail"] if status == "empty" else f"{name} ({reason})" in document["answer"]
    if status == "empty" and name in ("calls", "callers", "tests", "callers_by_hop"):
        assert "not proof of no use" in section["detail"] and "safe" not in document["answer"].lower()
        assert section["detail"] in document["answer"]


def test_used_primitives_name_the_reads_the_answer_ran(rich) -> None:
    """Derived from the sections that were filled: the rationale read is named, while a section
    this build cannot fill (routes, cross_repo without a fleet; raises and catches of a
    method) names nothing."""
    assert ask_context(rich, "how", "Base.run")["used_primitives"] == ["dependency", "rationale", "symbol"]
    usage = ask_context(rich, "usage", "Base.run")
    assert usage["used_primitives"] == ["impact", "overrides", "related_tests", "similar_by_callees", "text_mentions"]
    assert "overrides" in ask_context(rich, "impact", "Base.run")["used_primitives"]
    assert ask_context(rich, "usage", "nothing_like_it")["used_primitives"] == []


def test_every_section_of_every_intent_is_present(rich) -> None:
    for intent in INTENT_NAMES:
        document = ask_context(rich, intent, "Base.run")
        assert document["status"] == "answered"
        keys = {"status", "reason", "detail", "shown", "total", "items"}
        assert all(keys <= set(s) for s in document["sections"].values())


def _hub_graph(callers: int) -> tuple[dict[str, str], dict[str, Any]]:
    files = {f"pkg/m{i}.py": numbered_lines(5) for i in range(callers)} | {"pkg/hub.py": numbered_lines(5)}
    nodes = [node("hub", "hub()", "pkg/hub.py", "L2")]
    edges = []
    for i in range(callers):
        nodes.append(node(f"c{i:04d}", f"caller_number_{i:04d}()", f"pkg/m{i}.py", "L2"))
        edges.append(edge(f"c{i:04d}", "hub", "calls", path=f"pkg/m{i}.py", location="L3"))
    graph = {"nodes": nodes, "edges": edges, "hyperedges": [], "input_tokens": 0, "output_tokens": 0,
             "extracted_sources": []}
    return files, graph


def test_budget_holds_on_a_hub_and_counts_what_it_drops(tmp_path: Path, state_dir: Path) -> None:
    files, graph = _hub_graph(60)
    workspace = published(make_repo(tmp_path / "repo", files), state_dir, graph)
    for max_chars in (5000, 5500, 6000, 8000, 20000):
        document = ask_context(workspace, "usage", "hub", max_chars=max_chars, wire=True)
        assert len(dumps_wire(document)) <= max_chars
        callers = document["sections"]["callers"]
        assert callers["total"] == 60 and callers["shown"] < 60
        assert callers["status"] == "truncated"
        assert callers["reason"] in ("max_items", "max_chars")
        assert document["bounds"]["truncated"] is True
        assert f"callers ({60 - callers['shown']} more)" in document["answer"]  # whatever cut it
        assert all(row[callers["columns"].index("site")] in cited(document) for row in callers["rows"])
    small = ask_context(workspace, "usage", "hub", max_chars=5000)
    assert small["sections"]["callers"]["reason"] == "max_chars"
    cursor = small["pages"]["callers"]
    assert any(a["command"].endswith(f"--cursor {cursor}") for a in small["next_actions"])
    with pytest.raises(InvalidInput):
        ask_context(workspace, "usage", "hub", max_chars=10)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_shuffled_provider_order_gives_the_same_bytes(tmp_path_factory: pytest.TempPathFactory, seed: int) -> None:
    root = tmp_path_factory.mktemp("shuffle")
    repo = make_repo(root / "repo", _rich_files())
    reference = published(repo, root / "a", _rich_graph())
    shuffled_graph = _rich_graph()
    rng = random.Random(seed)
    rng.shuffle(shuffled_graph["nodes"])
    rng.shuffle(shuffled_graph["edges"])
    shuffled = published(repo, root / "b", shuffled_graph)
    for intent in INTENT_NAMES:
        for target in ("Base.run", "pkg/core.py::helper", "Base"):
            assert masked(ask_context(reference, intent, target)) == masked(ask_context(shuffled, intent, target))
    assert _rationale_pages(reference) == _rationale_pages(shuffled)


def _rationale_pages(workspace: Any) -> list[Any]:
    """The rationale table's rows in storage order, as the index file holds them."""
    from cm_graph.generation.status import require_current
    from cm_graph.index.ensure import open_index_for

    connection = open_index_for(require_current(workspace))
    try:
        return connection.execute("SELECT * FROM rationale").fetchall()
    finally:
        connection.close()


def test_unverified_locations_are_not_cited(tmp_path: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][2]["source_location"] = "L999"  # render, past the end of report.py
    workspace = published(make_repo(tmp_path / "repo", {**_g0_files()}), state_dir, graph)
    document = ask_context(workspace, "impact", "parse_config")
    render = [i for i in document["sections"]["callers_by_hop"]["items"] if i["label"] == "render"][0]
    assert render["cite"] is None and document["bounds"]["unverified_citations"] == 1
    assert all(c["path"] != "example_pkg/report.py" for c in document["citations"])


def _g0_files() -> dict[str, str]:
    from ..support.g0 import G0_FILES

    return dict(G0_FILES)


def test_stale_graph_answers_and_says_so(g0_repo: Path, state_dir: Path) -> None:
    from ..support.helpers import commit_all, write_files

    workspace = published(g0_repo, state_dir, g0_graph())
    write_files(g0_repo, {"extra.txt": "x\n"})
    commit_all(g0_repo, "move on")
    document = ask_context(workspace, "how", "load")
    assert document["freshness"]["state"] == "stale"
    assert document["freshness"]["head"] != document["graph"]["commit"]
    assert document["next_actions"][0]["command"] == "cm-graph refresh"


def test_cli_json_rich_and_refusals(g0_repo: Path, state_dir: Path) -> None:
    runner = CliRunner()
    base = ["--repo-path", str(g0_repo), "--state-dir", str(state_dir)]
    absent = runner.invoke(app, ["context", "how", "load", *base])
    assert absent.exit_code == 1 and "absent" in absent.stderr
    published(g0_repo, state_dir, g0_graph())
    done = runner.invoke(app, ["context", "usage", "parse_config", "--json", *base])
    assert done.exit_code == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["schema"] == "cm_graph.codeContext.v3" and document["status"] == "answered"
    person = runner.invoke(app, ["context", "impact", "parse_config", *base])
    assert person.exit_code == 0 and "will break (hop 1)" in person.stdout
    missing = runner.invoke(app, ["context", "tests", "nothing_like_it", "--json", *base])
    assert missing.exit_code == 1 and json.loads(missing.stdout)["status"] == "unresolved"
    assert "cm-graph: unresolved:" in missing.stderr
    small = runner.invoke(app, ["context", "how", "load", "--max-chars", "5", *base])
    assert small.exit_code == 1 and "invalid" in small.stderr and "Traceback" not in small.stderr


def test_bad_intent_is_refused(g0_repo: Path, state_dir: Path) -> None:
    workspace = published(g0_repo, state_dir, g0_graph())
    with pytest.raises(Refusal):
        ask_context(workspace, "why", "load")


def test_the_installed_command_prints_the_in_process_bytes(g0_repo: Path, state_dir: Path) -> None:
    from ..support.helpers import run_installed

    workspace = published(g0_repo, state_dir, g0_graph())
    for intent, target in G0_TARGETS.items():
        done = run_installed("context", intent, target, "--json", "--state-dir", state_dir, cwd=g0_repo)
        assert done.returncode == 0, done.stderr
        assert done.stdout == dumps_wire(ask_context(workspace, intent, target, wire=True)) + "\n"


def test_the_rich_view_never_cuts_a_citation_on_a_narrow_terminal(g0_repo: Path, state_dir: Path) -> None:
    """On a narrow terminal a long path is folded onto the next line, never cut with an ellipsis."""
    import io

    from rich.console import Console

    from cm_graph.cli.context_view import _where, print_context

    wire = ask_context(published(g0_repo, state_dir, g0_graph()), "usage", G0_TARGETS["usage"], wire=True)
    document = readable(wire)
    assert document["citations"], "the test needs an answer with citations"
    out = io.StringIO()
    print_context(Console(file=out, width=60, color_system=None), wire)
    shown = out.getvalue()
    assert "…" not in shown, shown
    places = [_where(item)[0] for section in document["sections"].values() for item in section["items"]]
    assert places, "the test needs rows"
    for place in places:  # folded at 60 columns, every piece of it is still printed
        tail = place.rsplit("#", 1)[-1]
        assert f"#{tail}" in shown or tail in shown, place


def test_two_same_named_definitions_in_one_file_are_told_apart_by_line(g0_repo: Path, state_dir: Path) -> None:
    """zod's lib/types.d.ts declares ZodString twice: `path::name` stays ambiguous, and each
    candidate's next action names it with its line, which resolves to that one."""
    graph = g0_graph()
    graph["nodes"] += [node("n-dup-a", "dup", "example_pkg/config.py", "L3"),
                       node("n-dup-b", "dup", "example_pkg/config.py", "L5")]
    workspace = published(g0_repo, state_dir, graph)
    ambiguous = ask_context(workspace, "usage", "example_pkg/config.py::dup")
    assert ambiguous["status"] == "ambiguous"
    commands = [action["command"] for action in ambiguous["next_actions"]]
    assert [c for c in commands if "::dup" in c] == [
        "cm-graph context usage 'example_pkg/config.py::dup#L3'",
        "cm-graph context usage 'example_pkg/config.py::dup#L5'",
    ]
    for line in (3, 5):
        for spelling in (f"example_pkg/config.py::dup#L{line}", f"example_pkg/config.py#L{line}"):
            chosen = ask_context(workspace, "usage", spelling)
            assert chosen["status"] == "answered", spelling
            assert [(a["path"], a["line"]) for a in chosen["anchors"]] == [("example_pkg/config.py", line)]
    assert ask_context(workspace, "usage", "example_pkg/config.py::dup#L4")["status"] == "unresolved"


def test_prose_at_the_read_bound_says_at_least_and_never_an_empty_list(tmp_path: Path, state_dir: Path) -> None:
    """adv's die(): 44,300 callers in one minified file. Each walk stops at MAX_READ adjacency
    rows, so a total is a lower bound ("at least 2000"), and a walk that found nothing before its
    bound (no test among the first 2000 callers) says so instead of "0 test(s) reach it: ."."""
    callers = MAX_READ + 50
    files = {"pkg/hub.py": numbered_lines(5), "pkg/many.py": numbered_lines(callers + 1)}
    nodes = [node("hub", "hub()", "pkg/hub.py", "L2")]
    edges = []
    for i in range(callers):
        nodes.append(node(f"c{i:05d}", f"caller_{i:05d}()", "pkg/many.py", f"L{i + 1}"))
        edges.append(edge(f"c{i:05d}", "hub", "calls", path="pkg/many.py", location=f"L{i + 1}"))
    workspace = published(make_repo(tmp_path / "repo", files), state_dir, {"nodes": nodes, "edges": edges})
    answers = {intent: ask_context(workspace, intent, "hub") for intent in ("usage", "impact", "tests")}
    for intent, document in answers.items():
        assert ": ." not in document["answer"], intent
        assert f" {MAX_READ} " not in document["answer"].replace(f"at least {MAX_READ} ", ""), intent
    usage = answers["usage"]
    assert (usage["sections"]["callers"]["reason"], usage["sections"]["callers"]["total"]) == ("read_limit", MAX_READ)
    shown = usage["sections"]["callers"]["shown"]
    assert f"Used by at least {MAX_READ} caller(s) in the graph (graph), {shown} shown: " in usage["answer"]
    assert f"…and at least {MAX_READ - 6} more." in usage["answer"]
    assert f"Changing it reaches at least {MAX_READ} node(s) — will break (hop 1): " in answers["impact"]["answer"]
    tests = answers["tests"]["sections"]["tests"]
    assert (tests["status"], tests["reason"], tests["total"]) == ("truncated", "read_limit", 0)
    assert ("The tests walk stopped at its read bound on a large hub before finding any, so this is not evidence "
            "of none.") in answers["tests"]["answer"]


def test_the_ambiguity_hint_offers_spellings_that_resolve(g0_repo: Path, state_dir: Path) -> None:
    """pydantic_core's get_as_req: three `.get_as_req()` in src/tools.rs (the trait and two impls).
    "name one as path::name" could not be followed (that is ambiguous again); each candidate now
    carries the target that resolves to it, the prose offers exactly those, and following one
    answers with that candidate."""
    graph = g0_graph()
    graph["nodes"] += [node(f"n-req-{line}", ".get_as_req()", "example_pkg/config.py", f"L{line}")
                       for line in (3, 5, 7)]
    workspace = published(g0_repo, state_dir, graph)
    for target in ("get_as_req", "example_pkg/config.py::get_as_req"):
        ambiguous = ask_context(workspace, "usage", target)
        assert ambiguous["status"] == "ambiguous"
        offered = [c["resolve_as"] for c in ambiguous["anchors"]]
        assert offered == [f"example_pkg/config.py::.get_as_req()#L{line}" for line in (3, 5, 7)]
        assert "path::name" not in ambiguous["answer"]
        for candidate in ambiguous["anchors"]:
            assert f"`{candidate['resolve_as']}` [{candidate['cite']}]" in ambiguous["answer"]
            followed = ask_context(workspace, "usage", candidate["resolve_as"])
            assert followed["status"] == "answered", candidate["resolve_as"]
            assert [(a["path"], a["line"]) for a in followed["anchors"]] == [(candidate["path"], candidate["line"])]
        assert [a["command"] for a in ambiguous["next_actions"]] == [
            f"cm-graph context usage {shlex.quote(spelling)}" for spelling in offered]


def test_the_first_section_is_cut_last_and_a_section_cut_to_none_still_pages(tmp_path: Path, state_dir: Path
                                                                            ) -> None:
    """Issue 27 item 1: the default budget carries every caller of a target with up to 50; the
    other sections give way first (a few each, then all), and one shown with none still names its
    cursor, whose page starts at its first item."""
    files, graph = _hub_graph(50)
    for i in range(50):  # each caller's module also references the hub: 50 references to cut first
        graph["edges"].append(edge(f"c{i:04d}", "hub", "references", path=f"pkg/m{i}.py", location="L4"))
    workspace = published(make_repo(tmp_path / "repo", files), state_dir, graph)
    document = ask_context(workspace, "usage", "hub", wire=True)
    callers, references = document["sections"]["callers"], document["sections"]["references"]
    assert (callers["status"], callers["shown"], callers["total"]) == ("ok", 50, 50)
    assert references["status"] == "truncated" and references["shown"] < references["total"] == 50
    assert len(dumps_wire(document)) <= 8000
    keys = list(document)
    assert keys[keys.index("sections") + 1] == "pages" and tuple(keys[-len(ENVELOPE_TAIL):]) == ENVELOPE_TAIL
    cursor = document["pages"]["references"]
    page = ask_context(workspace, "usage", "hub", cursor=cursor)
    assert page["page"] == {"section": "references", "offset": references["shown"], "of": document["answer_id"]}
    shown = page["sections"]["references"]["items"]
    assert shown and shown[0]["label"] == f"caller_number_{references['shown']:04d}()"
