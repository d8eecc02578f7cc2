"""The pinned provider's scope: which tracked inputs it never dispatches, and which it reads but,
by its own rule, turns into no graph content.

Learned from ``graphifyy==0.9.58``'s detection and manifest extractor (read, not copied) and
proven against the real provider in ``tests/generation/test_scope_real.py``. Completeness (``inventory``)
asks these rules only about inputs the provider's inventory has no row for: a scope exclusion is
the provider's declared boundary, not lost evidence; an ``empty`` input was read (its detection
cache lists it) and its extractor's rule yields nothing; everything else stays ``missing``.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable

# Directory names the provider's walk always prunes (its noise-directory list), by exact name.
ALWAYS_SKIPPED_DIRS = frozenset({
    "venv", ".venv", "node_modules", "__pycache__", ".git", "dist", "build", "target",
    "site-packages", "lib64", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox",
    ".eggs", "graphify-out", "lcov-report", "visual-tests", "visual-test", "__snapshots__",
    "storybook-static", "dist-protected", ".next", ".nuxt", ".turbo", ".angular", ".idea",
    ".cache", ".parcel-cache", ".svelte-kit", ".terraform", ".serverless", ".graphify",
    ".obsidian", ".smart-env", ".worktrees",
})
# Names it prunes only on evidence in the directory (venv markers, coverage reports, compiler
# output, snapshot files): named as the rule only when the provider's detection cache shows the
# file was indeed not admitted.
GATED_SKIPPED_DIRS = frozenset({"env", ".env", "coverage", "out", "snapshots"})
# Lock files the provider never considers.
ALWAYS_SKIPPED_FILES = frozenset({
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock",
    "Gemfile.lock", "composer.lock", "go.sum", "go.work.sum", ".graphifyinclude",
})
# Package manifests: extracted by name, refused above this size ("manifest too large").
PACKAGE_MANIFESTS = frozenset({"apm.yml", "apm.yaml", "pyproject.toml", "cargo.toml", "go.mod", "pom.xml"})
MAX_PACKAGE_MANIFEST_BYTES = 2_000_000
# Project XML (Lazarus packages, .slnx, MSBuild projects, XAML): refused above 2 MiB.
PROJECT_XML_SUFFIXES = frozenset({".lpk", ".slnx", ".csproj", ".fsproj", ".vbproj", ".xaml"})
MAX_PROJECT_XML_BYTES = 2 * 1024 * 1024
IGNORE_FILE = ".graphifyignore"

# Its secret-file heuristic: credential-store directories; bare-name dirs whose data files it
# drops; exact credential file patterns; and secret keywords that end a data file's name.
_CREDENTIAL_STORE_DIRS = frozenset({".ssh", ".gnupg", ".aws", ".gcloud"})
_AMBIGUOUS_SECRET_DIRS = frozenset({"secrets", ".secrets", "credentials"})
_SECRET_FILE_PATTERNS = (
    re.compile(r"(^|/)\.(env|envrc)(\.|$)", re.IGNORECASE),
    re.compile(r"\.(pem|key|p12|pfx|cert|crt|der|p8)$", re.IGNORECASE),
    re.compile(r"(^|[^A-Za-z0-9])(id_rsa|id_dsa|id_ecdsa|id_ed25519)(\.pub)?$", re.IGNORECASE),
    re.compile(r"(\.netrc|\.pgpass|\.htpasswd|\.npmrc|\.pypirc|\.git-credentials|\.boto)$", re.IGNORECASE),
)
_ENV_TEMPLATE = re.compile(r"\.(env|envrc)\..*\.(example|sample|template|dist)$", re.IGNORECASE)
_SECRET_KEYWORDS = (
    re.compile(r"(?<![a-zA-Z0-9])(credential|secret|passwd|password|private_key)s?(?![a-zA-Z])", re.IGNORECASE),
    re.compile(r"(?<![a-zA-Z0-9])tokens?(?![a-zA-Z])", re.IGNORECASE),
    re.compile(r"(?<![a-zA-Z0-9])service[._-]?account(?![a-zA-Z])", re.IGNORECASE),
)
_SECRET_PRONE_DATA = frozenset({".json", ".toml", ".xml", ".tfvars"})  # the code-dispatched ones
SENSITIVE = "sensitive"

# Reasons, as persisted in the build record.
OPERATOR_EXCLUDE = "operator_exclude"
GRAPHIFYIGNORE = "graphifyignore"
SIZE_LIMIT = "size_limit"
OVERSIZED = "oversized"  # over the census's per-file budget and not code: left out by cm-graph
SKIPPED_FILE = "skipped_file"
SKIPPED_DIR = "skipped_dir"  # persisted as "skipped_dir:<name>"


def skipped_dir_rule(path: str, *, admitted: bool | None) -> str | None:
    """``skipped_dir:<name>`` when an ancestor directory is one the provider prunes; gated names
    count only when the provider's detection cache says the file was not admitted."""
    for segment in path.split("/")[:-1]:
        if segment in ALWAYS_SKIPPED_DIRS or segment.endswith(("_venv", ".egg-info")):
            return f"{SKIPPED_DIR}:{segment}"
        if admitted is False and segment in GATED_SKIPPED_DIRS:
            return f"{SKIPPED_DIR}:{segment}"
    return None


def scope_rule(path: str, size: int, *, admitted: bool | None, ignore_dirs: frozenset[str]) -> str | None:
    """Why the provider, by its own rules, never dispatches this tracked input; None if it does.

    ``admitted`` is the provider's detection cache verdict (None when there is no cache);
    ``ignore_dirs`` are the directories holding a tracked ``.graphifyignore``.
    """
    base = path.rsplit("/", 1)[-1]
    rule = skipped_dir_rule(path, admitted=admitted)
    if rule is not None:
        return rule
    if base in ALWAYS_SKIPPED_FILES:
        return SKIPPED_FILE
    if base.lower() in PACKAGE_MANIFESTS and size > MAX_PACKAGE_MANIFEST_BYTES:
        return SIZE_LIMIT
    if "." in base and base[base.rindex("."):].lower() in PROJECT_XML_SUFFIXES and size > MAX_PROJECT_XML_BYTES:
        return SIZE_LIMIT
    if admitted is False and looks_sensitive(path):
        return SENSITIVE
    if admitted is False and _under_an_ignore_file(path, ignore_dirs):
        return GRAPHIFYIGNORE
    return None


def looks_sensitive(path: str) -> bool:
    """The provider's secret-file heuristic for a code-dispatched input (asked only when its
    detection cache shows the file was not admitted, so a near miss cannot hide real code)."""
    parents = [segment.lower() for segment in path.split("/")[:-1]]
    base = path.rsplit("/", 1)[-1]
    data = "." in base and base[base.rindex("."):].lower() in _SECRET_PRONE_DATA
    if any(segment in _CREDENTIAL_STORE_DIRS for segment in parents):
        return True
    if data and any(segment in _AMBIGUOUS_SECRET_DIRS for segment in parents):
        return True
    if any(pattern.search(base) for pattern in _SECRET_FILE_PATTERNS) and not _ENV_TEMPLATE.match(base):
        return True
    stem = base.rsplit(".", 1)[0].lstrip(".") if "." in base.lstrip(".") else base.lstrip(".")
    return data and _keyword_names_the_contents(stem)


def _keyword_names_the_contents(stem: str) -> bool:
    """A secret keyword that ends the name, or appears in a name of at most two words."""
    words = [word for word in re.split(r"[-_\s.]+", stem) if word]
    for pattern in _SECRET_KEYWORDS:
        matches = list(pattern.finditer(stem))
        if any(match.end() == len(stem) for match in matches) or (matches and len(words) <= 2):
            return True
    return False


def ignore_file_dirs(paths: Iterable[str]) -> frozenset[str]:
    """The directories ("" for the root) that hold a tracked ``.graphifyignore``."""
    return frozenset(
        path.rsplit("/", 1)[0] if "/" in path else ""
        for path in paths
        if path.rsplit("/", 1)[-1] == IGNORE_FILE
    )


def _under_an_ignore_file(path: str, ignore_dirs: frozenset[str]) -> bool:
    return any(not directory or path.startswith(directory + "/") for directory in ignore_dirs)


def yields_no_content(path: str, data: bytes) -> bool:
    """The provider's manifest extractor's own rule: a package manifest that parses but names no
    package (a ``pyproject.toml`` without ``[project].name`` or ``[tool.poetry].name``, a virtual
    ``Cargo.toml`` workspace, a ``go.mod`` without ``module``, a ``pom.xml`` without
    ``artifactId``) yields no node. A manifest that does not parse is a provider failure, not
    empty; every other input's extractor emits at least a file node, so nothing else is empty."""
    base = path.rsplit("/", 1)[-1].lower()
    text = data.decode("utf-8", "replace")
    try:
        if base == "pyproject.toml":
            return not _pyproject_name(tomllib.loads(text))
        if base == "cargo.toml":
            package = tomllib.loads(text).get("package")
            name = package.get("name") if isinstance(package, dict) else None
            return not (isinstance(name, str) and name)
        if base == "go.mod":
            return not any(re.match(r"module\s+\S", line.strip()) for line in text.splitlines())
        if base == "pom.xml":
            root = ElementTree.fromstring(re.sub(r'\sxmlns="[^"]*"', "", text, count=1))
            return not root.findtext("artifactId")
    except (tomllib.TOMLDecodeError, ElementTree.ParseError, ValueError, AttributeError):
        return False
    return False


def _pyproject_name(data: dict[str, object]) -> object:
    project = data.get("project")
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    name = project.get("name") if isinstance(project, dict) else None
    return name or (poetry.get("name") if isinstance(poetry, dict) else None)


def operator_excluded(path: str, globs: Iterable[str]) -> str | None:
    """The first ``--exclude`` glob that leaves ``path`` out: an fnmatch over the whole
    repository-relative path (``*`` also crosses ``/``), or a directory given by name."""
    for glob in globs:
        directory = glob.rstrip("/")
        if fnmatch.fnmatchcase(path, glob) or (directory and path.startswith(directory + "/")):
            return glob
    return None
