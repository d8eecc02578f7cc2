"""Recall and precision of the fleet's JavaScript/TypeScript cross-repository uses (issue 28 item
5) on real npm packages that import each other, against an independent ground truth.

    python benchmarks/fleet_resolved_js.py [--out DIR] [--sets koa,tanstack] [--fleet-name js] [--json FILE]

Two sets from their npm tarballs (``npm pack <name>@<version>``), each unpacked, committed to its
own git repository and built with the pinned provider through ``cm-graph refresh``, then joined in
one fleet per set:

- ``koa`` (CommonJS): koa 2.15.3 and nine of its dependencies, which also use each other
  (koa-convert and koa use koa-compose, http-assert and koa use http-errors, http-errors uses
  statuses and depd...): koa-compose 4.1.0, koa-convert 2.0.0, http-errors 1.8.1, http-assert
  1.5.0, statuses 1.5.0, delegates 1.0.0, depd 2.0.0, on-finished 2.4.1, only 0.0.2;
- ``tanstack`` (TypeScript sources and ES builds): @tanstack/query-core 5.59.0 and
  @tanstack/react-query 5.59.0 (both tarballs ship ``src/*.ts`` beside ``build/``).

**Ground truth** (it shares no code with cm-graph): a node script (``fleet_js_truth.mjs``) parses every
tracked JS/TS file of each member with acorn or @babel/parser (``benchmarks/js_truth.py``'s pinned
parsers), finds each ``import``/``require()`` whose bare specifier names another member's package,
and resolves it with **Node's own resolver** (``import.meta.resolve`` for an ES import,
``require.resolve`` for ``require()``, over a ``node_modules`` of symlinks to the member
checkouts: ``exports`` and its conditions, ``main``, ``index`` as Node applies them), and each
relative import whose re-exports lead into one (``export * from '@tanstack/query-core'`` in
react-query's own ``src/index.ts``). Build outputs (``build/``, ``dist/``: the pinned provider's
graph leaves them out) are not read as users, and a definition found in one is the definition of
the same name in its ``src/`` TypeScript source (the convention ``fleet/npm_entries.py`` states,
the line read from the source). It follows
the target file's exports to a definition (``export {X} from``, ``export *``, ``export default``,
``module.exports = f``/``{...}``, ``exports.f = g``, an imported binding re-exported) and records
every site that names it: the import's local name, every identifier reading that binding in an
expression (not a type position), ``ns.X`` on a namespace or a required module, and a class's
``constructor`` at ``new X()``. A use is (user repository, path, line, the definition's
repository, path and line).

**The fleet's answer** and the scores are ``fleet_resolved.py``'s: ``cross_repo_usages`` for
every name either side has; recall over the truth; precision over the answer's uses of the
forms the truth models (not ``member``, a typed value's method, nor ``override``).

Run under another checkout's code (``PYTHONPATH=<main checkout> ... --fleet-name js-before``,
from a directory outside this checkout) it measures that code's fleet on the same members.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet import _git, log, sdist_repo  # noqa: E402
from fleet_resolved import Use, fleet_uses  # noqa: E402
from js_truth import SUFFIXES, install_parsers  # noqa: E402

SETS = {
    "koa": ("koa@2.15.3", "koa-compose@4.1.0", "koa-convert@2.0.0", "http-errors@1.8.1", "http-assert@1.5.0",
            "statuses@1.5.0", "delegates@1.0.0", "depd@2.0.0", "on-finished@2.4.1", "only@0.0.2"),
    "tanstack": ("@tanstack/query-core@5.59.0", "@tanstack/react-query@5.59.0"),
}

# Build outputs: the pinned provider's graph leaves them out, so the truth's users are the sources.
OUTPUTS = ("build/", "dist/")
TRUTH = Path(__file__).resolve().parent / "fleet_js_truth.mjs"


def pack(out: Path, pin: str) -> Path:
    """The package's tarball (``npm pack``, once), renamed ``.tar.gz`` for ``sdist_repo``."""
    tarballs = out / "tarballs"
    tarballs.mkdir(parents=True, exist_ok=True)
    name, version = pin.rsplit("@", 1)
    stem = f"{name.lstrip('@').replace('/', '-')}-{version}"
    wanted = tarballs / f"{stem}.tar.gz"
    if not wanted.is_file():
        subprocess.run(["npm", "pack", pin, "--silent", "--pack-destination", str(tarballs)], check=True,
                       stdout=subprocess.DEVNULL)
        (tarballs / f"{stem}.tgz").rename(wanted)
    return wanted


def repository_name(name: str) -> str:
    return name.lstrip("@").replace("/", "-")


def prepare(out: Path, pins: tuple[str, ...], state: Path, fleet: str) -> dict[str, tuple[str, Path]]:
    """Each package committed to its own repository, built, and added to ``fleet``:
    repository name -> (npm name, checkout)."""
    cm_graph = Path(sys.executable).parent / "cm-graph"
    repos = {}
    for pin in pins:
        name = pin.rsplit("@", 1)[0]
        repo = sdist_repo(pack(out, pin), out)
        t = time.perf_counter()
        done = subprocess.run([str(cm_graph), "refresh", "--repo-path", str(repo), "--state-dir", str(state), "--json"],
                              capture_output=True, text=True, check=False)
        log(f"{repo.name}: refresh exit {done.returncode} in {time.perf_counter() - t:.1f} s")
        repos[repository_name(name)] = (name, repo)
    listed = subprocess.run([str(cm_graph), "fleet", "list", "--state-dir", str(state), "--json"],
                            capture_output=True, text=True, check=False).stdout
    if fleet not in listed:
        for repository, (_name, repo) in sorted(repos.items()):
            subprocess.run([str(cm_graph), "fleet", "add", fleet, "--repo-path", str(repo), "--repository", repository,
                            "--state-dir", str(state)], capture_output=True, check=True)
    return repos


def truth(out: Path, set_name: str, repos: dict[str, tuple[str, Path]]) -> tuple[set[Use], set[str], int]:
    """The node script's uses over these members (Node resolves each package specifier), the
    names of the definitions they use, and how many files it could not parse."""
    cache = Path(tempfile.gettempdir()) / "cm-graph-bench"
    acorn, babel = install_parsers(cache)
    anchor = out / f"resolve-{set_name}"
    shutil.rmtree(anchor, ignore_errors=True)
    for _repository, (name, repo) in repos.items():
        link = anchor / "node_modules" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(repo, link)
    (anchor / "anchor.mjs").write_text("export const resolve = (spec) => import.meta.resolve(spec);\n")
    (anchor / "anchor.cjs").write_text("")
    script = anchor / "truth.mjs"  # beside the anchor, so that its own imports are node's builtins only
    shutil.copyfile(TRUTH, script)
    users = [{"repository": repository, "dir": str(repo),
              "files": [p for p in _git(repo, "ls-files", *SUFFIXES).splitlines()
                        if ".d." not in p and not p.startswith(OUTPUTS)]}
             for repository, (_name, repo) in sorted(repos.items())]
    members = [{"repository": r, "dir": str(repo), "name": name} for r, (name, repo) in sorted(repos.items())]
    done = subprocess.run(["node", str(script), str(acorn), str(babel), str(anchor)], capture_output=True, text=True,
                          input=json.dumps({"members": members, "users": users}), check=True)
    found = json.loads(done.stdout)
    uses = {tuple(use[:6]) for use in found["uses"]}
    return uses, {use[6] for use in found["uses"]}, found["unparsed"]  # type: ignore[return-value]


def rederived_identical(state: Path, fleet_name: str) -> bool:
    """The fleet file derived again (its files removed first) has the same bytes."""
    from cm_graph.fleet.build import open_fleet

    digests = []
    for _ in range(2):
        for old in (state / "fleet" / fleet_name).glob("*.sqlite*"):
            old.unlink()
        fleet = open_fleet(state, fleet_name)
        digests.append(hashlib.sha256(fleet.path.read_bytes()).hexdigest())
        fleet.close()
    return digests[0] == digests[1]


def measure(out: Path, set_name: str, fleet: str) -> dict[str, Any]:
    state = out / "state"
    repos = prepare(out, SETS[set_name], state, fleet)
    expected, names, unparsed = truth(out, set_name, repos)
    answer = fleet_uses(state, fleet, names, {r: repo for r, (_n, repo) in repos.items()})
    found: dict[Use, tuple[str, str]] = answer.pop("uses")
    answer["rederived_identical"] = rederived_identical(state, fleet)
    hit = expected & set(found)
    modelled = {k: v for k, v in found.items() if v[1] not in ("member", "override")}
    beyond = Counter(v[1] for v in found.values() if v[1] in ("member", "override"))
    missed = sorted(expected - set(found))
    wrong = sorted(set(modelled) - expected)
    by_pair = Counter((u[0], u[3]) for u in expected)
    return {
        "set": set_name, "fleet": fleet, "members": sorted(repos), "truth_unparsed_files": unparsed,
        "truth_uses": len(expected), "truth_by_pair": {f"{a} -> {b}": n for (a, b), n in sorted(by_pair.items())},
        "answer_uses": len(found), "answer_by_kind": dict(sorted(Counter(v[1] for v in found.values()).items())),
        "recall": round(len(hit) / len(expected), 4) if expected else None,
        "precision_modelled": round(len(set(modelled) & expected) / len(modelled), 4) if modelled else None,
        "beyond_truth": dict(sorted(beyond.items())),
        "missed_examples": [list(m) for m in missed[:15]], "missed": len(missed),
        "unconfirmed_examples": [[*w, *modelled[w]] for w in wrong[:15]], "unconfirmed": len(wrong),
        "beyond_examples": [list(k) for k, v in sorted(found.items()) if v[1] in ("member", "override")][:12],
        **answer,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(tempfile.gettempdir()) / "cm-graph-bench" / "fleet-resolved-js")
    parser.add_argument("--sets", default="koa,tanstack")
    parser.add_argument("--fleet-name", default="js")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results = [measure(args.out, name, f"{args.fleet_name}-{name}") for name in args.sets.split(",")]
    text = json.dumps(results, indent=2, sort_keys=True)
    if args.json:
        args.json.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
