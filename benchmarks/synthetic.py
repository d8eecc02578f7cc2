"""Synthetic graphs: the reader's limits and adversarial shapes, as provider output over a real
one-commit git repository.

Each shape writes, like the pinned provider would:

* ``graphify-out/graph.json``: the raw ``--no-cluster`` extraction document (``nodes``, ``edges``,
  ``hyperedges``, ``input_tokens``, ``output_tokens``, ``extracted_sources``), records shaped like
  the provider's (``id``/``label``/``file_type``/``source_file``/``source_location``; edges with
  ``relation``/``confidence``/``source_file``/``source_location``/``weight``);
* ``graphify-out/manifest.json``: the provider's per-file inventory, whose ``ast_hash`` is the MD5
  of the committed bytes (as ``tests/support/helpers.py::inventory_for`` does), so the generation is
  ``complete``;
* ``repo/``: a git repository with one commit at a fixed date, whose files are long enough for
  every line a node or call site names (so every citation is confirmable).

Everything is drawn from ``random.Random`` with fixed seeds: the same shape always gives the same
bytes. Outputs are cached under ``<cache>/synthetic/<name>/``.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import import_memory
from corpus import git

GENERATOR_VERSION = 2
Log = Callable[[str], None]
COMMON_NAMES = (
    "__init__()", "get()", "run()", "render()", "close()", "update()", "__repr__()", "setup()",
    "validate()", "parse()",
)


@dataclass
class Shape:
    """Nodes, edges and the lines each file must have."""

    nodes: list[tuple[str, str, str, int]] = field(default_factory=list)  # id, label, path, line
    edges: list[tuple[str, str, str, str, str, int]] = field(default_factory=list)
    # (source, target, relation, confidence, site path, site line)
    lines: dict[str, int] = field(default_factory=dict)

    def node(self, node_id: str, label: str, path: str, line: int) -> str:
        self.nodes.append((node_id, label, path, line))
        self._need(path, line)
        return node_id

    def edge(
        self, source: str, target: str, relation: str, path: str, line: int, confidence: str = "EXTRACTED"
    ) -> None:
        self.edges.append((source, target, relation, confidence, path, line))
        self._need(path, line)

    def file_node(self, path: str) -> str:
        node_id = "file_" + path.replace("/", "_").replace(".", "_")
        return self.node(node_id, path.rsplit("/", 1)[-1], path, 1)

    def _need(self, path: str, line: int) -> None:
        if self.lines.get(path, 0) < line:
            self.lines[path] = line


@dataclass(frozen=True)
class SyntheticSpec:
    name: str
    description: str
    build: Callable[[float], Shape]
    named_targets: tuple[str, ...] = ()
    quick_scale: float | None = None  # included in --quick at this scale when set


# ---------------------------------------------------------------------------------------------
# Shapes


def _scaled(value: int, scale: float, floor: int = 2) -> int:
    return max(floor, int(round(value * scale)))


def limits_shape(total_nodes: int, total_edges: int, seed: int) -> Callable[[float], Shape]:
    """A code-base-like graph: files of 100 nodes (10% test files), every symbol contained by its
    file, each module importing five others (``imports``/``imports_from``), test functions
    calling code, and the rest calls (80%), method (8%), references (4%), inherits (3%), uses (3%)
    and indirect_call (2%), the provider's own relation words, whose targets are skewed so hubs
    appear (callee rank ~ U^2.5 over a shuffled symbol order). 10% of labels share a common name
    (``get()``, ``run()``...), as real code does."""

    def build(scale: float) -> Shape:
        rng = random.Random(seed)
        nodes_wanted = _scaled(total_nodes, scale, 200)
        edges_wanted = _scaled(total_edges, scale, 500)
        files = nodes_wanted // 100
        shape = Shape()
        code_symbols: list[str] = []
        test_symbols: list[str] = []
        file_ids: list[str] = []
        symbol_line: dict[str, tuple[str, int]] = {}
        for f in range(files):
            is_test = f % 10 == 9
            path = f"tests/test_mod_{f:05d}.py" if is_test else f"pkg/sub_{f // 100:02d}/mod_{f:05d}.py"
            file_id = shape.node(f"m{f:05d}", path.rsplit("/", 1)[-1], path, 1)
            file_ids.append(file_id)
            for j in range(1, 100):
                line = 2 + 4 * (j - 1)
                if is_test:
                    label = f"test_case_{f}_{j}()"
                elif rng.random() < 0.1:
                    label = rng.choice(COMMON_NAMES)
                else:
                    label = f"fn_{f}_{j}()"
                symbol = shape.node(f"m{f:05d}_s{j:02d}", label, path, line)
                (test_symbols if is_test else code_symbols).append(symbol)
                symbol_line[symbol] = (path, line)
                shape.edge(file_id, symbol, "contains", path, line)
        code_files = [fid for f, fid in enumerate(file_ids) if f % 10 != 9]
        for f, file_id in enumerate(file_ids):
            if f % 10 == 9:
                continue
            path = shape.nodes[f * 100][2]
            for number, other in enumerate(rng.sample(code_files, 5)):
                shape.edge(file_id, other, "imports" if number % 2 else "imports_from", path, 1 + number)
        for symbol in test_symbols:
            path, line = symbol_line[symbol]
            shape.edge(symbol, rng.choice(code_symbols), "calls", path, line + 1)
        order = code_symbols[:]
        rng.shuffle(order)
        everything = code_symbols + test_symbols
        while len(shape.edges) < edges_wanted:
            caller = rng.choice(everything)
            callee = order[int(len(order) * rng.random() ** 2.5)]
            path, line = symbol_line[caller]
            draw = rng.random()
            relation = (
                "calls" if draw < 0.80 else "method" if draw < 0.88 else "references" if draw < 0.92
                else "inherits" if draw < 0.95 else "uses" if draw < 0.98 else "indirect_call"
            )
            confidence = "INFERRED" if rng.random() < 0.15 else "EXTRACTED"
            shape.edge(caller, callee, relation, path, line + 1 + rng.randrange(3), confidence)
        return shape

    return build


def hub_shape(scale: float) -> Shape:
    """``hub()`` with 25,000 callers, 25,000 callees and 2,000 test callers: every caller's
    dependency and every callee's impact meets the hub at hop 2."""
    callers, callees, tests = _scaled(25_000, scale), _scaled(25_000, scale), _scaled(2_000, scale)
    shape = Shape()
    hub_path = "core/hub.py"
    hub_file = shape.file_node(hub_path)
    hub = shape.node("core_hub", "hub()", hub_path, 10)
    shape.edge(hub_file, hub, "contains", hub_path, 10)
    files: dict[str, str] = {}

    def in_file(path: str) -> str:
        if path not in files:
            files[path] = shape.file_node(path)
        return files[path]

    for i in range(callers):
        path = f"callers/c{i // 500:03d}.py"
        line = 2 + 2 * (i % 500)
        node = shape.node(f"caller_{i:05d}", f"caller_{i:05d}()", path, line)
        shape.edge(in_file(path), node, "contains", path, line)
        shape.edge(node, hub, "calls", path, line + 1)
    for i in range(callees):
        path = f"callees/d{i // 500:03d}.py"
        line = 2 + 2 * (i % 500)
        node = shape.node(f"callee_{i:05d}", f"callee_{i:05d}()", path, line)
        shape.edge(in_file(path), node, "contains", path, line)
        shape.edge(hub, node, "calls", hub_path, 11 + i)
    for i in range(tests):
        path = f"tests/test_hub_{i // 200:02d}.py"
        line = 2 + 2 * (i % 200)
        node = shape.node(f"test_hub_{i:05d}", f"test_hub_{i:05d}()", path, line)
        shape.edge(in_file(path), node, "contains", path, line)
        shape.edge(node, hub, "calls", path, line + 1)
    return shape


def chain_shape(scale: float) -> Shape:
    """``step_000000() -> step_000001() -> ... -> step_099999()``: 100,000 calls in a line."""
    count = _scaled(100_000, scale)
    shape = Shape()
    files: dict[str, str] = {}
    previous: tuple[str, str, int] | None = None
    for i in range(count):
        path = f"chain/part_{i // 1000:03d}.py"
        if path not in files:
            files[path] = shape.file_node(path)
        line = 2 + 2 * (i % 1000)
        node = shape.node(f"step_{i:06d}", f"step_{i:06d}()", path, line)
        shape.edge(files[path], node, "contains", path, line)
        if previous is not None:
            shape.edge(previous[0], node, "calls", previous[1], previous[2] + 1)
        previous = (node, path, line)
    return shape


def clique_shape(scale: float) -> Shape:
    """600 members, each calling every other (359,400 calls): every node has 599 callers and 599
    callees, so every walk is cut by its budget on its first expansion."""
    members = _scaled(600, scale, 4)
    per_file = 100
    shape = Shape()
    ids, where = [], []
    files: dict[str, str] = {}
    for i in range(members):
        path = f"clique/m{i // per_file}.py"
        if path not in files:
            files[path] = shape.file_node(path)
        line = 2 + (members + 1) * (i % per_file)
        ids.append(shape.node(f"member_{i:03d}", f"member_{i:03d}()", path, line))
        where.append((path, line))
        shape.edge(files[path], ids[-1], "contains", path, line)
    for a in range(members):
        path, line = where[a]
        for b in range(members):
            if a != b:
                shape.edge(ids[a], ids[b], "calls", path, line + 1 + b)
    return shape


def parallel_shape(scale: float) -> Shape:
    """Many parallel call sites: 1,000 caller/callee pairs with 100 call sites each, plus
    ``hot_caller()`` calling ``hot_callee()`` at 20,000 sites; each pair's first site is also
    recorded three times (exact duplicate records)."""
    pairs, sites, hot_sites = _scaled(1_000, scale), 100, _scaled(20_000, scale)
    shape = Shape()
    files: dict[str, str] = {}

    def in_file(path: str) -> str:
        if path not in files:
            files[path] = shape.file_node(path)
        return files[path]

    for i in range(pairs):
        path = f"par/p{i // 50:03d}.py"
        line = 2 + (sites + 2) * (i % 50)
        caller = shape.node(f"pcaller_{i:04d}", f"pcaller_{i:04d}()", path, line)
        callee_path = f"par/q{i // 50:03d}.py"
        callee_line = 2 + 2 * (i % 50)
        callee = shape.node(f"pcallee_{i:04d}", f"pcallee_{i:04d}()", callee_path, callee_line)
        shape.edge(in_file(path), caller, "contains", path, line)
        shape.edge(in_file(callee_path), callee, "contains", callee_path, callee_line)
        for s in range(sites):
            shape.edge(caller, callee, "calls", path, line + 1 + s)
        for _ in range(3):
            shape.edge(caller, callee, "calls", path, line + 1)
    hot_path, callee_path = "hot/hot.py", "hot/target.py"
    hot = shape.node("hot_caller", "hot_caller()", hot_path, 2)
    target = shape.node("hot_callee", "hot_callee()", callee_path, 2)
    shape.edge(in_file(hot_path), hot, "contains", hot_path, 2)
    shape.edge(in_file(callee_path), target, "contains", callee_path, 2)
    for s in range(hot_sites):
        shape.edge(hot, target, "calls", hot_path, 3 + s)
    return shape


def overloads_shape(scale: float) -> Shape:
    """5,000 overloads ``render(int0)`` ... ``render(int4999)`` sharing the callable base
    ``render``, each called by two ``draw_*`` functions and each calling ``emit()``."""
    overloads = _scaled(5_000, scale)
    shape = Shape()
    files: dict[str, str] = {}

    def in_file(path: str) -> str:
        if path not in files:
            files[path] = shape.file_node(path)
        return files[path]

    emit_path = "ui/emit.py"
    emit = shape.node("ui_emit", "emit()", emit_path, 2)
    shape.edge(in_file(emit_path), emit, "contains", emit_path, 2)
    for i in range(overloads):
        path = f"ui/render_{i // 500:02d}.py"
        line = 2 + 3 * (i % 500)
        node = shape.node(f"render_{i:05d}", f"render(int{i})", path, line)
        shape.edge(in_file(path), node, "contains", path, line)
        shape.edge(node, emit, "calls", path, line + 1)
        draw_path = f"ui/draw_{i // 500:02d}.py"
        for c in range(2):
            draw_line = 2 + 4 * (i % 500) + 2 * c
            draw = shape.node(f"draw_{i:05d}_{c}", f"draw_{i}_{c}()", draw_path, draw_line)
            shape.edge(in_file(draw_path), draw, "contains", draw_path, draw_line)
            shape.edge(draw, node, "calls", draw_path, draw_line + 1)
    return shape


SYNTHETIC: tuple[SyntheticSpec, ...] = (
    SyntheticSpec(
        "synthetic-100k", "code-base-like, 40,000 nodes / 100,000 edges",
        limits_shape(40_000, 100_000, seed=100), (),
    ),
    SyntheticSpec(
        "synthetic-500k", "code-base-like at the reader's limits: 200,000 nodes / 500,000 edges",
        limits_shape(200_000, 500_000, seed=500), (),
    ),
    SyntheticSpec(
        "adv-hub", "a hub with 25,000 callers, 25,000 callees and 2,000 test callers",
        hub_shape, ("hub()", "caller_00000()", "callee_00000()", "core/hub.py"), quick_scale=0.02,
    ),
    SyntheticSpec(
        "adv-chain", "a chain of 100,000 calls", chain_shape,
        ("step_000000()", "step_050000()", "step_099999()"),
    ),
    SyntheticSpec(
        "adv-clique", "a dense clique: 600 members, 359,400 calls", clique_shape,
        ("member_000()", "member_599()"),
    ),
    SyntheticSpec(
        "adv-parallel", "1,000 pairs x 100 parallel call sites, one pair with 20,000 sites",
        parallel_shape, ("hot_caller()", "hot_callee()", "pcallee_0000()"), quick_scale=0.02,
    ),
    SyntheticSpec(
        "adv-overloads", "5,000 overloads render(int0)..render(int4999), base `render`",
        overloads_shape, ("render", "render(int42)", "emit()"), quick_scale=0.02,
    ),
)


# ---------------------------------------------------------------------------------------------
# Writing


def _file_bytes(path: str, lines: int) -> bytes:
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return "".join(f"# {stem} line {n}\n" for n in range(1, lines + 1)).encode()


def _records(shape: Shape) -> Iterator[tuple[str, str]]:
    for node_id, label, path, line in shape.nodes:
        yield "nodes", json.dumps({
            "id": node_id, "label": label, "file_type": "code", "source_file": path,
            "source_location": f"L{line}", "_origin": "ast",
        })
    for source, target, relation, confidence, path, line in shape.edges:
        yield "edges", json.dumps({
            "source": source, "target": target, "relation": relation,
            "context": "call" if relation == "calls" else relation, "confidence": confidence,
            "source_file": path, "source_location": f"L{line}", "weight": 1.0, "_origin": "ast",
        })


def write_graph(shape: Shape, graph_path: Path, repo: Path) -> None:
    with open(graph_path, "w", encoding="utf-8") as out:
        current = None
        first = True
        for list_name, text in _records(shape):
            if list_name != current:
                out.write("{\n  \"nodes\": [\n" if current is None else "\n  ],\n  \"edges\": [\n")
                current, first = list_name, True
            if not first:
                out.write(",\n")
            out.write("    " + text)
            first = False
        sources = [str(repo / path) for path in sorted(shape.lines)]
        out.write(
            "\n  ],\n  \"hyperedges\": [],\n  \"input_tokens\": 0,\n  \"output_tokens\": 0,\n"
            f"  \"extracted_sources\": {json.dumps(sources)}\n}}\n"
        )


def prepare_synthetic(spec: SyntheticSpec, scale: float, cache: Path, log: Log) -> dict[str, Any]:
    """The repository and provider-style output of one shape at ``scale`` (cached)."""
    suffix = "" if scale == 1.0 else f"-x{scale:g}"
    home = cache / "synthetic" / f"{spec.name}{suffix}"
    repo, out, meta_path = home / "repo", home / "graphify-out", home / "meta.json"
    cached = import_memory.cached_meta(meta_path, repo, out, spec.name, log)
    if cached is not None and cached.get("generator_version") == GENERATOR_VERSION:
        return cached
    shutil.rmtree(home, ignore_errors=True)
    (home / "home").mkdir(parents=True)
    log(f"[{spec.name}] generating ({spec.description}, scale {scale:g})")
    shape = spec.build(scale)
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    inventory = {}
    for path, lines in sorted(shape.lines.items()):
        data = _file_bytes(path, lines + 2)
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        digest = hashlib.md5(data).hexdigest()
        inventory[path] = {"mtime": 0.0, "seen": 0.0, "ast_hash": digest, "semantic_hash": digest}
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"synthetic {spec.name}")
    out.mkdir()
    write_graph(shape, out / "graph.json", repo)
    (out / "manifest.json").write_text(json.dumps(inventory, indent=2))
    meta = {
        "package": spec.name,
        "version": f"gen{GENERATOR_VERSION}" + suffix,
        "registry": "synthetic",
        "language": "synthetic",
        "description": spec.description,
        "scale": scale,
        "generator_version": GENERATOR_VERSION,
        "tracked_files": len(shape.lines),
        "nodes_written": len(shape.nodes),
        "edges_written": len(shape.edges),
        **import_memory.checkout_facts(repo, out),
        "provider_seconds": None,
    }
    meta_path.write_text(json.dumps(meta, indent=2))
    return meta
