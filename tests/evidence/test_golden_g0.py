"""The reference's worked example over G0 (§3 A and B) as golden tests.

Where the seed and the reference notes differ, these follow the seed: any omission (including
unresolved_entities or provider_warning alone) makes the packet and query_completeness partial.
The whole packet of each question is also held byte for byte to its case folder in
``fixtures/cases/golden/g0/`` (``tests/support/golden.py`` says what is masked and how to
regenerate them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cm_graph.base.errors import InvalidInput

from ..support.askkit import ask_graph, citations, texts
from ..support.fixturecases import GOLDEN_PACKETS
from ..support.g0 import edge, g0_graph, node
from ..support.golden import case_input, minted_text


def test_impact_parse_config(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config")
    assert texts(outcome) == [
        "impact: load calls parse_config (extracted, hop 1, symbol at example_pkg/loader.py)",
        "impact: test_parse_config tests parse_config (extracted, hop 1, test at tests/test_config.py)",
        "impact: render calls load (inferred, hop 2, reached from parse_config, symbol at example_pkg/report.py)",
    ]
    packet = outcome.packet
    assert packet is not None
    assert [d["confidence"] for d in packet["documents"]] == ["extracted", "extracted", "inferred"]
    assert citations(outcome, 0) == [
        ("example_pkg/loader.py#L40", "symbol load"),
        ("example_pkg/config.py#L12", "symbol parse_config"),
    ]
    assert citations(outcome, 2) == [
        ("example_pkg/report.py#L5", "symbol render"),
        ("example_pkg/loader.py#L40", "symbol load"),
    ]
    assert packet["omissions"] == [] and packet["completeness"] == "complete"
    assert packet["truncated"] is False
    summary = outcome.summary
    assert (summary["seeds"], summary["relations"], summary["documents"]) == (1, 3, 3)
    assert summary["ambiguous"] is False
    assert summary["generation_completeness"] == summary["query_completeness"] == "complete"
    assert outcome.exit_code == 0


@pytest.mark.parametrize("folder", GOLDEN_PACKETS.params())
def test_the_packet_is_its_golden_file_byte_for_byte(g0_repo: Path, state_dir: Path, folder: Path) -> None:
    golden = GOLDEN_PACKETS.read(folder)["packet.json"].decode("utf-8")
    minted = minted_text(g0_repo, state_dir, *case_input(folder))
    assert minted == golden, "python -m tests.support.golden, then review the diff"


def test_impact_depth_one_stops_at_boundary_with_more_behind(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config", depth=1)
    assert [t.split(" (")[0] for t in texts(outcome)] == [
        "impact: load calls parse_config", "impact: test_parse_config tests parse_config",
    ]
    assert outcome.packet["omissions"] == ["provider_has_more"]
    assert outcome.packet["completeness"] == "partial" and outcome.packet["truncated"] is True


@pytest.mark.parametrize(("budget", "count", "truncated"), [(1, 1, True), (2, 2, True), (3, 3, False)])
def test_impact_budgets(g0_repo: Path, state_dir: Path, budget: int, count: int, truncated: bool) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config", node_budget=budget)
    assert len(texts(outcome)) == count
    assert outcome.packet["truncated"] is truncated
    assert ("provider_has_more" in outcome.packet["omissions"]) is truncated


def test_dependency_load(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "dependency", "load")
    assert texts(outcome) == [
        "dependency: load calls parse_config (extracted, hop 1, symbol at example_pkg/config.py)"
    ]
    assert outcome.packet["completeness"] == "complete"


@pytest.mark.parametrize(("required", "status", "work", "code"), [
    (True, "required_unavailable", "paused", 1), (False, "optional_unavailable", "usable", 0),
])
def test_dependency_of_a_leaf_is_uncitable(
    g0_repo: Path, state_dir: Path, required: bool, status: str, work: str, code: int
) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "dependency", "parse_config", required=required)
    assert outcome.packet is None
    assert outcome.summary["status"] == status and outcome.summary["reason"] == "uncitable"
    assert outcome.summary["dependent_work"] == work and outcome.exit_code == code


def test_related_tests_keeps_only_tests(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "related_tests", "parse_config")
    assert texts(outcome) == [
        "related_tests: test_parse_config tests parse_config (extracted, hop 1, test at tests/test_config.py)"
    ]
    assert outcome.summary["relations"] == 1 and outcome.packet["truncated"] is False


def test_symbol_neighbourhood(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "symbol", "parse_config")
    assert [t.split(" (")[0] for t in texts(outcome)] == [
        "symbol: config.py contains parse_config",
        "symbol: load calls parse_config",
        "symbol: test_parse_config tests parse_config",
    ]
    assert texts(outcome)[0] == (
        "symbol: config.py contains parse_config (extracted, hop 1, file at example_pkg/config.py)"
    )
    assert citations(outcome, 0) == [
        ("example_pkg/config.py#L1", "file config.py"),
        ("example_pkg/config.py#L12", "symbol parse_config"),
    ]
    assert outcome.packet["omissions"] == ["provider_has_more"]


def test_symbol_on_two_nodes_is_complete(g0_repo: Path, state_dir: Path) -> None:
    graph = {"nodes": [node("a", "alpha", "example_pkg/config.py", "L12"),
                       node("b", "beta", "example_pkg/loader.py", "L40")],
             "edges": [edge("a", "b")]}
    outcome = ask_graph(g0_repo, state_dir, graph, "symbol", "alpha")
    assert len(texts(outcome)) == 1 and outcome.packet["completeness"] == "complete"


@pytest.mark.parametrize(("required", "code"), [(True, 1), (False, 0)])
def test_unresolved_target(g0_repo: Path, state_dir: Path, required: bool, code: int) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "no_such_symbol", required=required)
    assert outcome.summary["reason"] == "unresolved" and outcome.exit_code == code
    assert outcome.packet is None


@pytest.mark.parametrize("target", ["", "   ", "a\nb", "x" * 513])
def test_invalid_target_raises(g0_repo: Path, state_dir: Path, target: str) -> None:
    with pytest.raises(InvalidInput):
        ask_graph(g0_repo, state_dir, g0_graph(), "impact", target)


@pytest.mark.parametrize(("depth", "budget"), [(0, None), (5, None), ("2", None), (None, 0), (None, 201), (None, True)])
def test_invalid_bounds_raise(g0_repo: Path, state_dir: Path, depth: object, budget: object) -> None:
    with pytest.raises(InvalidInput):
        ask_graph(g0_repo, state_dir, g0_graph(), "impact", "parse_config", depth=depth, node_budget=budget)


def test_path_target_seeds_file_and_symbols(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "example_pkg/config.py")
    assert outcome.summary["seeds"] == 2 and outcome.summary["ambiguous"] is True
    assert [t.split(" (")[0] for t in texts(outcome)] == [
        "impact: load calls parse_config", "impact: test_parse_config tests parse_config",
        "impact: render calls load",
    ]
    assert outcome.packet["omissions"] == ["unresolved_entities"]
    # The seed: query_completeness is partial whenever an omission applies.
    assert outcome.packet["completeness"] == "partial" and outcome.packet["truncated"] is False


def test_path_is_exact_not_prefix(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, g0_graph(), "impact", "example_pkg")
    assert outcome.summary["reason"] == "unresolved"


def test_relationships_among_path_seeds(g0_repo: Path, state_dir: Path) -> None:
    graph = {"nodes": [node("a", "alpha", "example_pkg/config.py", "L12"),
                       node("b", "beta", "example_pkg/config.py", "L20")],
             "edges": [edge("a", "b")]}
    outcome = ask_graph(g0_repo, state_dir, graph, "dependency", "example_pkg/config.py")
    assert [t.split(" (")[0] for t in texts(outcome)] == ["dependency: alpha calls beta"]


def _pair(*edges: dict) -> dict:
    return {"nodes": [node("a", "alpha", "example_pkg/config.py", "L12"),
                      node("b", "beta", "example_pkg/loader.py", "L40")], "edges": list(edges)}


def test_two_way_cycle(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _pair(edge("a", "b"), edge("b", "a")), "impact", "alpha")
    assert texts(outcome) == [
        "impact: beta calls alpha (extracted, hop 1, symbol at example_pkg/loader.py)",
        "impact: alpha calls beta (extracted, hop 2, reached from alpha, symbol at example_pkg/config.py)",
    ]
    assert outcome.packet["truncated"] is False


def test_two_way_cycle_depth_one_is_truncated(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _pair(edge("a", "b"), edge("b", "a")), "impact", "alpha", depth=1)
    assert len(texts(outcome)) == 1 and outcome.packet["truncated"] is True


def test_reconvergence_keeps_both_edges(g0_repo: Path, state_dir: Path) -> None:
    graph = {"nodes": [node("a", "alpha", "example_pkg/config.py", "L1"), node("b", "b", "example_pkg/config.py", "L2"),
                       node("c", "c", "example_pkg/config.py", "L3"), node("d", "d", "example_pkg/config.py", "L4")],
             "edges": [edge("a", "b"), edge("a", "c"), edge("b", "d"), edge("c", "d")]}
    outcome = ask_graph(g0_repo, state_dir, graph, "dependency", "alpha")
    assert [t.split(" (")[0] for t in texts(outcome)] == [
        "dependency: alpha calls b", "dependency: alpha calls c", "dependency: b calls d", "dependency: c calls d",
    ]
    assert outcome.packet["truncated"] is False


def test_self_loop_and_parallel_wording(g0_repo: Path, state_dir: Path) -> None:
    graph = _pair(edge("a", "a"), edge("a", "b"), edge("a", "b", "references"))
    outcome = ask_graph(g0_repo, state_dir, graph, "symbol", "alpha")
    assert [t.split(" (")[0] for t in texts(outcome)] == [
        "symbol: alpha calls alpha", "symbol: alpha calls beta", "symbol: alpha references beta",
    ]
    assert citations(outcome, 0) == [("example_pkg/config.py#L12", "symbol alpha")]
    assert "provider_warning" not in outcome.packet["omissions"]


def test_byte_identical_duplicates_are_one(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(g0_repo, state_dir, _pair(edge("a", "b"), edge("a", "b")), "dependency", "alpha")
    assert len(texts(outcome)) == 1 and outcome.packet["truncated"] is False


def test_two_call_sites_are_two_relationships(g0_repo: Path, state_dir: Path) -> None:
    graph = _pair(edge("a", "b", path="example_pkg/config.py", location="L13"),
                  edge("a", "b", path="example_pkg/config.py", location="L14"))
    outcome = ask_graph(g0_repo, state_dir, graph, "dependency", "alpha")
    assert len(texts(outcome)) == 2
    assert citations(outcome, 0) == [
        ("example_pkg/loader.py#L40", "symbol beta"),
        ("example_pkg/config.py#L12", "symbol alpha"),
        ("example_pkg/config.py#L13", "call site: calls"),
    ]
    assert citations(outcome, 1)[2] == ("example_pkg/config.py#L14", "call site: calls")


def test_confidence_is_part_of_identity(g0_repo: Path, state_dir: Path) -> None:
    outcome = ask_graph(
        g0_repo, state_dir, _pair(edge("a", "b"), edge("a", "b", confidence="INFERRED")), "dependency", "alpha"
    )
    assert len(texts(outcome)) == 2
