"""Citations against the bound commit (§3 C), document limits and policy (§3 F), determinism."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cm_graph.base.jsonio import dumps_canonical
from cm_graph.evidence.ask import ask

from ..support.askkit import T, ask_graph, authorization, citations, texts
from ..support.g0 import edge, g0_graph, node
from ..support.helpers import commit_all, make_repo, numbered_lines, publish, write_files


def _with_e1_site(path: str, location: str | None) -> dict:
    graph = g0_graph()
    graph["edges"][0] = edge("n-load", "n-config", path=path, location=location)
    return graph


def test_call_site_is_a_third_citation(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _with_e1_site("example_pkg/loader.py", "L41"), "impact", "parse_config")
    assert citations(outcome, 0) == [
        ("example_pkg/loader.py#L40", "symbol load"),
        ("example_pkg/config.py#L12", "symbol parse_config"),
        ("example_pkg/loader.py#L41", "call site: calls"),
    ]


def test_call_site_title_is_the_providers_relation_word(g0_repo: Path, state_dir: Path) -> None:
    """``call site: <relation>`` states the provider's own word, not the normalised kind
    (``contains`` is walked as ``defines``, ``implements`` as ``inherits``)."""
    graph = g0_graph()
    graph["edges"] += [
        edge("n-config-file", "n-config", "contains", path="example_pkg/config.py", location="L3"),
        edge("n-report", "n-config", "implements", path="example_pkg/report.py", location="L7"),
    ]
    outcome = ask_graph(g0_repo, state_dir, graph, "symbol", "parse_config", node_budget=10)
    titles = {c["source"]: c["title"] for d in outcome.packet["documents"] for c in d["citations"]}
    assert titles["example_pkg/config.py#L3"] == "call site: contains"
    assert titles["example_pkg/report.py#L7"] == "call site: implements"


def test_call_site_equal_to_endpoint_is_not_repeated(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _with_e1_site("example_pkg/loader.py", "L40"), "impact", "parse_config")
    assert len(citations(outcome, 0)) == 2


def test_call_site_without_line_is_file_level(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _with_e1_site("example_pkg/loader.py", None), "impact", "parse_config")
    assert citations(outcome, 0)[2] == ("example_pkg/loader.py", "call site: calls")


def test_call_site_past_end_of_file_is_dropped_with_warning(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _with_e1_site("example_pkg/loader.py", "L400"), "impact", "parse_config")
    assert len(citations(outcome, 0)) == 2
    assert outcome.packet["omissions"] == ["provider_warning"]
    assert outcome.packet["truncated"] is False


def test_endpoint_past_end_of_file_is_never_cited(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][1]["source_location"] = "L400"
    outcome = ask_graph(g0_repo, state_dir, graph, "impact", "parse_config")
    assert citations(outcome, 0) == [("example_pkg/config.py#L12", "symbol parse_config")]
    assert citations(outcome, 2) == [("example_pkg/report.py#L5", "symbol render")]
    assert "loader.py#L400" not in json.dumps(outcome.packet)
    # Neither document names loader.py in its text, since neither cites it; load's own document
    # (load reached at hop 1) leaves out the clause that would have placed it.
    assert "loader.py" not in json.dumps(outcome.packet)
    assert texts(outcome)[0] == "impact: load calls parse_config (extracted, hop 1)"
    assert not [text for text in texts(outcome) if text.endswith("at )")]
    assert outcome.packet["omissions"] == ["provider_warning"]


def test_untracked_file_is_never_cited(tmp_path: Path, state_dir: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"example_pkg/config.py": numbered_lines(40)})
    (repo / "example_pkg" / "scratch.py").write_text(numbered_lines(10))
    graph = {"nodes": [node("a", "alpha", "example_pkg/config.py", "L12"),
                       node("s", "scratch", "example_pkg/scratch.py", "L2"),
                       node("u", "ghost", "example_pkg/untracked.py", "L2")],
             "edges": [edge("s", "a"), edge("u", "s")]}
    outcome = ask_graph(repo, state_dir, graph, "impact", "alpha")
    # The text names only what the citations carry: scratch.py's citation was dropped, and with it
    # the clause that placed it (never a dangling `symbol at )`, which reads as a sourceless stub).
    assert texts(outcome) == ["impact: scratch calls alpha (extracted, hop 1)"]
    assert citations(outcome, 0) == [("example_pkg/config.py#L12", "symbol alpha")]
    assert "scratch.py" not in json.dumps(outcome.packet)
    assert outcome.packet["omissions"] == ["provider_warning", "document_limit"]
    assert outcome.packet["truncated"] is True and outcome.packet["completeness"] == "partial"


def test_working_tree_edits_change_nothing(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"][0]["source_location"] = "L40"
    workspace = publish(g0_repo, state_dir, graph)
    (g0_repo / "example_pkg" / "config.py").write_text("one line\n")
    (g0_repo / "example_pkg" / "new.py").write_text("x\n")
    outcome = ask(workspace, "impact", "parse_config", authorization(workspace), now=T)
    assert ("example_pkg/config.py#L40", "symbol parse_config") in citations(outcome, 0)


def test_sourceless_stub_is_traversed_never_cited(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"].append(node("n-stub", "Thing", "", ""))
    graph["edges"].append(edge("n-config", "n-stub", "references"))
    outcome = ask_graph(g0_repo, state_dir, graph, "symbol", "parse_config")
    stub = [i for i, t in enumerate(texts(outcome)) if "Thing" in t]
    assert texts(outcome)[stub[0]] == "symbol: parse_config references Thing (extracted, hop 1, symbol at )"
    assert citations(outcome, stub[0]) == [("example_pkg/config.py#L12", "symbol parse_config")]
    assert "provider_warning" in outcome.packet["omissions"]


@pytest.mark.parametrize("path", ["odd/a#b.py", "odd/tab\tname.py", "odd/nel\x85name.py"])
def test_a_walk_that_meets_an_untraversable_record_says_so(g0_repo: Path, state_dir: Path, path: str) -> None:
    """A node with an uncitable path is not traversable at all: the walk does not pass it, the
    packet never names it, and an answer touching its neighbour raises provider_warning."""
    graph = g0_graph()
    graph["nodes"].append(node("n-odd", "odd_caller", path, "L1"))
    graph["edges"].append(edge("n-odd", "n-load", path=path, location="L2"))
    plain = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config")
    met = ask_graph(g0_repo, state_dir, graph, "impact", "parse_config")
    assert texts(met) == texts(plain)  # nothing reached through the odd caller
    assert met.packet["omissions"] == ["provider_warning"]
    assert met.packet["completeness"] == "partial" and met.packet["truncated"] is False
    assert "odd" not in json.dumps(met.packet)
    assert met.summary["omissions"] == ["provider_warning"]
    untouched = ask_graph(g0_repo, state_dir, graph, "symbol", "test_parse_config")
    assert "provider_warning" not in untouched.packet["omissions"]


def test_an_untraversable_call_site_is_not_walked(g0_repo: Path, state_dir: Path) -> None:
    graph = _with_e1_site("example_pkg/a#b.py", "L41")  # load calls parse_config, at an odd site
    outcome = ask_graph(g0_repo, state_dir, graph, "impact", "parse_config")
    assert not any("load calls parse_config" in t for t in texts(outcome))
    assert "provider_warning" in outcome.packet["omissions"]
    assert "a#b" not in json.dumps(outcome.packet)


def test_undeclared_endpoint_makes_the_answer_partial_not_truncated(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"].append(edge("n-config", "n-ghost"))
    outcome = ask_graph(g0_repo, state_dir, graph, "impact", "parse_config")
    assert "provider_partial" in outcome.packet["omissions"]
    assert outcome.packet["truncated"] is False and outcome.packet["completeness"] == "partial"
    assert outcome.summary["generation_completeness"] == "complete"
    assert outcome.summary["query_completeness"] == "partial"
    reached = ask_graph(g0_repo, state_dir, graph, "dependency", "load")
    assert "provider_partial" in reached.packet["omissions"]


def test_a_hole_elsewhere_is_not_this_answers_hole(g0_repo: Path, state_dir: Path) -> None:
    graph = {"nodes": [node("a", "alpha", "example_pkg/config.py", "L12"),
                       node("b", "beta", "example_pkg/loader.py", "L40"),
                       node("c", "gamma", "example_pkg/report.py", "L5")],
             "edges": [edge("a", "b"), edge("c", "n-ghost")]}
    outcome = ask_graph(g0_repo, state_dir, graph, "symbol", "alpha")
    assert "provider_partial" not in outcome.packet["omissions"]


def test_unmapped_relation_only_in_symbol(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"].append(edge("n-config", "n-report", "supersedes"))
    for question in ("impact", "related_tests"):
        outcome = ask_graph(g0_repo, state_dir, graph, question, "parse_config")
        assert not any("supersedes" in t for t in texts(outcome))
    symbol = ask_graph(g0_repo, state_dir, graph, "symbol", "parse_config", node_budget=10)
    assert any("parse_config supersedes render" in t for t in texts(symbol))


def test_implements_is_walked_as_the_seed_table_says(g0_repo: Path, state_dir: Path) -> None:
    """The seed's table: dependency and impact do not follow inherits/implements; symbol does."""
    graph = g0_graph()
    graph["edges"].append(edge("n-report", "n-load", "implements"))
    dependency = ask_graph(g0_repo, state_dir, graph, "dependency", "render")
    assert not any("implements" in t for t in texts(dependency))
    symbol = ask_graph(g0_repo, state_dir, graph, "symbol", "render")
    assert any("render implements load" in t for t in texts(symbol))


def test_impact_does_not_walk_inherits_or_implements(g0_repo: Path, state_dir: Path) -> None:
    """impact follows calls/imports/references/tests against the edges, nothing else."""
    graph = g0_graph()
    graph["edges"] += [edge("n-report", "n-load", "implements"), edge("n-test", "n-load", "inherits")]
    impact = ask_graph(g0_repo, state_dir, graph, "impact", "load", node_budget=20)
    assert texts(impact) and not any("implements" in t or "inherits" in t for t in texts(impact))
    symbol = ask_graph(g0_repo, state_dir, graph, "symbol", "load", node_budget=20)
    assert any("render implements load" in t for t in texts(symbol))
    assert any("test_parse_config inherits load" in t for t in texts(symbol))


def test_imports_count_for_related_tests(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["nodes"].append(node("t2", "test_loader", "tests/test_config.py", "L3"))
    graph["edges"].append(edge("t2", "n-load", "imports"))
    outcome = ask_graph(g0_repo, state_dir, graph, "related_tests", "load")
    assert any("test_loader imports load" in t for t in texts(outcome))


def _wide(k: int) -> dict:
    nodes = [node("n-config", "parse_config", "example_pkg/config.py", "L12")]
    nodes += [node(f"caller_{i:02d}", f"caller_{i}", "example_pkg/loader.py", f"L{i + 1}") for i in range(k)]
    return {"nodes": nodes, "edges": [edge(f"caller_{i:02d}", "n-config") for i in range(k)]}


@pytest.mark.parametrize(("k", "max_documents", "documents", "limited"), [
    (6, None, 5, True), (6, 6, 6, False), (6, 2, 2, True), (20, 20, 16, True),
])
def test_document_limit(
    g0_repo: Path, state_dir: Path, k: int, max_documents: int | None, documents: int, limited: bool
) -> None:
    limits = {} if max_documents is None else {"max_documents": max_documents}
    outcome = ask_graph(g0_repo, state_dir, _wide(k), "impact", "parse_config", **limits)
    assert outcome.summary["documents"] == documents
    assert ("document_limit" in outcome.packet["omissions"]) is limited
    assert outcome.packet["truncated"] is limited


def test_fewer_documents_are_a_prefix(g0_repo: Path, state_dir: Path) -> None:
    five = ask_graph(g0_repo, state_dir, _wide(6), "impact", "parse_config")
    six = ask_graph(g0_repo, state_dir, _wide(6), "impact", "parse_config", max_documents=6)
    assert five.packet["documents"] == six.packet["documents"][:5]


def test_related_tests_budget_spent_before_any_test(g0_repo: Path, state_dir: Path) -> None:
    graph = {"nodes": [node("t", "T", "example_pkg/config.py", "L1"),
                       *[node(f"c{i}", f"c{i}", "example_pkg/loader.py", f"L{i}") for i in (1, 2, 3)],
                       node("t1", "test_one", "tests/test_config.py", "L1")],
             "edges": [edge("c1", "t"), edge("c2", "t"), edge("c3", "t"), edge("t1", "c1")]}
    outcome = ask_graph(g0_repo, state_dir, graph, "related_tests", "T", node_budget=3)
    assert outcome.summary["reason"] == "uncitable" and outcome.exit_code == 1


def test_ambiguous_edge_maps_to_unknown(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    graph["edges"][2]["confidence"] = "AMBIGUOUS"
    outcome = ask_graph(g0_repo, state_dir, graph, "impact", "parse_config")
    assert [d["confidence"] for d in outcome.packet["documents"]] == ["extracted", "unknown", "inferred"]
    assert "(ambiguous, hop 1" in texts(outcome)[1]
    assert "unresolved_entities" in outcome.packet["omissions"]


def test_seed_overflow_is_truncation(g0_repo: Path, state_dir: Path) -> None:
    graph = g0_graph()
    for i in range(9):
        graph["nodes"].append(node(f"n-extra-{i}", "parse_config", "example_pkg/config.py", f"L{20 + i}"))
    outcome = ask_graph(g0_repo, state_dir, graph, "impact", "parse_config")
    assert outcome.summary["seeds"] == 8
    assert {"provider_has_more", "unresolved_entities"} <= set(outcome.packet["omissions"])


def test_callable_base_and_overloads(g0_repo: Path, state_dir: Path) -> None:
    graph = {"nodes": [node("n-attribute", "packet", "example_pkg/config.py", "L1"),
                       node("n-function", "packet()", "example_pkg/config.py", "L2"),
                       node("n-int", "render(int)", "example_pkg/report.py", "L1"),
                       node("n-str", "render(str)", "example_pkg/report.py", "L2"),
                       node("n-caller", "caller", "example_pkg/loader.py", "L1")],
             "edges": [edge("n-caller", "n-attribute"), edge("n-caller", "n-function"),
                       edge("n-caller", "n-int"), edge("n-caller", "n-str")]}
    exact = ask_graph(g0_repo, state_dir, graph, "impact", "packet")
    assert exact.summary["seeds"] == 1 and exact.summary["ambiguous"] is False
    overloads = ask_graph(g0_repo, state_dir, graph, "impact", "render")
    assert overloads.summary["seeds"] == 2 and "unresolved_entities" in overloads.packet["omissions"]
    assert ask_graph(g0_repo, state_dir, graph, "impact", "pack").summary["reason"] == "unresolved"


def test_binding_and_expiry(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    for envelope_hours, max_age, expected in [(1, 3600, "13:00"), (0.5, 3600, "12:30"), (1, 1800, "12:30")]:
        auth = authorization(workspace, expires_in=timedelta(hours=envelope_hours), max_age_seconds=max_age)
        packet = ask(workspace, "impact", "parse_config", auth, now=T).packet
        assert packet["binding"]["expires_at"] == f"2026-01-01T{expected}:00+00:00"
        assert set(packet["binding"]) == {
            "connection", "generation", "identity", "recipients", "repository", "work_item", "policy_version",
            "expires_at",
        }
        assert packet["retrieved_at"] == "2026-01-01T12:00:00+00:00"


@pytest.mark.parametrize("changes", [
    {"generation": "0" * 32}, {"kind": "organization"}, {"state": "pending"}, {"capability_version": True},
])
def test_envelope_problems_are_uncitable(g0_repo: Path, state_dir: Path, changes: dict) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    auth = authorization(workspace, envelope_changes=changes)
    outcome = ask(workspace, "impact", "parse_config", auth, now=T)
    assert outcome.summary["reason"] == "uncitable" and outcome.packet is None


def test_expired_envelope_is_uncitable(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    auth = authorization(workspace, expires_in=timedelta(seconds=-1))
    assert ask(workspace, "impact", "parse_config", auth, now=T).summary["reason"] == "uncitable"


def test_lifecycle_states_block_before_reading(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    write_files(g0_repo, {"example_pkg/extra.py": "x = 1\n"})
    commit_all(g0_repo, "move HEAD")
    stale = ask(workspace, "impact", "parse_config", authorization(workspace), now=T)
    assert stale.summary["reason"] == "stale" and stale.exit_code == 1
    optional = ask(workspace, "impact", "parse_config", authorization(workspace, required=False), now=T)
    assert optional.summary["status"] == "optional_unavailable" and optional.exit_code == 0


def test_corrupt_artifact(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    auth = authorization(workspace)
    from cm_graph.generation.store import read_current

    artifact = read_current(workspace).artifact_path
    data = bytearray(artifact.read_bytes())
    data[600] ^= 1
    artifact.write_bytes(bytes(data))
    assert ask(workspace, "impact", "parse_config", auth, now=T).summary["reason"] == "corrupt"


def test_partial_generation_is_unavailable(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph(), inventory={})
    outcome = ask(workspace, "impact", "parse_config", authorization(workspace, required=False), now=T)
    assert outcome.summary["reason"] == "partial"


def test_packet_names_no_local_path_in_documents(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config")
    rendered = json.dumps(outcome.packet["documents"])
    assert str(g0_repo) not in rendered and "graphify" not in rendered.lower()
    assert "citations" not in json.dumps(outcome.summary)


def test_same_question_same_bytes(g0_repo: Path, state_dir: Path) -> None:
    workspace = publish(g0_repo, state_dir, g0_graph())
    auth = authorization(workspace)
    first = ask(workspace, "impact", "parse_config", auth, now=T).packet
    second = ask(workspace, "impact", "parse_config", auth, now=T).packet
    assert dumps_canonical(first) == dumps_canonical(second)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_permuting_provider_order_never_changes_a_packet_byte(
    g0_repo: Path, tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    graph = g0_graph()
    graph["edges"] += [edge("n-config", "n-report", "references", path="example_pkg/config.py", location="L13"),
                       edge("n-report", "n-report"), edge("n-test", "n-load", "imports")]
    shuffled = json.loads(json.dumps(graph))
    rng = random.Random(seed)
    rng.shuffle(shuffled["nodes"])
    rng.shuffle(shuffled["edges"])
    packets = []
    for variant in (graph, shuffled):
        state = tmp_path_factory.mktemp("perm") / "state"
        workspace = publish(g0_repo, state, variant)
        auth = authorization(workspace)
        for question in ("impact", "dependency", "symbol", "related_tests"):
            outcome = ask(workspace, question, "parse_config", auth, now=T)
            packet = dict(outcome.packet or {}) or outcome.summary
            packet.pop("binding", None)
            packets.append((question, dumps_canonical(packet)))
    half = len(packets) // 2
    assert packets[:half] == packets[half:]


def test_text_budget_leaves_documents_out_and_says_so(g0_repo: Path, state_dir: Path) -> None:
    """Documents past the policy's text budgets are not minted; text_limit says why."""
    full = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config")
    first = len(texts(full)[0].encode())
    limited = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config", max_text_bytes=first + 1)
    assert texts(limited) == texts(full)[:1]
    assert "text_limit" in limited.packet["omissions"] and limited.packet["truncated"] is True
    assert limited.packet["completeness"] == "partial"


def test_packet_byte_budget_drops_the_furthest_documents(g0_repo: Path, state_dir: Path) -> None:
    """A packet never exceeds the policy's max_packet_bytes: documents go from the end."""
    full = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config")
    size = len(dumps_canonical(full.packet))
    limited = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config", max_packet_bytes=size - 1)
    assert len(dumps_canonical(limited.packet)) <= size - 1
    assert texts(limited) == texts(full)[: len(texts(limited))] and len(texts(limited)) < len(texts(full))
    assert "text_limit" in limited.packet["omissions"] and limited.packet["truncated"] is True
    tiny = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config", max_packet_bytes=200)
    assert tiny.summary["reason"] == "uncitable" and tiny.packet is None
