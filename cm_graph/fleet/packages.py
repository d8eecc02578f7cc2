"""What a member declares about itself, read from its bound commit: its package name, and the
package-qualified module a file of it is imported as.

The package name is the strongest anchor a cross-repository usage can have (as in SCIP's
package-qualified symbols): ``from urllib3.poolmanager import PoolManager`` names the package
that ``urllib3``'s ``pyproject.toml`` declares, whatever else in the fleet is also called
``PoolManager``. Only the bound commit is read (``git show <commit>:<file>``), never the work
tree, so the anchor is the one the member's graph was built from.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from ..base.git import run_git

MAX_PACKAGE_FILE_BYTES = 1 << 20
# A file's language family, by extension: a member call binds only within one family (the
# provider's cross-repo rule); the provider's ``lang`` words map onto the same families.
_FAMILIES = {
    "py": "python", "pyi": "python",
    "js": "javascript", "jsx": "javascript", "mjs": "javascript", "cjs": "javascript",
    "ts": "javascript", "tsx": "javascript", "mts": "javascript", "cts": "javascript",
    "java": "jvm", "kt": "jvm", "kts": "jvm", "scala": "jvm", "groovy": "jvm",
    "swift": "swift", "cs": "csharp", "rb": "ruby", "go": "go", "rs": "rust", "php": "php",
    "c": "c", "h": "c", "cc": "c", "cpp": "c", "cxx": "c", "hpp": "c",
}
_LANG_FAMILIES = {
    "python": "python", "javascript": "javascript", "typescript": "javascript", "js": "javascript",
    "ts": "javascript", "tsx": "javascript", "java": "jvm", "kotlin": "jvm", "scala": "jvm",
    "swift": "swift", "csharp": "csharp", "c#": "csharp", "ruby": "ruby", "go": "go", "rust": "rust",
    "php": "php", "c": "c", "cpp": "c", "c++": "c",
}


def family_of_path(path: str) -> str:
    return _FAMILIES.get(path.rsplit(".", 1)[-1].lower(), "") if "." in path.rsplit("/", 1)[-1] else ""


def family_of_lang(language: str) -> str:
    return _LANG_FAMILIES.get(language.lower(), language.lower())


def _show(checkout: Path, commit: str, path: str) -> bytes | None:
    done = run_git(checkout, "show", f"{commit}:{path}", check=False)
    if done.returncode != 0 or len(done.stdout) > MAX_PACKAGE_FILE_BYTES:
        return None
    return done.stdout


def declared_package(checkout: Path, commit: str) -> tuple[str, str]:
    """(ecosystem, name) the bound commit's root manifest declares: ``pyproject.toml``'s
    ``[project].name``, else ``package.json``'s ``name``; ("", "") when neither does."""
    raw = _show(checkout, commit, "pyproject.toml")
    if raw is not None:
        try:
            project = tomllib.loads(raw.decode("utf-8")).get("project")
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            project = None
        if isinstance(project, dict) and isinstance(project.get("name"), str) and project["name"].strip():
            return "pypi", project["name"].strip()
    raw = _show(checkout, commit, "package.json")
    if raw is not None:
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            value = None
        if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"].strip():
            return "npm", value["name"].strip()
    return "", ""


def import_root(ecosystem: str, package: str) -> str:
    """The name code imports a declared package by: a PyPI name normalised as an import
    (``charset-normalizer`` -> ``charset_normalizer``); an npm name as written."""
    if ecosystem == "pypi":
        return re.sub(r"[-.]+", "_", package).lower()
    return package


def module_of(path: str, root: str) -> str:
    """The dotted module a Python file of the package ``root`` is imported as
    (``src/urllib3/util/retry.py`` -> ``urllib3.util.retry``); '' when the path is not under a
    directory (or file) named ``root``."""
    if not root or not path.endswith((".py", ".pyi")):
        return ""
    parts = path.rsplit(".", 1)[0].split("/")
    if root not in parts:
        return ""
    parts = parts[parts.index(root):]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)
