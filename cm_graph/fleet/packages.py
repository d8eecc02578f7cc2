"""What a member declares about itself, read from its bound commit: its package name and version
(from the first root manifest that names one), and the package-qualified module a file of it is
imported as.

The package name is the strongest anchor a cross-repository usage can have (as in SCIP's
package-qualified symbols): ``from urllib3.poolmanager import PoolManager`` names the package
that ``urllib3``'s ``pyproject.toml`` declares, whatever else in the fleet is also called
``PoolManager``. Only the bound commit is read (``git show <commit>:<file>``), never the work
tree, so the anchor is the one the member's graph was built from.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..base.git import run_git
from ..base.rules import is_bounded_text

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


@dataclass(frozen=True)
class Declared:
    """What a member's root manifest declares: the ecosystem (the SCIP manager: ``pypi``,
    ``npm``, ``cargo``, ``go``; '' for none), the package name and its version ('' when the
    manifest gives none: a dynamic version is not computed)."""

    ecosystem: str = ""
    name: str = ""
    version: str = ""
    # An npm manifest as parsed (its ``exports``, ``module``, ``main`` say which file a specifier
    # of the package names); empty for every other manifest.
    manifest: dict[str, object] = field(default_factory=dict, compare=False)


def declared_package(checkout: Path, commit: str) -> Declared:
    """The package the bound commit's root manifest declares, first that names one of:
    ``pyproject.toml`` (``[project]``), ``setup.cfg`` (``[metadata]``), ``setup.py`` (the
    literal ``name=``/``version=`` of its ``setup(...)`` call, read with ``ast``: never run),
    ``package.json``, ``Cargo.toml`` (``[package]``), ``go.mod`` (``module``)."""
    for path, reader in _MANIFESTS:
        raw = _show(checkout, commit, path)
        if raw is None:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        found = reader(text)
        if found is not None and found.name:
            return found
    return Declared()


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) and is_bounded_text(value.strip(), 214) else ""


def _toml_table(text: str, table: str, ecosystem: str) -> Declared | None:
    """The ``name`` and ``version`` of a TOML manifest's table (``[project]``, ``[package]``)."""
    try:
        found = tomllib.loads(text).get(table)
    except tomllib.TOMLDecodeError:
        return None
    if not isinstance(found, dict):
        return None
    return Declared(ecosystem, _text(found.get("name")), _text(found.get("version")))


def _pyproject(text: str) -> Declared | None:
    return _toml_table(text, "project", "pypi")


def _setup_cfg(text: str) -> Declared | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not parser.has_section("metadata"):
        return None
    return Declared("pypi", _text(parser.get("metadata", "name", fallback="")),
                    _text(parser.get("metadata", "version", fallback="")))


def _setup_py(text: str) -> Declared | None:
    """The string literals passed as ``name=`` and ``version=`` to a call named ``setup``
    (``setuptools.setup`` or a bare ``setup``); anything computed is not known."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (
                (isinstance(node.func, ast.Name) and node.func.id == "setup")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "setup")):
            literal = {k.arg: k.value.value for k in node.keywords
                       if k.arg in ("name", "version") and isinstance(k.value, ast.Constant)}
            return Declared("pypi", _text(literal.get("name")), _text(literal.get("version")))
    return None


def _package_json(text: str) -> Declared | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    return Declared("npm", _text(value.get("name")), _text(value.get("version")), value)


def _cargo(text: str) -> Declared | None:
    return _toml_table(text, "package", "cargo")


def _go_mod(text: str) -> Declared | None:
    match = re.search(r"^module\s+(\S+)\s*$", text, re.MULTILINE)
    return Declared("go", _text(match.group(1).strip('"'))) if match else None


_MANIFESTS = (("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg), ("setup.py", _setup_py),
              ("package.json", _package_json), ("Cargo.toml", _cargo), ("go.mod", _go_mod))


def import_root(ecosystem: str, package: str) -> str:
    """The name code imports a declared package by: a PyPI or Cargo name normalised as an import
    (``charset-normalizer`` -> ``charset_normalizer``); an npm name or Go module as written."""
    if ecosystem in ("pypi", "cargo"):
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
