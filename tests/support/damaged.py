"""Named damaged graphs, one folder per case under ``fixtures/cases/damaged/<case>/``:
``graph.json`` (the document), ``expected.json`` (the reason code and the sentence the importer
refuses it with) and a one-line ``README``; ``tests/index/test_damaged_cases.py`` runs every folder.

Documents whose top level is not a graph are hand-written (the folder is the source). G0's bytes
broken so no strict JSON reader accepts them, or so an object repeats a key, are generated from
the ``RECIPES`` below (``tests/project/test_fixtures.py`` holds their folders to them). After
adding a folder, changing a recipe or changing a refusal, regenerate and review the diff::

    python -m tests.support.damaged

It writes each recipe's ``graph.json`` and ``README``, then every folder's ``expected.json`` as
the importer refuses its graph today; a graph the importer accepts stops it (a damaged case must
be refused). The random damage of the adversarial sweeps (``adversarial.py``,
``test_damaged_graphs.py``) is drawn from a seed, not kept as folders.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from cm_graph.base.errors import Refusal
from cm_graph.base.jsonio import dumps_pretty
from cm_graph.index.ensure import ensure_index

from .documentkit import g0_bytes, publish_graph
from .fixturecases import DAMAGED
from .g0 import make_g0_repo

# The opening of G0's first node as g0_bytes() spells it, where the splices below start.
FIRST_NODE = (
    b'{"id": "n-config", "label": "parse_config", "file_type": "code", "source_file": "example_pkg/config.py"'
)


class Recipe(NamedTuple):
    """How a generated case's graph.json is made, and its README line."""

    readme: str
    document: Callable[[], bytes]


def g0_with(key: str, raw_value: bytes) -> bytes:
    """G0's bytes with ``"key": <raw_value>`` spliced into the first node."""
    data = g0_bytes()
    marker = b'{"id": "n-config"'
    assert marker in data
    return data.replace(
        marker, b'{"' + key.encode() + b'": ' + raw_value + b', "id": "n-config"', 1
    )


def spliced(old: bytes, new: bytes) -> Callable[[], bytes]:
    """G0's bytes with the one occurrence of ``old`` replaced by ``new``."""

    def document() -> bytes:
        data = g0_bytes()
        assert data.count(old) == 1, old
        return data.replace(old, new)

    return document


def appended(member: bytes) -> Callable[[], bytes]:
    """G0's bytes with one more top-level member before the closing brace."""

    def document() -> bytes:
        data = g0_bytes()
        assert data.endswith(b"}")
        return data[:-1] + b", " + member + b"}"

    return document


_GENERATED = " (generated: tests/support/damaged.py)"

INVALID_JSON = {
    "NaN": Recipe("G0 with NaN as a node's weight: JSON has no NaN", lambda: g0_with("weight", b"NaN")),
    "Infinity": Recipe("G0 with Infinity as a node's weight: JSON has no Infinity",
                       lambda: g0_with("weight", b"Infinity")),
    "negative-Infinity": Recipe("G0 with -Infinity as a node's weight: JSON has no -Infinity",
                                lambda: g0_with("weight", b"-Infinity")),
    "leading-zero": Recipe("G0 with 01 as a node's weight: a JSON number has no leading zero",
                           lambda: g0_with("weight", b"01")),
    "single-quotes": Recipe("G0 with 'x' as a node's weight: a JSON string is double-quoted",
                            lambda: g0_with("weight", b"'x'")),
    "undefined": Recipe("G0 with the bare word undefined as a node's weight",
                        lambda: g0_with("weight", b"undefined")),
    "invalid-utf8": Recipe("G0 with a 0xFF byte inside a label: not UTF-8",
                           lambda: g0_bytes().replace(b"parse_config", b"parse\xff_config")),
    "trailing-comma": Recipe("G0 with a comma before its closing brace", lambda: g0_bytes()[:-1] + b",}"),
    "trailing-garbage": Recipe("G0 followed by ' x': data after the document", lambda: g0_bytes() + b" x"),
    "two-documents": Recipe("G0 twice, back to back", lambda: g0_bytes() + g0_bytes()),
    "empty": Recipe("an empty file", lambda: b""),
    "whitespace": Recipe("nothing but whitespace", lambda: b"   \n"),
    "nul-bytes": Recipe("sixteen NUL bytes", lambda: b"\x00" * 16),
}

# A key repeated inside any object the importer reads, wherever the stream decodes it: a record
# of a batch, a record with colons, escapes or spacing the batch's key count must see through, a
# record decoded on its own (an escape the bounded-text check looks at), a nested annotation, an
# element of another list, a top-level annotation object, the top level itself. Each would let two
# readers of one document see two different graphs (the last spelling wins in a permissive decoder).
_NODE_REST = b'"file_type": "code", "source_file": "example_pkg/config.py"'
REPEATED_KEYS = {
    "repeated-key-source_file-in-a-node": Recipe(
        "G0 whose first node names its source_file twice, /etc/passwd first",
        spliced(FIRST_NODE, b'{"id": "n-config", "label": "parse_config", "file_type": "code", '
                b'"source_file": "/etc/passwd", "source_file": "example_pkg/config.py"')),
    "repeated-key-file_type-in-a-node": Recipe(
        "G0 whose first node names its file_type twice, diagram first",
        spliced(FIRST_NODE, b'{"file_type": "diagram", "id": "n-config", "label": "parse_config", ' + _NODE_REST)),
    "repeated-key-spaced-from-its-colon": Recipe(
        "G0 whose first node repeats source_file, spaced from its colon",
        spliced(FIRST_NODE, b'{"id": "n-config", "label": "parse_config", "file_type": "code", '
                b'"source_file" : "/etc/passwd", "source_file"\n:"example_pkg/config.py"')),
    "repeated-key-beside-colons-in-strings": Recipe(
        "G0 whose first node repeats label beside strings holding colons and an escaped quote",
        spliced(FIRST_NODE, b'{"id": "n-config", "label": "a::b", "note": "x: y\\": ", '
                b'"label": "parse_config", ' + _NODE_REST)),
    "repeated-key-beside-an-escaped-colon": Recipe(
        "G0 whose first node repeats id beside a colon spelt \\u003a",
        spliced(FIRST_NODE, b'{"id": "n-config", "label": "parse_config", "note": "a\\u003ab", '
                b'"id": "n-config", ' + _NODE_REST)),
    "repeated-key-ending-in-a-backslash": Recipe(
        "G0 whose first node repeats a key ending in an escaped backslash",
        spliced(FIRST_NODE, b'{"id": "n-config", "label": "parse_config", "k\\\\": 1, '
                b'"k\\\\": 2, ' + _NODE_REST)),
    "repeated-key-in-a-record-decoded-on-its-own": Recipe(
        "G0 whose first node repeats label after an escape, so the record is decoded on its own",
        spliced(FIRST_NODE, b'{"id": "n-config", "label": "parse_config", "doc": "a\\nb", '
                b'"label": "x", ' + _NODE_REST)),
    "repeated-key-in-a-nested-annotation": Recipe(
        "G0 whose first node carries an annotation object repeating a key",
        spliced(FIRST_NODE, FIRST_NODE + b', "metadata": {"lang": "py", "lang": "js"}')),
    "repeated-key-in-an-edge": Recipe(
        "G0 whose first edge names its target twice",
        spliced(b'"source": "n-load", "target": "n-config"',
                b'"source": "n-load", "target": "n-report", "target": "n-config"')),
    "repeated-key-in-a-top-level-annotation": Recipe(
        "G0 with a top-level annotation object repeating a key",
        appended(b'"annotation": {"name": "a", "name": "b"}')),
    "repeated-key-in-a-list-of-objects": Recipe(
        "G0 with a top-level list whose object repeats a key", appended(b'"extras": [{"id": 1, "id": 2}]')),
    "repeated-key-in-a-nested-list": Recipe(
        "G0 with a list of lists whose object repeats a key",
        appended(b'"notes": [[{"k": 1}, {"k": 1, "k": 2}]]')),
    **{
        f"repeated-top-level-{key}": Recipe(f"G0 with a second top-level {key} (an empty list)",
                                            appended(b'"' + key.encode() + b'": []'))
        for key in ("edges", "nodes", "hyperedges", "built_at_commit")
    },
}

RECIPES = {name: recipe._replace(readme=recipe.readme + _GENERATED)
           for name, recipe in {**INVALID_JSON, **REPEATED_KEYS}.items()}


def refusal_of(repo: Path, state: Path, data: bytes) -> dict[str, str] | None:
    """The reason and sentence indexing ``data`` over ``repo`` is refused with; None if accepted."""
    try:
        ensure_index(publish_graph(repo, state, data))
    except Refusal as refusal:
        return {"reason": refusal.reason, "message": refusal.message}
    return None


def expected_text(refusal: dict[str, str]) -> str:
    """An ``expected.json`` as the regenerate command writes it."""
    return dumps_pretty(refusal) + "\n"


def main() -> int:
    """Write each recipe's folder, then every folder's expected.json from what the importer says."""
    for name, recipe in RECIPES.items():
        folder = DAMAGED.directory / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "graph.json").write_bytes(recipe.document())
        (folder / "README").write_text(recipe.readme + "\n", encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="cm-graph-damaged-") as base:
        repo = make_g0_repo(Path(base) / "repo")
        for number, folder in enumerate(DAMAGED.folders()):
            refusal = refusal_of(repo, Path(base) / f"state-{number}", (folder / "graph.json").read_bytes())
            if refusal is None:
                print(f"{folder.name}: the importer accepts this graph; a damaged case must be refused")
                return 1
            (folder / "expected.json").write_text(expected_text(refusal), encoding="utf-8")
    print(f"wrote {len(RECIPES)} generated cases, {len(DAMAGED.folders())} expected.json under {DAMAGED.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
