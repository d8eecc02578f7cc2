"""The v3 wire (``shape.encode``) read back (``wire.section_items``) gives every item as composed:
a property over random sections, so no table, shared value, citation id or ``also`` line (a
number in its site's file, or a citation id of another file's line) can lose a field."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cm_graph.base.jsonio import dumps_wire
from cm_graph.base.rules import citation_string
from cm_graph.context.shape import AT_SITE, encode, table
from cm_graph.context.wire import cited, header, section_items

PATHS = st.sampled_from(["pkg/a.py", "pkg/b.py", "tests/test_a.py"])
LINES = st.integers(1, 400)


@st.composite
def items(draw: Any) -> list[dict[str, Any]]:
    found = []
    for number in range(draw(st.integers(0, 8))):
        path, line = draw(PATHS), draw(LINES)
        item: dict[str, Any] = {"label": draw(st.sampled_from(["f()", "g()", ".m()", f"n{number}()"])),
                                "kind": draw(st.sampled_from(["symbol", "test"])), "path": path, "line": line,
                                "hop": draw(st.integers(1, 3))}
        if draw(st.booleans()):
            item["evidence"] = "resolved"
        shape = draw(st.sampled_from(["cited", "uncited", "site", "at_site"]))
        if shape in ("site", "at_site"):
            site_line = draw(LINES)
            item["site"] = {"path": path, "line": site_line, "cite": f"s{number}"}
            if draw(st.booleans()):  # its other lines: in the site's file (numbers), or cited on their own
                item["also"] = [{"path": path, "line": more} for more in draw(st.lists(LINES, max_size=4))]
                if draw(st.booleans()):
                    item["also"].append({"path": "pkg/other.py", "line": draw(LINES), "cite": f"o{number}"})
        item["cite"] = None if shape in ("uncited", "at_site") else f"d{number}"
        if shape == "at_site":
            item[AT_SITE] = True
        found.append(item)
    return found


def _citations(shown: list[dict[str, Any]]) -> list[dict[str, Any]]:
    entries = []
    for item in shown:
        places = [item] if item["cite"] else []
        places += [item["site"]] if item.get("site") else []
        places += [more for more in item.get("also") or [] if "cite" in more]
        entries += [{"id": where["cite"], "path": where["path"], "line": where["line"],
                     "cite": citation_string(where["path"], where["line"])} for where in places]
    return entries


@settings(max_examples=200, deadline=None)
@given(shown=items())
def test_every_item_reads_back_as_it_was_composed(shown: list[dict[str, Any]]) -> None:
    section = {"status": "ok" if shown else "empty", "reason": None if shown else "nothing", "detail": None,
               "shown": len(shown), "total": len(shown), "items": [dict(item) for item in shown]}
    document = {"answer": "", "sections": {"s": section}, "citations": _citations(shown)}
    encode(document)
    wire = document["sections"]["s"]
    assert ("rows" in wire) == bool(shown)
    assert header(wire)["shown"] == len(shown) and header(wire)["status"] == section["status"]
    back = section_items(wire, document["citations"])
    assert len(back) == len(shown)
    for original, read in zip(shown, back, strict=True):
        expected = {key: value for key, value in original.items() if key != AT_SITE}
        if original.get(AT_SITE):
            expected["cite"] = None  # cited at its site alone: no definition citation
        for key, value in expected.items():
            assert read.get(key) == value, (key, original, read)
        assert all(read[key] is None for key in read.keys() - expected.keys())  # another row's column


def test_a_v2_answer_reads_back_as_a_v3_one() -> None:
    """v2 sent citations as one id-to-``path#Lline`` map and ``also`` as citation ids; a reader
    through ``wire`` gets the same items from either version (a feedback record keeps v2 answers)."""
    v2 = {"sections": {"callers": {"status": "ok", "shown": 1, "total": 1, "columns": ["label", "line", "site", "also"],
                                   "rows": [["f()", 3, "c1", ["c2"]]]}},
          "citations": {"c1": "pkg/a.py#L4", "c2": "pkg/a.py#L6"}}
    v3 = {"sections": {"callers": {"status": "ok", "shown": 1, "total": 1, "columns": ["label", "line", "site", "also"],
                                   "rows": [["f()", 3, "c1", [6]]]}},
          "citations": {"pkg/a.py": {"c1": 4}}}
    for document in (v2, v3):
        assert cited(document)["c1"] == "pkg/a.py#L4"
        for citations in (cited(document), document["citations"]):
            [item] = section_items(document["sections"]["callers"], citations)
            assert (item["path"], item["line"], item["site"]) == ("pkg/a.py", 3,
                                                                  {"path": "pkg/a.py", "line": 4, "cite": "c1"})
            assert [(more["path"], more["line"]) for more in item["also"]] == [("pkg/a.py", 6)]


def test_a_column_keeps_values_that_python_calls_equal_but_json_spells_apart() -> None:
    """``shape.spelled`` remembers a scalar's spelling across rows and builds: ``1``, ``True``,
    ``0`` and ``False`` compare equal in Python, but the wire spells them apart: a column where
    every row but one holds ``1`` still names the ``True`` row in ``except``, so each row reads back
    with its own value and type."""
    values: list[Any] = [1] * 30
    values[5], values[20] = True, False
    shown = [{"label": f"f{number}()", "cite": None, "path": "pkg/a.py", "line": number + 1, "mark": value}
             for number, value in enumerate(values)]
    document: dict[str, Any] = {"answer": "", "citations": [], "sections": {"s": {
        "status": "ok", "reason": None, "detail": None, "shown": len(shown), "total": len(shown),
        "items": [dict(item) for item in shown]}}}
    encode(document)
    back = section_items(document["sections"]["s"], document["citations"])
    assert [(type(item["mark"]), item["mark"]) for item in back] == [(type(value), value) for value in values]


def test_a_column_is_named_in_except_exactly_when_that_is_shorter_as_the_wire_spells_both() -> None:
    """``shape.table`` weighs a column against ``same`` plus ``except`` by summing spelt lengths
    instead of writing both out: its choice is the shorter layout as ``dumps_wire`` writes them,
    with values the wire escapes (a bidi control, non-ASCII, a quote) and row indexes of two
    digits, and both choices occur."""
    chose = set()
    for others in range(1, 14):
        for odd in ("x", "é\u202e\"q", "a-much-longer-odd-value", 7, None):
            values: list[Any] = ["kind"] * 15
            for index in range(others):
                values[14 - index] = odd if index % 2 else f"{odd}{index}"
            items = [{"label": f"f{number}", "mark": value} for number, value in enumerate(values)]
            wire = table(items)
            counted = {dumps_wire(v): values.count(v) for v in values}
            common = max(counted, key=counted.__getitem__)
            held = next(v for v in values if dumps_wire(v) == common)
            named_rows = {str(i): v for i, v in enumerate(values) if dumps_wire(v) != common}
            as_column = len(dumps_wire("mark")) + 1 + sum(len(dumps_wire(v)) + 1 for v in values)
            named = 2 * (len(dumps_wire("mark")) + 2) + len(dumps_wire(held)) + len(dumps_wire(named_rows))
            if named < as_column:
                assert (wire["same"]["mark"], wire["except"]["mark"]) == (held, named_rows)
            else:
                assert "mark" in wire["columns"] and "mark" not in wire.get("except", {})
            chose.add(named < as_column)
    assert chose == {True, False}
