"""Recall and precision of the fleet's cross-repository uses (issue 28 item 5) on real packages
that import each other, against an independent ground truth.

    python benchmarks/fleet_resolved.py [--out DIR] [--sets requests,httpx] [--json FILE]

Two sets from their PyPI sdists (``pip download --no-binary :all: --no-deps``), each unpacked,
committed to its own git repository and built with the pinned provider through ``cm-graph
refresh``, then joined in one fleet per set:

- ``requests``: requests 2.32.3, urllib3 2.2.3, idna 3.10, charset-normalizer 3.4.0 (the set
  ``benchmarks/fleet.py --real`` builds);
- ``httpx``: httpx 0.27.2, httpcore 1.0.5, h11 0.14.0, sniffio 1.3.1 (anyio 4.4.0 is left out:
  its index build did not finish in 15 minutes, stuck in the text index's raise/catch scan).

**Ground truth** (``truth``, below; it shares no code with cm-graph): for every pair of members
(user, used), an ``ast`` walk of each of the user's Python files (the files its index resolved)
that reads the file's imports of the used package (``import pkg``, ``import pkg.mod as m``,
``from pkg.mod import X as Y``, relative imports inside the used package itself), follows them
into the used package's own modules (a name re-exported by ``from ._client import X`` in an
``__init__`` is followed to its ``class``/``def``; ``from .x import *`` by ``__all__`` or the
public names), and records every site whose name resolves to a class, function or method of the
used package: the import statement's name, a ``Name`` bound by such an import, an attribute
chain on an imported module (``pkg.X``, ``m.X``, ``pkg.sub.X``, ``pkg.X.method``), and a class
called there also as its own ``__init__`` (the instantiation runs it). A use is
(user repository, path, line, the definition's repository, path and ``def`` line).

**The fleet's answer**: ``cross_repo_usages`` for every name either side has, as a user asks it
(200 items per repository, 200,000 characters), each usage whose definition is another member's.
Recall: truth uses the answer has. Precision: of the answer's uses of the forms the truth models
(everything but calls on a typed value, ``member``, and overrides), the share the truth has; the
others are counted apart (the truth has no types, so it can neither confirm nor refute them).

Run under another checkout's interpreter (``--fleet-name deps-before``) it measures that
checkout's fleet on the same member indexes: the baseline.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet import _git, log, sdist_repo  # noqa: E402

SETS = {
    "requests": ("requests==2.32.3", "urllib3==2.2.3", "idna==3.10", "charset-normalizer==3.4.0"),
    "httpx": ("httpx==0.27.2", "httpcore==1.0.5", "h11==0.14.0", "sniffio==1.3.1"),
}
ROOTS = {"charset-normalizer": "charset_normalizer"}
Use = tuple[str, str, int, str, str, int]


# -- preparation --------------------------------------------------------------------------------

def prepare(out: Path, pins: tuple[str, ...], state: Path) -> dict[str, Path]:
    downloads = out / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    cm_graph = Path(sys.executable).parent / "cm-graph"
    repos = {}
    for pin in pins:
        name, version = pin.split("==")
        stem = f"{name.replace('-', '_')}-{version}"
        wanted = (f"{stem}.tar.gz", f"{name}-{version}.tar.gz")
        found = [p for p in downloads.glob("*.tar.gz") if p.name.lower() in wanted]
        if not found:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                            "-d", str(downloads), pin], check=True)
            found = [p for p in downloads.glob("*.tar.gz") if p.name.lower() in wanted]
        repo = sdist_repo(found[0], out)
        t = time.perf_counter()
        done = subprocess.run([str(cm_graph), "refresh", "--repo-path", str(repo), "--state-dir", str(state), "--json"],
                              capture_output=True, text=True, check=False)
        log(f"{repo.name}: refresh exit {done.returncode} in {time.perf_counter() - t:.1f} s")
        repos[name] = repo
    return repos


# -- ground truth (no cm-graph code) ----------------------------------------------------------------

def _parse(source: bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


class Package:
    """One used package's modules: definitions and the names its imports bind, for re-exports."""

    def __init__(self, repository: str, repo: Path, root: str) -> None:
        self.repository = repository
        self.root = root
        self.modules: dict[str, dict[str, Any]] = {}
        base = next((d for d in sorted(repo.rglob("__init__.py"), key=lambda p: len(p.parts))
                     if d.parent.name == root), None)
        if base is None:
            return
        top = base.parent
        for file in sorted(top.rglob("*.py")):
            relative = file.relative_to(top.parent).with_suffix("")
            parts = list(relative.parts)
            package = parts[-1] == "__init__"
            if package:
                parts = parts[:-1]
            module = ".".join(parts)
            tree = _parse(file.read_bytes())
            if tree is None:
                continue
            path = file.relative_to(repo).as_posix()
            self.modules[module] = {"path": path, "package": package, "defs": {}, "binds": {}, "star": [],
                                    "all": None}
            self._read(module, tree)

    def _absolute(self, module: str, level: int, name: str | None) -> str:
        if level == 0:
            return name or ""
        info = self.modules[module]
        parts = module.split(".") if info["package"] else module.split(".")[:-1]
        parts = parts[:len(parts) - (level - 1)] if level > 1 else parts
        return ".".join([*parts, *([name] if name else [])])

    def _read(self, module: str, tree: ast.Module) -> None:
        info = self.modules[module]
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                methods = {}
                if isinstance(node, ast.ClassDef):
                    methods = {m.name: m.lineno for m in node.body
                               if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                info["defs"][node.name] = (node.lineno, methods)
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                if isinstance(node.value, (ast.List, ast.Tuple)):
                    info["all"] = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
        for node in ast.walk(tree):  # imports anywhere (a try/except ImportError fallback too)
            if isinstance(node, ast.ImportFrom):
                source = self._absolute(module, node.level, node.module)
                for alias in node.names:
                    if alias.name == "*":
                        info["star"].append(source)
                    else:
                        info["binds"].setdefault(alias.asname or alias.name, (source, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        info["binds"].setdefault(alias.asname, (alias.name, None))

    def resolve(self, module: str, name: str | None, depth: int = 0) -> tuple[str, Any] | None:
        """('module', dotted) or ('def', (path, line, methods)) for ``module.name``."""
        if depth > 20:
            return None
        if name is None:
            return ("module", module) if module in self.modules else None
        info = self.modules.get(module)
        if info is None:
            return None
        if name in info["defs"]:
            line, methods = info["defs"][name]
            return "def", (info["path"], line, methods)
        if name in info["binds"]:
            source, imported = info["binds"][name]
            found = self.resolve(source, imported, depth + 1)
            if found is not None:
                return found
            return self.resolve(f"{source}.{imported}", None, depth + 1) if imported else None
        if f"{module}.{name}" in self.modules:
            return "module", f"{module}.{name}"
        for source in info["star"]:
            target = self.modules.get(source)
            if target is not None and (target["all"] is None and not name.startswith("_") or
                                       target["all"] is not None and name in target["all"]):
                found = self.resolve(source, name, depth + 1)
                if found is not None:
                    return found
        return None


def truth_uses(user: str, files: dict[str, bytes], package: Package) -> set[Use]:
    """Every site in ``files`` of ``user`` that names a definition of ``package``."""
    found: set[Use] = set()
    root = package.root

    def record(path: str, line: int, value: tuple[str, Any] | None) -> None:
        if value is not None and value[0] == "def":
            found.add((user, path, line, package.repository, value[1][0], value[1][1]))

    for path, source in sorted(files.items()):
        tree = _parse(source)
        if tree is None:
            continue
        bound: dict[str, tuple[str, Any]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != root:
                        continue
                    if alias.asname:
                        bound[alias.asname] = ("module", alias.name)
                    else:
                        bound[root] = ("module", root)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                    node.module.split(".")[0] == root:
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    value = package.resolve(node.module, alias.name)
                    if value is not None:
                        bound[alias.asname or alias.name] = value
                        record(path, alias.lineno, value)
        if not bound:
            continue
        calls = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}

        def called(path: str, node: ast.expr, value: tuple[str, Any] | None, calls: set[int] = calls) -> None:
            """A class called is instantiated: its own ``__init__`` runs too (no MRO walked)."""
            if value is not None and value[0] == "def" and id(node) in calls and "__init__" in value[1][2]:
                record(path, node.lineno, ("def", (value[1][0], value[1][2]["__init__"], {})))

        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in bound:
                record(path, node.lineno, bound[node.id])
                called(path, node, bound[node.id])
            elif isinstance(node, ast.Attribute):
                chain = []
                head: ast.expr = node
                while isinstance(head, ast.Attribute):
                    chain.append(head)
                    head = head.value
                if not isinstance(head, ast.Name) or head.id not in bound:
                    continue
                # only the outermost attribute of a chain walks it (the inner ones are its prefixes)
                value: tuple[str, Any] | None = bound[head.id]
                for attribute in reversed(chain):
                    if value is None:
                        break
                    if value[0] == "module":
                        value = package.resolve(value[1], attribute.attr)
                    else:
                        methods = value[1][2]
                        line = methods.get(attribute.attr)
                        value = ("def", (value[1][0], line, {})) if line is not None else None
                    if attribute is node:
                        record(path, attribute.lineno, value)
                        called(path, attribute, value)
    return found


# -- the fleet's answer ------------------------------------------------------------------------------

def fleet_uses(state: Path, fleet_name: str, names: set[str], repositories: dict[str, Path]) -> dict[str, Any]:
    from cm_graph.fleet.build import open_fleet
    from cm_graph.fleet.usages import cross_repo_usages

    t = time.perf_counter()
    fleet = open_fleet(state, fleet_name)
    build_seconds = round(time.perf_counter() - t, 2)
    tables = [r[0] for r in fleet.connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    if "uses" in tables:
        names |= {r[0] for r in fleet.connection.execute("SELECT DISTINCT name FROM uses")}
    found: dict[Use, tuple[str, str]] = {}
    ambiguous, truncated, latencies = 0, 0, []
    for name in sorted(names):
        t = time.perf_counter()
        answer = cross_repo_usages(fleet, name, max_items=200, max_chars=200_000)
        latencies.append((time.perf_counter() - t) * 1000)
        truncated += bool(answer["bounds"]["truncated"])
        for repository, group in answer["usages_by_repository"].items():
            for item in group["items"]:
                definition = item.get("definition")
                if definition is None:
                    ambiguous += 1
                    continue
                target, _, citation = definition.partition(":")
                target_path, _, line = citation.rpartition("#L")
                if target == repository:
                    continue
                key = (repository, item["path"], item["line"], target, target_path, int(line))
                kind = item.get("use_form") if item["anchor"] == "resolved" else item["anchor"]
                if item.get("role") == "override":
                    kind = "override"
                found.setdefault(key, (item["anchor"], kind or ""))
    size = fleet.path.stat().st_size
    fleet.close()
    latencies.sort()
    return {"uses": found, "ambiguous_items": ambiguous, "truncated_answers": truncated,
            "fleet_index_seconds": build_seconds, "fleet_index_bytes": size, "queries": len(names),
            "p50_ms": round(latencies[len(latencies) // 2], 2) if latencies else None}


def member_files(repo: Path) -> dict[str, bytes]:
    """The member's tracked Python files at HEAD (``git ls-files``: the sdist's, as committed)."""
    listed = _git(repo, "ls-files", "*.py").splitlines()
    return {path: (repo / path).read_bytes() for path in listed}


def measure(out: Path, set_name: str, fleet_name: str) -> dict[str, Any]:
    from cm_graph.fleet.members import add_member, member_from, read_members

    state = out / "state"
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    repos = prepare(out, SETS[set_name], state)
    fleet = f"{fleet_name}-{set_name}"
    known = {m.repository for m in read_members(state, fleet)} if (state / "fleet" / fleet).is_dir() else set()
    for name, repo in sorted(repos.items()):
        if name not in known:
            add_member(state, fleet, member_from(state, connection=None, repo_path=repo, repository=name))
    truth: set[Use] = set()
    packages = {name: Package(name, repo, ROOTS.get(name, name.replace("-", "_"))) for name, repo in repos.items()}
    for user, repo in sorted(repos.items()):
        files = member_files(repo)
        for used, package in sorted(packages.items()):
            if used != user:
                truth |= truth_uses(user, files, package)
    names = set()
    for package in packages.values():
        for info in package.modules.values():
            for name, (_line, methods) in info["defs"].items():
                names.add(name)
                names.update(methods)
    answer = fleet_uses(state, fleet, names, repos)
    found: dict[Use, tuple[str, str]] = answer.pop("uses")
    hit = truth & set(found)
    modelled = {k: v for k, v in found.items() if v[1] not in ("member", "override")}
    beyond = Counter(v[1] for k, v in found.items() if v[1] in ("member", "override"))
    missed = sorted(truth - set(found))
    wrong = sorted(set(modelled) - truth)
    by_pair = Counter((u[0], u[3]) for u in truth)
    return {
        "set": set_name, "fleet": fleet, "members": sorted(repos),
        "truth_uses": len(truth), "truth_by_pair": {f"{a} -> {b}": n for (a, b), n in sorted(by_pair.items())},
        "answer_uses": len(found), "answer_by_kind": dict(sorted(Counter(v[1] for v in found.values()).items())),
        "recall": round(len(hit) / len(truth), 4) if truth else None,
        "precision_modelled": round(len(set(modelled) & truth) / len(modelled), 4) if modelled else None,
        "beyond_truth": dict(sorted(beyond.items())),
        "missed_examples": [list(m) for m in missed[:15]], "missed": len(missed),
        "unconfirmed_examples": [[*w, *modelled[w]] for w in wrong[:15]], "unconfirmed": len(wrong),
        "beyond_examples": [list(k) for k, v in sorted(found.items()) if v[1] in ("member", "override")][:12],
        **answer,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "fleet-resolved")
    parser.add_argument("--sets", default="requests,httpx")
    parser.add_argument("--fleet-name", default="deps")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results = [measure(args.out, name, args.fleet_name) for name in args.sets.split(",")]
    text = json.dumps(results, indent=2, sort_keys=True)
    if args.json:
        args.json.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
