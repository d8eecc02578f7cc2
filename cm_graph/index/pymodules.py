"""Python module names from repository paths, as an import statement would find them.

Nothing is run and no ``sys.path`` is consulted: a file's names follow from the tree alone.

- **The package chain.** A file's module is its path from the topmost directory of its chain of
  packages (directories holding ``__init__.py``), so ``src/pkg/core.py`` beside
  ``src/pkg/__init__.py`` is ``pkg.core`` (the src layout), ``pkg/__init__.py`` is ``pkg``, and a
  test file in a directory without ``__init__.py`` is its bare name (``tests/test_x.py`` is
  ``test_x``: pytest's rootdir-relative import puts its directory on the path).
- **Also by its whole path**, so a namespace package (a directory without ``__init__.py`` above a
  package: ``ns/pkg/core.py`` as ``ns.pkg.core``) and ``import tests.helpers`` resolve too.

Several files may claim one name (two ``conftest`` modules, two ``helpers``): an import is then
resolved to the one whose package root is the importing file's own, else the first by path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

PYTHON_SUFFIXES = (".py", ".pyi")


def is_python_path(path: str) -> bool:
    return path.endswith(PYTHON_SUFFIXES)


@dataclass(frozen=True)
class ModuleName:
    """The names one file is imported by: ``name`` (the package chain's, its own) and ``root``
    (the directory that chain starts in, '' for the top), whether it is a package, and
    ``qualified``: the name its definitions are qualified by, ``name`` unless other files claim it
    too (two ``conftest`` modules), then its whole path's dotted name (``tests.api.conftest``)."""

    path: str
    name: str
    root: str
    package: bool
    qualified: str

    @property
    def package_name(self) -> str:
        """The package a relative import in this file starts from."""
        return self.name if self.package else self.name.rpartition(".")[0]


def _stem_parts(path: str) -> list[str]:
    parts = path.split("/")
    last = parts[-1]
    for suffix in PYTHON_SUFFIXES:
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    parts[-1] = last
    return parts


class ModuleMap:
    """Every Python file's module names, and the files each dotted name can mean."""

    def __init__(self, paths: Iterable[str]) -> None:
        ordered = sorted(set(paths))
        packages = {path.rpartition("/")[0] for path in ordered if path.rpartition("/")[2] == "__init__.py"}
        self.modules: dict[str, ModuleName] = {}
        self._by_name: dict[str, list[str]] = {}
        self._namespaces: set[str] = set()
        for path in ordered:
            parts = _stem_parts(path)
            package = parts[-1] == "__init__"
            dirs = parts[:-1]
            # The chain: climb while the directory holding the file (or package) is a package.
            top = len(dirs)
            while top > 0 and "/".join(dirs[:top]) in packages:
                top -= 1
            own = parts[top:-1] if package else parts[top:]
            if not own:  # an __init__.py at the top of the repository
                own = [dirs[-1]] if dirs else ["__init__"]
            name = ".".join(own)
            whole = ".".join(parts[:-1] if package else parts)
            module = ModuleName(path, name, "/".join(dirs[:top]), package, whole)
            self.modules[path] = module
            for claimed in dict.fromkeys((name, whole)):
                if claimed:
                    self._by_name.setdefault(claimed, []).append(path)
            for claimed in (name, whole):
                pieces = claimed.split(".")
                for cut in range(1, len(pieces)):
                    self._namespaces.add(".".join(pieces[:cut]))

        for path, module in self.modules.items():
            if self._by_name.get(module.name) == [path]:
                self.modules[path] = ModuleName(path, module.name, module.root, module.package, module.name)

    def files_named(self, name: str) -> list[str]:
        return self._by_name.get(name, [])

    def find(self, name: str, importer: str) -> str | None:
        """The file ``name`` means to an import in ``importer`` (None: no file of this tree)."""
        found = self._by_name.get(name)
        if not found:
            return None
        if len(found) > 1:
            root = self.modules[importer].root
            for path in found:
                if self.modules[path].root == root:
                    return path
        return found[0]

    def is_namespace(self, name: str) -> bool:
        """Whether some file's module lies under ``name`` (a package, or a directory of modules)."""
        return name in self._namespaces

    def absolute(self, importer: str, module: str | None, level: int) -> str:
        """The absolute module a ``from`` import names (``level`` dots before ``module``)."""
        if level == 0:
            return module or ""
        base = self.modules[importer].package_name.split(".") if self.modules[importer].package_name else []
        if level > 1:
            base = base[: max(0, len(base) - (level - 1))]
        if module:
            base = [*base, module]
        return ".".join(base)
