"""The engines the resolver was compared with (docs/resolver.md): jedi and scip-python, each made to
give references in the scorer's form ``(path, line, role, definition, name, enclosing)``, with the
definitions and enclosing ranges of the subject's own index (so only the bindings differ).

    python benchmarks/resolver_engines.py jedi INDEX REPO     # one fresh process: prints JSON

jedi (PyPI, pure Python) binds every name of every file with ``goto`` (never ``get_references``,
which stops after 30 files; ../shared/research/resolvers.md). scip-python (npm, pyright inside) is
installed with npm into the cache and run with its traps defused: on a copy of the tree, with a
``pyrightconfig.json`` that includes everything (a repository's own ``[tool.pyright] include``
would hide its tests) and puts ``src`` on the path, ``--environment`` naming no packages (no
``pip``), ``--project-version`` given (no ``git``), in a network namespace, with a bounded heap.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from resolver_index import Index, Ref  # noqa: E402

SCIP_PYTHON = "@sourcegraph/scip-python@0.6.6"


def _peak_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _role_at(text: list[str], line: int, end_column: int) -> str:
    after = text[line - 1][end_column:].lstrip() if 0 < line <= len(text) else ""
    return "call" if after.startswith("(") else "reference"


def _bound(index: Index, refs: list[Ref], path: str, line: int, role: str, number: int, name: str,
           enclosing: int) -> None:
    """One engine binding as scorer references (a class called: instantiate, and its __init__)."""
    definition = index.definitions[number]
    if definition.kind == "module":
        return
    if role == "call" and definition.kind == "class":
        refs.append((path, line, "instantiate", number, name, enclosing))
        for special in ("__new__", "__init__"):
            found = index.by_qualname.get((definition.path, f"{definition.qualname}.{special}"))
            if found:
                refs.append((path, line, "call", found[0].number, name, enclosing))
        return
    refs.append((path, line, role, number, name, enclosing))


def jedi_references(index: Index, repo: Path) -> tuple[list[Ref], dict[str, float]]:
    """jedi's bindings of every name in every resolved file (``goto`` per name), in this process;
    its seconds and peak RSS beside."""
    import jedi

    started = time.perf_counter()
    project = jedi.Project(str(repo), added_sys_path=[str(repo / "src")] if (repo / "src").is_dir() else [],
                           smart_sys_path=False, load_unsafe_extensions=False)
    environment = jedi.InterpreterEnvironment()
    refs: list[Ref] = []
    for path in sorted(index.modules):
        source = (repo / path).read_text(encoding="utf-8", errors="replace")
        text = source.splitlines()
        try:
            script = jedi.Script(source, path=str(repo / path), project=project, environment=environment)
            names = script.get_names(all_scopes=True, definitions=False, references=True)
        except Exception:  # noqa: BLE001 - jedi fails on some files; they simply have no references
            continue
        for name in names:
            try:
                targets = name.goto(follow_imports=True, follow_builtin_imports=False)
            except Exception:  # noqa: BLE001
                continue
            enclosing = index.enclosing(path, name.line)
            if enclosing is None:
                continue
            role = _role_at(text, name.line, name.column + len(name.name))
            for target in targets:
                if target.module_path is None or target.line is None:
                    continue
                try:
                    relative = str(Path(target.module_path).resolve().relative_to(repo.resolve()))
                except ValueError:
                    continue
                number = index.by_def_line.get((relative, target.line, target.name))
                if number is not None:
                    _bound(index, refs, path, name.line, role, number, name.name, enclosing)
    return refs, {"seconds": round(time.perf_counter() - started, 1), "peak_rss_mib": _peak_mib()}


# -- scip-python ---------------------------------------------------------------------------------
def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """A protobuf message's (field, wire type, value) triples (value: int or bytes)."""
    out: list[tuple[int, int, Any]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at:at + size], at + size
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        else:
            raise ValueError(f"wire type {wire}")
        out.append((field, wire, value))
    return out


def _packed(data: bytes) -> list[int]:
    values, at = [], 0
    while at < len(data):
        value, at = _varint(data, at)
        values.append(value)
    return values


def read_scip(path: Path) -> list[tuple[str, list[tuple[list[int], str, int]]]]:
    """(relative path, [(range, symbol, roles)]) of every document of a SCIP index (scip.proto:
    Index.documents = 2; Document.relative_path = 1, occurrences = 2; Occurrence.range = 1
    (packed: line, start, [end line,] end), symbol = 2, symbol_roles = 3)."""
    documents = []
    for field, _, value in _fields(path.read_bytes()):
        if field != 2:
            continue
        relative, occurrences = "", []
        for dfield, _, dvalue in _fields(value):
            if dfield == 1:
                relative = dvalue.decode()
            elif dfield == 2:
                span: list[int] = []
                symbol, roles = "", 0
                for ofield, owire, ovalue in _fields(dvalue):
                    if ofield == 1:
                        span = _packed(ovalue) if owire == 2 else [*span, ovalue]
                    elif ofield == 2:
                        symbol = ovalue.decode()
                    elif ofield == 3:
                        roles = ovalue
                occurrences.append((span, symbol, roles))
        documents.append((relative, occurrences))
    return documents


def scip_references(index: Index, repo: Path, home: Path) -> tuple[list[Ref], dict[str, Any]]:
    """scip-python's bindings of the subject (installed and run as the module docstring says)."""
    prefix = home / "npm"
    entry = prefix / "node_modules" / "@sourcegraph" / "scip-python" / "index.js"
    if not entry.is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix), SCIP_PYTHON],
                       check=True)
    tree = home / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    (tree / "pyrightconfig.json").write_text(json.dumps(
        {"include": ["."], "exclude": [], "extraPaths": ["src"] if (tree / "src").is_dir() else []}))
    (home / "env.json").write_text("[]")
    output = home / "index.scip"
    output.unlink(missing_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "NODE_OPTIONS": "--max-old-space-size=8192"}
    command = ["node", str(entry), "index", "--project-name", "subject", "--project-version", "0",
               "--environment", str(home / "env.json"), "--output", str(output), "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(["unshare", "-n", *command], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=1800)
    seconds = time.perf_counter() - started
    peak = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    if done.returncode != 0 or not output.is_file():
        raise SystemExit(f"scip-python failed ({done.returncode}): {done.stderr[-800:]}")
    documents = read_scip(output)
    definitions: dict[str, tuple[str, int, str]] = {}
    for relative, occurrences in documents:
        for span, symbol, roles in occurrences:
            if roles & 1 and span:
                name = _symbol_name(symbol)
                definitions.setdefault(symbol, (relative, span[0] + 1, name))
    refs: list[Ref] = []
    for relative, occurrences in documents:
        if relative not in index.modules:
            continue
        text = (repo / relative).read_text(encoding="utf-8", errors="replace").splitlines()
        for span, symbol, roles in occurrences:
            if roles & 1 or not span or symbol not in definitions:
                continue
            target = definitions[symbol]
            number = index.by_def_line.get(target)
            line = span[0] + 1
            enclosing = index.enclosing(relative, line)
            if number is None or enclosing is None:
                continue
            end_column = span[3] if len(span) == 4 else span[2]
            _bound(index, refs, relative, line, _role_at(text, line, end_column), number, target[2], enclosing)
    return refs, {"seconds": round(seconds, 1), "peak_rss_mib": peak, "documents": len(documents)}


def _symbol_name(symbol: str) -> str:
    """The last descriptor's name of a SCIP symbol (`pkg.mod`/Class#method(). is ``method``)."""
    descriptor = symbol.rsplit(" ", 1)[-1].rstrip(".#()")
    for separator in ("#", "/", "."):
        descriptor = descriptor.rsplit(separator, 1)[-1]
    return descriptor.strip("`()").split("(")[0]


if __name__ == "__main__":
    if sys.argv[1] == "jedi":
        references, spent = jedi_references(Index(Path(sys.argv[2])), Path(sys.argv[3]))
        print(json.dumps({"refs": references, "cost": spent}))
