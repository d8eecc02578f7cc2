"""`cm-graph ask` as a new user meets it (issue 15): the answer as data, the definitions it used,
suggestions for a name that resolves to nothing, bounds that name themselves, and a view that
reads at 80 and at 200 columns without cutting a citation.

A real git repository, a generation published through the shared code, the real SQLite index and
the typer app; the graph has methods of two classes that share a name, a name carried by more
definitions than the seed bound, and an import of an undeclared module.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cm_graph.cli.app import app

from ..support.g0 import edge, node
from ..support.helpers import make_repo, numbered_lines, publish

RUNNER = CliRunner()
CITATION = re.compile(r"[\w./]+#L\d+")


def _graph() -> dict[str, Any]:
    runs = [node(f"r{n}", "run()", "pkg/core.py" if n < 8 else "pkg/other.py", f"L{40 + n}") for n in range(10)]
    return {
        "nodes": [
            node("f-core", "core.py", "pkg/core.py", "L1"),
            node("c-ctx", "Context", "pkg/core.py", "L3"),
            node("m-ens", ".ensure_object()", "pkg/core.py", "L5"),
            node("m-inv1", ".invoke()", "pkg/core.py", "L10"),
            node("c-cmd", "Command", "pkg/other.py", "L2"),
            node("m-inv2", ".invoke()", "pkg/other.py", "L5"),
            node("echo", "echo()", "pkg/core.py", "L20"),
            node("main", "main()", "pkg/other.py", "L30"),
            node("test", "test_main()", "tests/test_core.py", "L3"),
            *runs,
        ],
        "edges": [
            edge("c-ctx", "m-ens", "method", path="pkg/core.py", location="L5"),
            edge("c-ctx", "m-inv1", "method", path="pkg/core.py", location="L10"),
            edge("c-cmd", "m-inv2", "method", path="pkg/other.py", location="L5"),
            edge("main", "echo", path="pkg/other.py", location="L31"),
            edge("main", "m-inv1", path="pkg/other.py", location="L32"),
            edge("main", "m-inv2", path="pkg/other.py", location="L33"),
            edge("main", "r9", path="pkg/other.py", location="L34"),
            edge("main", "os", "imports", path="pkg/other.py", location="L1"),
            edge("test", "main", path="tests/test_core.py", location="L4"),
        ],
    }


@pytest.fixture
def where(tmp_path: Path) -> list[str]:
    repo = make_repo(tmp_path / "repo", {
        "pkg/core.py": numbered_lines(60), "pkg/other.py": numbered_lines(60),
        "tests/test_core.py": numbered_lines(30),
    })
    publish(repo, tmp_path / "state", _graph())
    return ["--repo-path", str(repo), "--state-dir", str(tmp_path / "state")]


def ask(where: list[str], *args: str, columns: int = 200) -> Result:
    return RUNNER.invoke(app, ["ask", *args, *where], env={"COLUMNS": str(columns)})


def ask_json(where: list[str], *args: str) -> list[dict[str, Any]]:
    result = ask(where, *args, "--json")
    return json.loads(result.stdout)["answers"]


def test_json_carries_the_whole_answer(where: list[str]) -> None:
    (data,) = ask_json(where, "impact", "echo")
    assert data["resolved"] and data["matched_definitions"] == 1
    (seed,) = data["seeds"]
    assert (seed["label"], seed["kind"], seed["citation"], seed["provider_id"]) == (
        "echo()", "symbol", "pkg/core.py#L20", "echo",
    )
    first, second = data["relationships"]
    assert (first["hop"], first["source"]["label"], first["relation"], first["target"]["label"]) == (
        1, "main()", "calls", "echo()",
    )
    assert first["call_site"] == "pkg/other.py#L31" and first["confidence"] == "extracted"
    assert first["citations"] == ["pkg/other.py#L30", "pkg/core.py#L20", "pkg/other.py#L31"]
    assert second["hop"] == 2 and second["reached_from"]["label"] == "main()"
    assert second["source"]["provider_id"] == "test"
    assert data["omissions"] == ["provider_partial"] and data["undeclared_endpoints"] == ["os"]


def test_several_targets_are_each_answered_and_query_refuses_a_repeated_target(
    where: list[str], tmp_path: Path
) -> None:
    answers = ask_json(where, "impact", "echo", "main")
    assert [a["target"] for a in answers] == ["echo", "main"]
    assert all(a["resolved"] for a in answers)
    repeated = RUNNER.invoke(app, [
        "query", "--question", "impact", "--target", "echo", "--target", "main",
        "--authorization", str(tmp_path / "auth.json"), *where,
    ])
    assert repeated.exit_code == 2 and "--target once" in repeated.stderr and repeated.stdout == ""


def test_the_seed_bound_says_what_it_dropped_and_in_narrows(where: list[str]) -> None:
    (data,) = ask_json(where, "impact", "run")
    assert data["matched_definitions"] == 10 and len(data["seeds"]) == 8
    assert data["relationships"] == [] and data["truncated"]
    (cut,) = data["bounds_hit"]
    assert (cut["bound"], cut["dropped"], cut["remedy"]) == ("seeds", 2, "--in PATH")
    shown = ask(where, "impact", "run").stdout
    assert "the name matches 10 definitions, the first 8 used" in shown
    assert "... and 2 more, not used" in shown and "seed bound (8)" in shown

    (narrowed,) = ask_json(where, "impact", "run", "--in", "pkg/other.py")
    assert narrowed["matched_definitions"] == 2 and not narrowed["bounds_hit"]
    assert [r["source"]["label"] for r in narrowed["relationships"]][:1] == ["main()"]
    assert all(s["path"] == "pkg/other.py" for s in narrowed["seeds"])


def test_methods_of_two_classes_are_told_apart(where: list[str]) -> None:
    (data,) = ask_json(where, "impact", ".invoke")
    assert [s["container"] for s in data["seeds"]] == ["Context", "Command"]
    shown = ask(where, "impact", ".invoke").stdout
    assert "main() calls Context.invoke()" in shown and "main() calls Command.invoke()" in shown
    assert ".invoke() (symbol in Context) pkg/core.py#L10" in shown


@pytest.mark.parametrize(("typed", "expected"), [
    ("ecko", "echo()"),
    ("Contxet", "Context"),  # a swap is one edit (issue 32 item 3): two under Levenshtein, past the cap of 1
    ("Cotnext", "Context"),
    ("other.py", "pkg/other.py"),
])
def test_an_unresolved_name_gets_ranked_suggestions(where: list[str], typed: str, expected: str) -> None:
    result = ask(where, "impact", typed)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"cm-graph: unresolved: {typed} names no symbol")
    assert f"Did you mean: {expected}" in result.stderr
    (data,) = json.loads(ask(where, "impact", typed, "--json").stdout)["answers"]
    assert not data["resolved"] and data["suggestions"][0]["text"] == expected


def test_a_method_of_another_class_is_not_suggested(where: list[str]) -> None:
    (data,) = ask_json(where, "impact", "Command.ensure_object")
    assert all(item["why"] != "method" for item in data["suggestions"])


def test_truncation_names_its_bound_and_the_flag_that_lifts_it(where: list[str]) -> None:
    (budget,) = ask_json(where, "impact", "echo", "--node-budget", "1")
    assert [c["text"] for c in budget["bounds_hit"]] == [
        "cut by the node budget (1): rerun with --node-budget 3",
    ]
    (depth,) = ask_json(where, "impact", "echo", "--depth", "1")
    assert [c["text"] for c in depth["bounds_hit"]] == [
        "stopped at depth 1 on 1 node with more behind them: --depth 2",
    ]
    assert "truncated: stopped at depth 1" in ask(where, "impact", "echo", "--depth", "1").stdout


@pytest.mark.parametrize("columns", [80, 200])
def test_the_view_never_cuts_a_citation(where: list[str], columns: int) -> None:
    result = ask(where, "dependency", "main", columns=columns)
    assert result.exit_code == 0, result.stderr
    (data,) = ask_json(where, "dependency", "main")
    lines = result.stdout.splitlines()
    cited = {c for row in data["relationships"] for c in row["citations"]}
    shown = {c for line in lines for c in CITATION.findall(line)}
    assert cited - {s["citation"] for s in data["seeds"]} <= shown
    assert all(len(line) <= columns for line in lines)
    assert "impact:" not in result.stdout and "dependency:" not in result.stdout
    hop2 = ask(where, "impact", "echo", columns=columns).stdout
    assert "via main()" in hop2


REAL_PACKAGE = {
    "pkg/cli/core.py": (
        "class Context:\n"
        "    def ensure_object(self, kind):\n"
        "        return kind()\n"
        "\n"
        "\n"
        "def echo(message):\n"
        "    print(message)\n"
    ),
    "pkg/cli/main.py": (
        "from pkg.cli.core import Context, echo\n"
        "\n"
        "\n"
        "def run():\n"
        "    echo(Context().ensure_object(dict))\n"
    ),
}


@pytest.mark.provider
def test_suggestions_on_a_graph_the_real_provider_built(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", REAL_PACKAGE)
    where = ["--repo-path", str(repo), "--state-dir", str(tmp_path / "state")]
    built = RUNNER.invoke(app, ["build", "--json", *where])
    assert built.exit_code == 0, built.stderr
    for typed, expected in (
        ("ecko", "echo()"),
        ("Contxet", "Context"),
        ("cli/main.py", "pkg/cli/main.py"),  # a path tail (a bare file name is the file node's label)
    ):
        (data,) = ask_json(where, "impact", typed)
        assert not data["resolved"] and data["suggestions"][0]["text"] == expected, (typed, data["suggestions"])
    # The method as the provider labels it, and as the target grammar spells it (issue 26 item 3).
    for typed in (".ensure_object", "ensure_object", "Context.ensure_object", "pkg/cli/core.py::ensure_object"):
        (method,) = ask_json(where, "impact", typed)
        assert [(s["label"], s["container"]) for s in method["seeds"]] == [(".ensure_object()", "Context")], typed


def test_the_document_limit_is_named_when_a_packet_would_hold_fewer(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/hub.py": numbered_lines(60)})
    callers = [node(f"c{n:02}", f"caller_{n:02}()", "pkg/hub.py", f"L{n + 10}") for n in range(20)]
    graph = {
        "nodes": [node("hub", "hub()", "pkg/hub.py", "L1"), *callers],
        "edges": [edge(c["id"], "hub", path="pkg/hub.py", location=c["source_location"]) for c in callers],
    }
    publish(repo, tmp_path / "state", graph)
    where = ["--repo-path", str(repo), "--state-dir", str(tmp_path / "state")]
    (data,) = ask_json(where, "impact", "hub")
    assert [c["text"] for c in data["bounds_hit"]] == [
        "a packet holds 16 of 20 relationships (document limit); this view shows them all",
    ]
    assert not data["truncated"]  # the walk itself was complete: only a packet would be shorter


def test_query_metadata_never_carries_suggestions(tmp_path: Path) -> None:
    from ..support.askkit import ask_graph

    repo = make_repo(tmp_path / "repo", {
        "pkg/core.py": numbered_lines(60), "pkg/other.py": numbered_lines(60),
        "tests/test_core.py": numbered_lines(30),
    })
    outcome = ask_graph(repo, tmp_path / "state", _graph(), "impact", "ecko")
    assert outcome.summary["reason"] == "unresolved"
    assert "echo" not in json.dumps(outcome.summary)  # stdout of `query` is metadata only


@pytest.mark.parametrize("typed", ["ensure_object", "Context.ensure_object", "pkg/core.py::ensure_object",
                                   "pkg/core.py::ensure_object#L5", "pkg/core.py#L5", "core.Context.ensure_object"])
def test_ask_reads_a_target_by_the_grammar_code_context_reads_it_by(where: list[str], typed: str) -> None:
    """Issue 26 item 3: the spellings ``context`` writes in its own next actions (``path::name``,
    ``path::name#L<n>``, ``path#L<n>``) and those an agent writes (``Class.method``, ``module.func``,
    a method without its dot) name the same definition in ``ask`` (before, each was unresolved,
    with ``.ensure_object()`` as a suggestion)."""
    (data,) = json.loads(ask(where, "impact", typed, "--json").stdout)["answers"]
    assert data["resolved"], data
    assert [(s["label"], s["path"], s["line"]) for s in data["seeds"]] == [(".ensure_object()", "pkg/core.py", 5)]
    assert data["matched_definitions"] == 1 and data["definitions"][0]["label"] == ".ensure_object()"
