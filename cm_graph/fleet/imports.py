"""The names a Python import statement brings in, read from the bound commit's blob.

The pinned provider records an import it could not bind as an edge from the file to the module
(``urllib3_poolmanager`` for ``from urllib3.poolmanager import PoolManager, proxy_from_url``),
with the statement's line, but not the names imported. The fleet needs the names: they are what
ties ``requests/adapters.py#L26`` to ``urllib3``'s ``PoolManager``. The statement is at a line the
provider gave, in a blob of the bound commit, so reading it back is exact; a file that does not
parse gives no names (the module-level reference is still kept).
"""

from __future__ import annotations

import ast
import re
import warnings


def provider_id(dotted: str) -> str:
    """The provider's id for a dotted name, as its ``_make_id`` writes it (lowercase, every run of
    other characters one '_', none at either end)."""
    return re.sub(r"[^a-z0-9]+", "_", dotted.lower()).strip("_")


def import_statements(source: bytes) -> dict[int, list[tuple[str, tuple[str, ...]]]]:
    """By line: each absolute import's module and the names it imports ('' names a whole-module
    ``import a.b``). Relative imports are the repository's own and are left out."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            found.setdefault(node.lineno, []).append((node.module, names))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(node.lineno, []).append((alias.name, ("",)))
    return found


def imported_names(statements: dict[int, list[tuple[str, tuple[str, ...]]]], target: str) -> list[tuple[int, str, str]]:
    """(line, module, name) of every statement of the file whose module the provider's unbound
    ``target`` id names. Every one, not only the one at the provider's line: the provider keeps
    one edge per (file, module), at the first statement, and a file often imports one module on
    several lines. [] when none does (the provider's id is the only evidence then)."""
    return [
        (line, module, name)
        for line in sorted(statements) for module, names in statements[line]
        if provider_id(module) == target for name in names
    ]
