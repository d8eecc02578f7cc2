"""The provider's vocabulary and the few things derived from it.

Relation words are kept verbatim; a normalised *kind* decides which questions follow an edge.
Node kinds (file, symbol, test) are the one inference this reader makes, from paths and labels,
because the provider never states them.
"""

from __future__ import annotations

import re

CODE = "code"
NON_CODE_FILE_TYPES = frozenset({"document", "paper", "image", "rationale", "concept", "doc_ref"})
ACCEPTED_FILE_TYPES = NON_CODE_FILE_TYPES | {CODE}
CONFIDENCES = {"EXTRACTED": "extracted", "INFERRED": "inferred", "AMBIGUOUS": "ambiguous"}
REVIEWED_DISTRIBUTION = "graphifyy"
REVIEWED_VERSIONS = ("0.9.58",)

RELATION_KINDS = {
    "calls": "calls",
    "imports": "imports",
    "defines": "defines",
    "contains": "defines",
    "references": "references",
    "inherits": "inherits",
    "implements": "inherits",
    "tests": "tests",
}
UNMAPPED_KIND = "related"
KINDS = ("calls", "imports", "defines", "references", "inherits", "tests", UNMAPPED_KIND)

_JS_TS_EXTENSIONS = frozenset({"js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"})


def relation_kind(relation: str) -> str:
    """Exact, case-sensitive mapping; anything unmapped is ``related`` (never refused)."""
    return RELATION_KINDS.get(relation, UNMAPPED_KIND)


def is_test_path(path: str) -> bool:
    lowered = path.lower()
    base = path.rsplit("/", 1)[-1].lower()
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, base
    if lowered.startswith(("tests/", "test/", "__tests__/")):
        return True
    if any(part in lowered for part in ("/tests/", "/test/", "/__tests__/")):
        return True
    if stem.startswith("test_") or stem.endswith(("_test", "_spec")):
        return True
    return ext in _JS_TS_EXTENSIONS and stem.endswith((".test", ".spec"))


def node_kind(path: str, label: str) -> str:
    """file / symbol / test, derived from the path layout and the per-file node's label alone.

    The provider's ``type`` annotation is never read (the seed: extra annotations change no
    traversal), so a ``namespace`` under ``tests/`` is a test like any other node there. A test
    path wins over the file rule, so the per-file node of ``tests/test_x.py`` is a test; a
    per-file node is labelled with its file's base name; a sourceless stub is a symbol.
    """
    if path:
        if is_test_path(path):
            return "test"
        if path.rsplit("/", 1)[-1] == label:
            return "file"
    return "symbol"


def callable_base(label: str) -> str | None:
    """``name`` for a label ``name(<balanced args>)``; None when the label has no such suffix.

    The argument list must open at the first ``(`` (not at index 0, with no ``)`` before it) and
    its balanced group must close on the label's last character.
    """
    if not label.endswith(")"):
        return None
    first = label.find("(")
    if first <= 0 or ")" in label[:first]:
        return None
    inner = label[first + 1 : -1]
    if "(" not in inner and ")" not in inner:  # the common case: one flat argument list
        return label[:first]
    depth = 0
    for index in range(first, len(label)):
        char = label[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return label[:first] if index == len(label) - 1 else None
    return None


def normalise_distribution(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def is_reviewed_provider(distribution: str, version: str) -> bool:
    return (
        normalise_distribution(distribution) == REVIEWED_DISTRIBUTION
        and version in REVIEWED_VERSIONS
    )
