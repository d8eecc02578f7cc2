"""Which of many far tests to run: those whose names share a word with the changed definition.

A definition deep in a pipeline (Markdown's ``HashHeaderProcessor.run``, six calls under
``Markdown.convert``) is reached by no test within ``TEST_DEPTH`` hops; a deeper walk reaches it
through the entry point every test calls, so it reaches most of the suite and says nothing about
which tests exercise it. Test suites are written beside the code they test: ``test_headers.py``
for the header processors, ``tests/test_syntax/inline/`` for the inline patterns. So of the tests
the deep walk reaches, the ones whose node id (path, class, name) shares a word with the
definition's path or qualified name are taken, and all of them when none does (measured in
docs/benchmarks.md, "Fault detection on real test suites").

A word is a lower-cased part of a camelCase, snake_case or path spelling, three letters at least
(or a two-letter acronym, ``HR`` of ``HRProcessor``, which a test spells ``test_hr``), less a
plural ``s``; the words every test or every definition of a project spells (``test``,
``src``, the top-level package's name) say nothing and are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MIN_LETTERS = 3
SAY_NOTHING = frozenset({"test", "tests", "testing", "src", "lib", "init", "self", "run", "get", "set", "the",
                         "and", "for", "py", "pyi"})
_CAMEL = re.compile(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])")  # fooBar, HTMLParser
_SPLIT_ANY_CASE = re.compile(r"[^A-Za-z0-9]+")


def words(spelling: str, *, pairs: bool = False) -> set[str]:
    """The words of one spelling: ``HashHeaderProcessor.run`` -> {hash, header, processor}. A
    two-letter acronym of a name (``HRProcessor``: ``hr``) is a word too, and with ``pairs``
    every two-letter part is (a test's ``test_hr``), so the two meet."""
    found = set()
    spaced = _CAMEL.sub(lambda m: f"{m[1] or m[3]} {m[2] or m[4]}", spelling)
    for part in _SPLIT_ANY_CASE.split(spaced):
        word = part.lower()
        if word.endswith("s") and len(word) > MIN_LETTERS:
            word = word[:-1]
        short = len(word) == 2 and word.isalpha() and (pairs or part.isupper())
        if (len(word) >= MIN_LETTERS or short) and word not in SAY_NOTHING:
            found.add(word)
    return found


def top_package(path: str) -> str:
    """The project's top-level directory a path is in (past a ``src/`` or ``lib/`` layout)."""
    parts = path.split("/")
    top = parts[1] if parts[0] in ("src", "lib") and len(parts) > 2 else parts[0]
    return top.rsplit(".", 1)[0] if len(parts) == 1 else top


def definition_words(path: str, qualified: str) -> set[str]:
    """The words of a definition: its path's and its qualified name's, less its top package's."""
    return (words(path) | words(qualified)) - words(top_package(path))


def affine(wanted: set[str], test_ids: Iterable[str]) -> tuple[list[str], bool]:
    """(the ids among ``test_ids`` that share a word with ``wanted``, in their order, True); all
    of them and False when none does."""
    ids = list(test_ids)
    sharing = [test_id for test_id in ids if words(test_id, pairs=True) & wanted]
    return (sharing, True) if sharing else (ids, False)
