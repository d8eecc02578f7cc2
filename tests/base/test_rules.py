"""Unit tests for the pure validators and the provider vocabulary.

Tables come from the reference (query-and-packet.md §2.2, §2.5 location rules, §2.6 / case 50
kind derivation, §2.9 callable base, §1.6 citation grammar and case 33 scope rules).
"""

from __future__ import annotations

import pytest

from cm_graph.base.errors import InvalidInput, Refusal, Unreadable
from cm_graph.base.rules import (
    MAX_LOCATION_LINE,
    bounded_text,
    citation_in_scope,
    citation_string,
    is_bounded_text,
    parse_location,
    path_in_scope,
)
from cm_graph.index import graphmodel
from cm_graph.index.graphmodel import (
    callable_base,
    is_reviewed_provider,
    is_test_path,
    node_kind,
    normalise_distribution,
    relation_kind,
)

# --- parse_location ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("L1", 1),
        ("L012", 12),
        ("L40", 40),
        ("L9999999", 9_999_999),
        ("L10000000", 10_000_000),
        ("L" + "0" * 30 + "7", 7),  # exactly 32 characters is still a location
        ("", None),
        (None, None),
    ],
)
def test_parse_location_accepts(value: object, expected: int | None) -> None:
    assert parse_location(value, "A node") == expected


@pytest.mark.parametrize(
    "value",
    [
        "12",
        "line 12",
        "L",
        "L0",
        "L00",
        "L-4",
        "L+4",
        "L 12",
        " L12",
        "L12 ",
        "L12\n",
        "l12",
        "L1.5",
        "L1e3",
        "L0x10",
        "L99999999999",
        "L10000001",
        "L²",
        "L١٢",  # Arabic-Indic digits: isdigit() but not ASCII
        "L１２",  # full-width digits
        "L" + "0" * 31 + "1",  # 33 characters
        "L" + "1" * 32,
        12,
        0,
        1.0,
        True,
        False,
        [],
        {},
        ["L12"],
    ],
)
def test_parse_location_refuses(value: object) -> None:
    with pytest.raises(Unreadable) as info:
        parse_location(value, "A node")
    assert info.value.reason == "unreadable"
    assert info.value.message.startswith("A node ")
    if isinstance(value, str) and len(value.strip()) > 2:
        assert value.strip() not in info.value.message  # a refusal never echoes the value


def test_location_bound_is_ten_million() -> None:
    assert MAX_LOCATION_LINE == 10_000_000
    assert parse_location(f"L{MAX_LOCATION_LINE}", "x") == MAX_LOCATION_LINE
    with pytest.raises(Unreadable):
        parse_location(f"L{MAX_LOCATION_LINE + 1}", "x")


def test_location_refusal_is_a_refusal_not_a_value_error() -> None:
    """The historical crash: ``L²`` escaped as ValueError from int()."""
    with pytest.raises(Refusal):
        parse_location("L²", "An edge")
    try:
        parse_location("L²", "An edge")
    except Refusal:
        pass
    except ValueError:  # pragma: no cover - the regression this guards against
        pytest.fail("L² escaped as a ValueError")


# --- path_in_scope / citation_in_scope ---------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "a.py",
        "example_pkg/config.py",
        "tests/test_config.py",
        "src/.gitignore",  # a segment that merely starts with .git
        "src/.github/workflows/ci.yml",
        "graph/x.py",  # "graph" without the dot is an ordinary directory
        "git/config",
        "a b/c d.py",
        "ünïcode/ファイル.py",
        "x" * 1024,
        "a/" * 511 + "bc",  # 1024 characters in many segments
        "...",  # three dots is an ordinary name, not a traversal
        "a/.../b",
    ],
)
def test_path_in_scope_accepts(path: str) -> None:
    assert path_in_scope(path)
    assert citation_in_scope(path, None)
    assert citation_in_scope(path, 1)


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "../sibling/config.py",
        "a/../b.py",
        "a/..",
        "..",
        ".",
        ".git/config",
        ".graph/current",
        ".graphify/nodes.bin",
        ".code-mower/state.json",
        "vendor/.git/config",
        "pkg/.graphify/cache.json",
        ".GIT/config",
        ".Git/HEAD",
        ".GRAPHIFY/x",
        ".Code-Mower/x",
        "a\\b.py",
        "\\etc\\passwd",
        "a//b.py",
        "a/",
        "/",
        "./a.py",
        "a/./b.py",
        "a#b.py",
        "a.py#L12",
        "",
        " ",
        "\t",
        "a\nb.py",
        "a\tb.py",
        "a\x00b.py",
        "a\x7fb.py",
        "a\x85b.py",
        "a\u2028b.py",
        "a\u2029b.py",
        "x" * 1025,
    ],
)
def test_path_in_scope_refuses(path: str) -> None:
    assert not path_in_scope(path)
    assert not citation_in_scope(path, None)
    assert not citation_in_scope(path, 12)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (None, True),
        (1, True),
        (12, True),
        (9_999_999, True),  # seven digits: the citation grammar's limit
        (10_000_000, False),  # eight digits: passes parse_location, cannot be cited
        (99_999_999, False),
        (0, False),
        (-1, False),
    ],
)
def test_citation_line_digits(line: int | None, expected: bool) -> None:
    assert citation_in_scope("example_pkg/config.py", line) is expected


def test_ten_million_parses_but_is_out_of_scope() -> None:
    """Reference §4 item 3: L10000000 passes the location parser and then fails the scope check."""
    line = parse_location("L10000000", "A node")
    assert line == 10_000_000
    assert not citation_in_scope("example_pkg/config.py", line)


def test_citation_string() -> None:
    assert citation_string("example_pkg/config.py", None) == "example_pkg/config.py"
    assert citation_string("example_pkg/config.py", 12) == "example_pkg/config.py#L12"


# --- bounded text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "limit", "expected"),
    [
        ("x", 1, True),
        ("xy", 1, False),
        ("é" * 512, 512, True),  # code points, not bytes
        ("é" * 513, 512, False),
        (" padded ", 16, True),
        ("", 16, False),
        ("   ", 16, False),
        ("a\tb", 16, False),
        ("a\nb", 16, False),
        ("a\x9fb", 16, False),
        ("a\u2028b", 16, False),
        (3, 16, False),
        (None, 16, False),
        (["x"], 16, False),
        (b"x", 16, False),
    ],
)
def test_is_bounded_text(value: object, limit: int, expected: bool) -> None:
    assert is_bounded_text(value, limit) is expected


def test_bounded_text_raises_the_named_refusal() -> None:
    assert bounded_text("ok", "A label", 8, Unreadable) == "ok"
    with pytest.raises(Unreadable) as info:
        bounded_text("x" * 9, "A label", 8, Unreadable)
    assert info.value.reason == "unreadable"
    assert "x" * 9 not in info.value.message
    with pytest.raises(InvalidInput):
        bounded_text("", "A flag")


# --- callable_base (reference §2.9) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "base"),
    [
        ("parse_graph_citation()", "parse_graph_citation"),
        ("render(int)", "render"),
        ("render(Callable[(int)])", "render"),
        ("f(a, (b, c))", "f"),
        ("Outer.method(self)", "Outer.method"),
        ("parse_graph_citation", None),
        ("()", None),
        ("(int)", None),
        ("render(int))", None),
        ("render()x", None),
        ("render(int", None),
        ("ren)der()", None),
        ("f(a)(b)", None),
        ("f((a)", None),
        ("", None),
        (")", None),
    ],
)
def test_callable_base_table(label: str, base: str | None) -> None:
    assert callable_base(label) == base


def test_callable_base_never_empty_string() -> None:
    """An empty base never matches a non-empty target; the reader stores NULL for it."""
    for label in ("()", "", "f(a)(b)", "(x)"):
        assert callable_base(label) is None


# --- node_kind (reference §2.6, case 50) -------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "label", "kind"),
    [
        ("tests/test_config.py", "test_config.py", "test"),
        ("pkg/tests/helpers.py", "helper", "test"),
        ("Tests/x.py", "x", "test"),
        ("pkg/__tests__/x.js", "x", "test"),
        ("__tests__/x.js", "x", "test"),
        ("test/x.py", "x", "test"),
        ("pkg/test/x.py", "x", "test"),
        ("src/foo.test.ts", "foo", "test"),
        ("src/foo.spec.mjs", "foo", "test"),
        ("src/foo.test.jsx", "foo", "test"),
        ("src/foo.spec.tsx", "foo", "test"),
        ("src/foo.test.cjs", "foo", "test"),
        ("src/foo.test.mts", "foo", "test"),
        ("src/foo.spec.cts", "foo", "test"),
        ("src/Foo.TEST.JS", "foo", "test"),
        ("src/foo.test.js", "foo.test.js", "test"),  # test beats file
        ("src/foo.spec.py", "foo", "symbol"),
        ("src/foo.test.json", "foo", "symbol"),
        ("src/foo_spec.rb", "foo", "test"),
        ("src/foo_test.go", "foo", "test"),
        ("src/test_utils.py", "u", "test"),
        ("src/Test_Utils.py", "u", "test"),
        ("bin/test_runner", "test_runner", "test"),  # no extension: stem is the base
        ("src/contest.py", "c", "symbol"),
        ("src/testing/x.py", "x", "symbol"),
        ("src/attest/x.py", "x", "symbol"),
        ("mytests/x.py", "x", "symbol"),
        ("src/latest_test_data/x.py", "x", "symbol"),
        ("src/config.py", "config.py", "file"),
        ("config.py", "config.py", "file"),
        ("Makefile", "Makefile", "file"),
        ("src/config.py", "Config.py", "symbol"),
        ("src/config.py", "config", "symbol"),
        ("src/config.py", "parse_config", "symbol"),
        ("", "anything", "symbol"),
        ("", "", "symbol"),
        ("", "config.py", "symbol"),
    ],
)
def test_node_kind_table(path: str, label: str, kind: str) -> None:
    assert node_kind(path, label) == kind


def test_is_test_path_matches_node_kind() -> None:
    assert is_test_path("tests/test_config.py")
    assert is_test_path("pkg/__tests__/x.js")
    assert not is_test_path("example_pkg/config.py")
    assert not is_test_path("")


# --- relation_kind (reference §2.2) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("relation", "kind"),
    [
        ("calls", "calls"),
        ("imports", "imports"),
        ("defines", "defines"),
        ("contains", "defines"),
        ("references", "references"),
        ("inherits", "inherits"),
        ("implements", "inherits"),
        ("tests", "tests"),
        ("Calls", "related"),
        ("CALLS", "related"),
        ("calls ", "related"),
        ("imports_from", "related"),
        ("supersedes", "related"),
        ("uses", "related"),
        ("method", "related"),
        ("", "related"),
    ],
)
def test_relation_kind_table(relation: str, kind: str) -> None:
    assert relation_kind(relation) == kind


def test_every_kind_is_in_the_schema_vocabulary() -> None:
    assert set(graphmodel.RELATION_KINDS.values()) | {graphmodel.UNMAPPED_KIND} == set(
        graphmodel.KINDS
    )
    assert len(graphmodel.KINDS) == 7


# --- provider vocabulary -----------------------------------------------------------------------


def test_accepted_file_types() -> None:
    assert graphmodel.ACCEPTED_FILE_TYPES == {
        "code",
        "document",
        "paper",
        "image",
        "rationale",
        "concept",
        "doc_ref",
    }
    assert graphmodel.CODE not in graphmodel.NON_CODE_FILE_TYPES


def test_confidences_are_uppercase_only() -> None:
    assert graphmodel.CONFIDENCES == {
        "EXTRACTED": "extracted",
        "INFERRED": "inferred",
        "AMBIGUOUS": "ambiguous",
    }


@pytest.mark.parametrize(
    ("distribution", "version", "reviewed"),
    [
        ("graphifyy", "0.9.58", True),
        ("GraphifyY", "0.9.58", True),  # compared in its normalised spelling
        ("graphifyy", "0.9.60", False),
        ("graphifyy", "0.9.58.post1", False),
        ("graphify", "0.9.58", False),  # another distribution at the same version
        ("graphify-y", "0.9.58", False),
        ("graphifyy", "0.9.5", False),
    ],
)
def test_reviewed_provider(distribution: str, version: str, reviewed: bool) -> None:
    assert is_reviewed_provider(distribution, version) is reviewed


def test_normalise_distribution() -> None:
    assert normalise_distribution("Foo_Bar.baz--qux") == "foo-bar-baz-qux"
