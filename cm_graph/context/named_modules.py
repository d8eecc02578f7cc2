"""The tests that load a definition's module by a string naming it.

A plugin system loads its modules by name: Markdown's tests say
``markdown.markdown(text, extensions=['admonition'])``, Django's ``INSTALLED_APPS`` lists
``'app.module'``, a loader calls ``import_module('pkg.plugins.csv')``. No edge of the graph or
the resolver goes from such a test to ``AdmonitionProcessor.run``: the module is imported by
``importlib`` inside the library. The text index posts every string that names a Python module
of the graph (``index.mentions.module_names``: its file's stem, a package's directory), so the
test lines whose strings name the anchor's module are found here, each named by the test that
holds it. Textual evidence, labelled so: a string naming ``tables`` may mean something else.
"""

from __future__ import annotations

import json
from typing import Any

import apsw

from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..index.graphmodel import is_test_path
from ..index.mentions import module_names, read_postings

NAMING_FORMS = ("string", "config")  # a string in code, or a word of a config file


def module_name(path: str) -> str | None:
    """The name a string loads the module at ``path`` by, or None (not a Python module)."""
    found = module_names([path])
    return next(iter(found)) if found else None


def naming_lines(connection: apsw.Connection, name: str) -> list[tuple[str, int]] | None:
    """(path, line) of every test-path line whose string names the module ``name``, in path and
    line order; None when the name is too common for the index to list its lines."""
    total, kept, postings, _ = fetch_rows(
        connection.execute(query_sql("mention_count"), {"name": name}), tuple[Any, Any, Any, int])[0]
    if total is None:
        return []
    if not kept:
        return None
    lines = [(file, line) for file, line, form in read_postings(postings) if form in NAMING_FORMS]
    paths = dict(fetch_rows(connection.execute(query_sql("text_file_paths"),
                                               {"files": json.dumps(sorted({file for file, _ in lines}))}),
                            tuple[int, str]))
    return sorted({(paths[file], line) for file, line in lines if is_test_path(paths[file])})
