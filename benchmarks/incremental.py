"""Is the provider's own incremental run a cold build? Real one-file commits, compared byte for byte.

Issue 31 item 5. For each commit B of a real git history whose diff against its parent A is one
modified ``.py`` file (nothing else), with the pinned provider run contained exactly as
``cm-graph build`` runs it (the commit materialised by cm-graph's census, mtimes 0, the tree
seen at the fixed run root under bubblewrap, the scrubbed environment):

1. **cold A**: a provider run on A's tree (no cache, no previous output);
2. **incremental B**: that same tree brought to B in place, as a checkout would (the changed
   file rewritten with a new mtime; ``graphify-out/`` with A's ``graph.json``, ``manifest.json``
   and cache left where the provider wrote them), and the provider run again: its incremental
   mode (``detect_incremental`` + ``resolution_context_nodes`` + ``merge_raw_extraction``);
3. **cold B**: a provider run on a fresh tree of B.

and compares incremental B with cold B: ``graph.json`` bytes; nodes and edges as sets of
normalised records (``json.dumps(sort_keys=True)``, order ignored), with the differing edges
kept; ``extracted_sources``; and cm-graph's own bytes: both outputs published with
``publish_provider_output`` into two state dirs bound to B, then ``graph.bin`` and every index
table but ``generation`` (uuid and clock) compared. It also measures **locality**: the edges
whose ``source_file`` is *not* the changed file, cold A against cold B. Any commit where they
differ is one where the unchanged files' cross-file results cannot be carried over verbatim.

    python benchmarks/incremental.py --repo /path/to/requests --commits 20 \
        --repo /path/to/flask --commits 20 --json-out /tmp/incremental.json
    python benchmarks/incremental.py --repo R --pair A B     # one given commit pair

The repositories are full, non-bare clones (``git clone``). Run it once, ``nice -n 10``; the
state dirs and trees are temporary directories, removed after each commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import apsw

from cm_graph.base.git import read_census
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current
from cm_graph.provider.build import materialise
from cm_graph.provider.fixedroot import fixed_root, pin_mtimes
from cm_graph.provider.publish import publish_provider_output
from cm_graph.provider.run import (
    VerifiedProvider,
    bwrap_path,
    bwrap_prefix,
    default_executable,
    probe_containment,
    provider_environment,
    spawn_kept,
    stop_group,
    verify_provider,
)

CHECKOUT_MTIME_NS = 1_700_000_000 * 10**9  # "the checkout touched this file": any mtime but 0
KEPT_EDGES = 12  # differing edges kept per commit in the JSON (all are counted)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, check=True,
        env={"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"},
    )
    return done.stdout.decode("utf-8", "replace")


def one_file_commits(repo: Path, wanted: int) -> list[tuple[str, str, str]]:
    """The newest ``wanted`` first-parent non-merge commits whose diff against their parent is
    exactly one modified ``.py`` file: ``(parent, commit, path)``."""
    found: list[tuple[str, str, str]] = []
    for commit in git(repo, "rev-list", "--first-parent", "--no-merges", "HEAD").split():
        lines = git(repo, "diff-tree", "-r", "--no-renames", "--name-status", f"{commit}^", commit).splitlines()
        if len(lines) == 1:
            status, _, path = lines[0].partition("\t")
            if status == "M" and path.endswith(".py"):
                found.append((git(repo, "rev-parse", f"{commit}^").strip(), commit, path))
                if len(found) == wanted:
                    break
    return found


def run_contained(provider: VerifiedProvider, scratch: Path) -> float:
    """``graphify extract . <pinned options>`` in ``scratch/source`` seen at the fixed run root
    under bubblewrap: ``run_provider``'s command, environment and containment, but allowed to
    find a previous ``graphify-out/`` (that is what switches the provider to incremental)."""
    bwrap = bwrap_path()
    if bwrap is None or not probe_containment(bwrap, provider, scratch):
        raise SystemExit("bubblewrap cannot contain the provider here; this benchmark needs it.")
    root = fixed_root()
    argv = [*bwrap_prefix(bwrap, provider.read_only, scratch, root, root / "source"),
            str(provider.executable), "extract", ".", *provider.pin.options]
    started = time.monotonic()
    child, lifeline = spawn_kept(argv, cwd=scratch / "source", env=provider_environment(root))
    try:
        returncode = child.wait(timeout=3600)
    finally:
        stop_group(child)
        os.close(lifeline)
    if returncode != 0:
        raise SystemExit(f"provider failed (exit {returncode}) in {scratch}")
    return time.monotonic() - started


def fresh_tree(repo: Path, commit: str, scratch: Path) -> None:
    scratch.mkdir(mode=0o700)
    materialise(read_census(repo, commit), repo, scratch / "source")
    for name in ("home", "tmp"):
        (scratch / name).mkdir(mode=0o700)
    pin_mtimes(scratch / "source")


def records(graph: dict[str, Any], key: str) -> Counter[str]:
    return Counter(json.dumps(item, sort_keys=True) for item in graph.get(key, []))


def edge_key(graph: dict[str, Any]) -> str:
    return "links" if "links" in graph else "edges"


def owned_elsewhere(graph: dict[str, Any], path: str) -> Counter[str]:
    """Edge records whose ``source_file`` is not ``path`` (the unchanged files' edges)."""
    return Counter(
        json.dumps(edge, sort_keys=True) for edge in graph.get(edge_key(graph), [])
        if edge.get("source_file") != path
    )


def index_digest(state: Path, checkout: Path) -> tuple[str, str]:
    """sha256 of the current generation's ``graph.bin`` and of its index's tables but
    ``generation`` (rows in rowid order)."""
    workspace = Workspace.locate(checkout, state)
    current = read_current(workspace)
    graph_bin = workspace.generation_dir(current.id) / "graph.bin"
    index = workspace.index_path(current.id)
    digest = hashlib.sha256()
    connection = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    tables = [row[0] for row in connection.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'generation' ORDER BY name")]
    for table in tables:
        digest.update(table.encode() + b"\0")
        for row in connection.execute(f'SELECT * FROM "{table}"'):
            digest.update(repr(row).encode())
    connection.close()
    return hashlib.sha256(graph_bin.read_bytes()).hexdigest(), digest.hexdigest()


def published(output: Path, checkout: Path, commit: str, state: Path) -> tuple[str, str]:
    state.mkdir(mode=0o700)
    publish_provider_output(Workspace.locate(checkout, state), output, revision=commit)
    return index_digest(state, checkout)


def compare_pair(
    provider: VerifiedProvider, repo: Path, parent: str, commit: str, path: str, work: Path,
) -> dict[str, Any]:
    incremental, cold = work / "incremental", work / "cold"
    fresh_tree(repo, parent, incremental)
    cold_a_s = run_contained(provider, incremental)
    cold_a = json.loads((incremental / "source/graphify-out/graph.json").read_bytes())
    target = incremental / "source" / path
    target.write_bytes(git_blob(repo, commit, path))
    os.utime(target, ns=(CHECKOUT_MTIME_NS, CHECKOUT_MTIME_NS))
    incremental_s = run_contained(provider, incremental)
    fresh_tree(repo, commit, cold)
    cold_b_s = run_contained(provider, cold)
    inc_bytes = (incremental / "source/graphify-out/graph.json").read_bytes()
    cold_bytes = (cold / "source/graphify-out/graph.json").read_bytes()
    inc, cold_b = json.loads(inc_bytes), json.loads(cold_bytes)
    inc_edges, cold_edges = records(inc, edge_key(inc)), records(cold_b, edge_key(cold_b))
    only_cold = sorted((cold_edges - inc_edges).elements())
    only_inc = sorted((inc_edges - cold_edges).elements())
    moved_a, moved_b = owned_elsewhere(cold_a, path), owned_elsewhere(cold_b, path)
    inc_index = published(incremental / "source/graphify-out", repo, commit, work / "state-incremental")
    cold_index = published(cold / "source/graphify-out", repo, commit, work / "state-cold")
    result = {
        "parent": parent, "commit": commit, "changed": path,
        "cold_a_s": round(cold_a_s, 2), "incremental_s": round(incremental_s, 2), "cold_b_s": round(cold_b_s, 2),
        "graph_json_identical": inc_bytes == cold_bytes,
        "nodes_equal_as_sets": records(inc, "nodes") == records(cold_b, "nodes"),
        "node_order_equal": [n.get("id") for n in inc["nodes"]] == [n.get("id") for n in cold_b["nodes"]],
        "edges_only_cold": len(only_cold), "edges_only_incremental": len(only_inc),
        "only_cold_by_relation": dict(Counter(json.loads(e).get("relation") for e in only_cold)),
        "only_incremental_by_relation": dict(Counter(json.loads(e).get("relation") for e in only_inc)),
        "extracted_sources": [len(inc.get("extracted_sources", [])), len(cold_b.get("extracted_sources", []))],
        "unchanged_files_edges_changed": sum(((moved_a - moved_b) + (moved_b - moved_a)).values()),
        "graph_bin_identical": inc_index[0] == cold_index[0],
        "index_tables_identical": inc_index[1] == cold_index[1],
        "sample_only_cold": [json.loads(e) for e in only_cold[:KEPT_EDGES]],
        "sample_only_incremental": [json.loads(e) for e in only_inc[:KEPT_EDGES]],
        "sample_unchanged_files_edges": {
            "only_a": [json.loads(e) for e in sorted((moved_a - moved_b).elements())[:KEPT_EDGES]],
            "only_b": [json.loads(e) for e in sorted((moved_b - moved_a).elements())[:KEPT_EDGES]],
        },
    }
    return result


def git_blob(repo: Path, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", f"{commit}:{path}"], capture_output=True, check=True,
        env={"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"},
    ).stdout


def summarise(project: str, rows: list[dict[str, Any]]) -> str:
    def count(key: str) -> int:
        return sum(1 for row in rows if row[key])

    return (
        f"{project}: {len(rows)} commits; graph.json identical {count('graph_json_identical')}, "
        f"graph.bin identical {count('graph_bin_identical')}, index tables identical "
        f"{count('index_tables_identical')}; edge sets differ on "
        f"{sum(1 for r in rows if r['edges_only_cold'] or r['edges_only_incremental'])} "
        f"(only cold {sum(r['edges_only_cold'] for r in rows)}, only incremental "
        f"{sum(r['edges_only_incremental'] for r in rows)}); unchanged files' edges moved on "
        f"{sum(1 for r in rows if r['unchanged_files_edges_changed'])}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, action="append", required=True)
    parser.add_argument("--commits", type=int, action="append", default=[])
    parser.add_argument("--pair", nargs=2, metavar=("PARENT", "COMMIT"))
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    provider = verify_provider(default_executable())
    report: dict[str, Any] = {"provider": provider.pin.requirement, "load": os.getloadavg(), "projects": {}}
    for number, repo in enumerate(args.repo):
        repo = repo.resolve()
        if args.pair:
            parent, commit = args.pair
            (path,) = [line.partition("\t")[2] for line in git(
                repo, "diff-tree", "-r", "--no-renames", "--name-status", parent, commit).splitlines()]
            pairs = [(parent, commit, path)]
        else:
            pairs = one_file_commits(repo, args.commits[number] if number < len(args.commits) else 20)
        rows = []
        for parent, commit, path in pairs:
            with tempfile.TemporaryDirectory(prefix="cm-graph-incremental-") as temp:
                row = compare_pair(provider, repo, parent, commit, path, Path(temp))
            rows.append(row)
            print(f"{repo.name} {commit[:10]} {path}: json={row['graph_json_identical']} "
                  f"bin={row['graph_bin_identical']} -cold {row['edges_only_cold']} "
                  f"+inc {row['edges_only_incremental']} unchanged-moved "
                  f"{row['unchanged_files_edges_changed']} ({row['incremental_s']}s vs {row['cold_b_s']}s)",
                  file=sys.stderr, flush=True)
            if args.json_out:
                report["projects"][str(repo)] = rows
                args.json_out.write_text(json.dumps(report, indent=1))
        report["projects"][str(repo)] = rows
        print(summarise(repo.name, rows))
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
