"""Extraction gaps found and named (issue 27 item 4), on the real releases the provider drops
definitions of, built with the pinned provider.

jinja2 3.1.4: ``Environment.compile`` (three defining lines: two ``@overload`` stubs and the
body) and ``Environment._parse`` are not in the graph, their ids taken by ``._compile()`` and
``.parse()``; ``make_logging_undefined``'s nested ``LoggingUndefined`` class is dropped too.
immer 10.1.1: ``src/types/types-external.ts`` stops at line 131, so ``IProduce``,
``IProduceWithPatches``, ``Producer`` and ``never_used`` are missing. The text index's lexer reads
every defining line; a lexed definition whose name the graph defines nowhere in that file is a
gap, counted per file in the build summary, ``status`` and ``doctor``, and named by an answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cm_graph.context.wire import cited
from cm_graph.index.definition_gaps import defining_names

from ..generation.test_lifecycle import cli, where
from ..support.releases import npm_release, pypi_release


@pytest.fixture(scope="module")
def jinja(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("jinja")
    repo = pypi_release(root / "repo", "jinja2", "3.1.4", "jinja2")
    built = cli("build", *where(repo, root / "state"), "--json")
    assert built.code == 0, built.err
    return repo, root / "state", built.out


def _by_file(value: dict[str, Any]) -> dict[str, list[tuple[str, int, int]]]:
    return {item["path"]: [(n["name"], n["line"], n["lines"]) for n in item["names"]] for item in value["by_file"]}


def test_the_lexer_reads_defining_lines_not_strings() -> None:
    text = (b'def outer():\n    """\n    def in_a_docstring():\n    """\n    class Inner:\n        pass\n'
            b"async def later(x): return x\n@overload\ndef later(y): ...\n")
    assert defining_names("m.py", text) == [("outer", 1), ("Inner", 5), ("later", 7), ("later", 9)]
    ts = (b"export interface IProduce {\n  (x: number): void\n}\n// function commented() {}\n"
          b"export type Producer<T> = (draft: T) => void\nexport function never_used() {}\nconst x = 1\n")
    assert defining_names("t.ts", ts) == [("IProduce", 1), ("Producer", 5), ("never_used", 6)]
    # msgpack's generated C: a forward declaration or an extern names a struct, it defines none.
    c = (b"struct Packer;\nextern struct PyModuleDef moduledef;\nstruct Unpacker {\n  int depth;\n};\n"
         b"enum Kind\n{ A };\n")
    assert defining_names("m.c", c) == [("Unpacker", 3), ("Kind", 6)]


@pytest.mark.provider
def test_jinja2_gaps_are_counted_per_file_in_the_summary_status_and_doctor(
        jinja: tuple[Path, Path, dict[str, Any]]) -> None:
    repo, state, summary = jinja
    assert (summary["definition_gaps"]["definitions"], summary["definition_gaps"]["files"]) == (3, 2)
    status = cli("status", *where(repo, state), "--json")
    definitions = status.out["cm_graph"]["coverage"]["definitions"]
    assert (definitions["gaps"], definitions["files"]) == (3, 2)
    assert _by_file(definitions) == {
        "jinja2/environment.py": [("_parse", 615, 1), ("compile", 709, 3)],
        "jinja2/runtime.py": [("LoggingUndefined", 937, 1)],
    }
    human = " ".join(cli("status", *where(repo, state)).out.split())
    assert "definition_gaps" in human and "jinja2/environment.py 2 (_parse, compile)" in human
    doctor = cli("doctor", *where(repo, state), "--json")
    check = {c["check"]: c for c in doctor.out["checks"]}["definitions"]
    assert check["status"] == "warn" and "3 definitions" in check["message"]
    assert "jinja2/environment.py 2 (_parse, compile)" in check["message"] and "text only" in check["remediation"]


@pytest.mark.provider
def test_immer_types_external_is_cut_at_line_131(tmp_path: Path) -> None:
    repo = npm_release(tmp_path / "repo", "immer", "10.1.1")
    built = cli("build", *where(repo, tmp_path / "state"), "--json")
    assert built.code == 0, built.err
    status = cli("status", *where(repo, tmp_path / "state"), "--json")
    gaps = _by_file(status.out["cm_graph"]["coverage"]["definitions"])
    assert gaps["src/types/types-external.ts"] == [
        ("IProduce", 164, 1), ("IProduceWithPatches", 218, 1), ("Producer", 235, 1), ("never_used", 239, 1)]
    # What is in the graph is no gap: the file's first twenty definitions, up to line 131.
    assert all(line > 131 for _name, line, _lines in gaps["src/types/types-external.ts"])
    document = cli("context", "usage", "IProduce", *where(repo, tmp_path / "state"), "--json").out
    anchor = document["anchors"][0]
    assert (anchor["evidence"], anchor["path"], anchor["line"]) == ("textual", "src/types/types-external.ts", 164)


@pytest.mark.provider
def test_an_answer_about_a_dropped_definition_says_so_from_the_text(
        jinja: tuple[Path, Path, dict[str, Any]]) -> None:
    repo, state, _summary = jinja
    document = cli("context", "usage", "Environment.compile", *where(repo, state), "--json").out
    assert document["status"] == "unresolved"
    anchor = document["anchors"][0]
    assert anchor["evidence"] == "textual" and anchor["gap"] is True
    assert (anchor["label"], anchor["path"], anchor["line"], anchor["lines"]) == (
        "compile", "jinja2/environment.py", 709, 3)
    assert anchor["cite"] in cited(document)
    answer = document["answer"]
    assert "extraction gap" in answer and "jinja2/environment.py#L709" in answer
    assert "(textual; 3 defining lines)" in answer
    # An answer that resolves to a definition of such a file names what the graph lacks there.
    resolved = cli("context", "how", "Environment", *where(repo, state), "--json").out
    assert resolved["status"] == "answered"
    # (the resolved callees it cites are in runtime.py too, whose gap the same sentence names)
    assert ("The graph lacks definitions the text holds (extraction gaps) in jinja2/environment.py (2: "
            "_parse at L615, compile at L709); jinja2/runtime.py (1: LoggingUndefined at L937), so what it says "
            "of those files is incomplete.") in resolved["answer"]
    asked = cli("ask", "symbol", "compile", *where(repo, state))
    said = " ".join(asked.err.split())
    assert asked.code == 1 and "extraction gap" in said and "jinja2/environment.py:709" in said


@pytest.mark.provider
def test_the_build_summary_counts_the_gaps_per_file(jinja: tuple[Path, Path, dict[str, Any]]) -> None:
    _repo, _state, summary = jinja
    assert summary["definition_gaps"]["by_file"] == {"jinja2/environment.py": 2, "jinja2/runtime.py": 1}


@pytest.mark.provider
def test_symbols_of_a_file_names_the_definitions_the_graph_lacks_there(
        jinja: tuple[Path, Path, dict[str, Any]]) -> None:
    repo, state, _summary = jinja
    listed = cli("symbols", "jinja2/environment.py", *where(repo, state), "--json").out
    assert listed["dropped"] == [
        {"name": "_parse", "line": 615, "lines": 1, "evidence": "textual"},
        {"name": "compile", "line": 709, "lines": 3, "evidence": "textual"}]
    assert all(symbol["label"] not in ("compile", "_parse") for symbol in listed["symbols"])
    human = " ".join(cli("symbols", "jinja2/environment.py", *where(repo, state)).out.split())
    assert "The text also defines 2 the graph lacks (extraction gaps; textual): _parse L615, compile L709" in human
    clean = cli("symbols", "jinja2/loaders.py", *where(repo, state), "--json").out
    assert "dropped" not in clean


@pytest.mark.provider
def test_an_agents_ask_about_a_dropped_definition_names_it_and_the_text_answer(
        jinja: tuple[Path, Path, dict[str, Any]]) -> None:
    pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")
    from cm_graph.connections.store import ConnectionStore, connect
    from cm_graph.surfaces.authority import Caller
    from cm_graph.surfaces.dispatch import call_tool
    from cm_graph.surfaces.tools import BY_NAME

    repo, state, _summary = jinja
    connect(ConnectionStore(state), "jinja-graph", repo, ["pallets/jinja"], ["agent@test"])
    reply = call_tool(Caller(state, "jinja-graph", "agent@test"), BY_NAME["ask"],
                      {"question": "impact", "target": "Environment.compile"}).payload
    assert reply["status"] == "unavailable" and reply["reason"] == "unresolved"
    said = " ".join(reply["answer"].split())
    assert "extraction gap" in said and "jinja2/environment.py:709" in said
    first = reply["next_actions"][0]
    assert (first["tool"], first["arguments"]) == ("code_context", {"intent": "usage", "target": "Environment.compile"})


def test_the_gaps_sentence_names_a_few_per_file_and_counts_the_rest() -> None:
    """effect's ``Schema.ts`` dropped 139 definitions: the status cell and the doctor's message
    named every one of the 50 the record keeps. A file's first eight are named and the rest
    counted; the JSON keeps them all."""
    from cm_graph.generation.definitions import gaps_sentence

    many = {"path": "src/Schema.ts", "count": 139, "names": [{"name": f"N{i}", "line": i} for i in range(50)]}
    few = {"path": "src/a.ts", "count": 2, "names": [{"name": "f", "line": 1}, {"name": "g", "line": 2}]}
    said = gaps_sentence({"gaps": 141, "files": 2, "by_file": [many, few]})
    assert said == ("141 definitions in 2 file(s): src/Schema.ts 139 (N0, N1, N2, N3, N4, N5, N6, N7, …and 131 more); "
                    "src/a.ts 2 (f, g)")
