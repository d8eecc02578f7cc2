"""Hunk mapping of ``cm-graph changes`` against an ``ast`` ground truth, on real release-to-release diffs.

For each subject, two consecutive releases' sdists (``pip download --no-binary :all: --no-deps``)
are unpacked and committed as two commits of a fresh repository (fixed dates); the graph is built
on the first with the real ``cm-graph build`` (the pinned provider), and ``cm-graph changes`` is
asked about the second in three ways:

- ``commit``: ``--commit HEAD`` (the second release committed; the bound commit is its parent);
- ``staged``: the second release's tree staged on top of the first (``--staged``);
- ``worktree``: the second release's tree in the working tree, not staged (``--worktree``).

The truth is computed independently of the diff, from the two trees' files alone: every function
and method of every Python file that parses on both sides, keyed by its path and qualified name
within its module (``Class.method``, ``outer.inner``; a repeated name numbered ``#2``...), with its
*own text* (the lines from its first decorator to its last body line, less the lines of the
definitions nested in it, each stripped of its indentation). Then:

- **edits**: a key on both sides whose own text differs; **edits below an insertion** are the
  edits whose start line moved (the old-side range is what must attribute them);
- **deletions** / **additions**: a key on one side only, less the renames;
- **renames**: a file missing on one side matched to a file new on the other by its lines
  (difflib ratio >= 0.5, best first, one to one), its definitions paired by key; and a deleted
  and an added definition whose own text is identical but for the name on its ``def`` line (a
  rename) or identical with the same name (a move), one to one.

``cm-graph changes`` is scored on functions and methods only: recall and precision per category.
A renamed definition whose body changed counts as a rename and as an edit on both sides.

    python benchmarks/changes.py [--subjects itsdangerous,markupsafe,click,click-8.1.8,attrs]
        [--modes commit,staged,worktree] [--json]
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

DOWNLOADS = Path(tempfile.gettempdir()) / "cm-graph-bench" / "downloads"
SUBJECTS = {
    "itsdangerous": ("itsdangerous", "2.1.2", "2.2.0"),
    "markupsafe": ("markupsafe", "2.1.5", "3.0.0"),
    "click": ("click", "8.1.6", "8.1.7"),
    "click-8.1.8": ("click", "8.1.7", "8.1.8"),
    "attrs": ("attrs", "24.1.0", "24.2.0"),
}
MODES = ("commit", "staged", "worktree")
CATEGORIES = ("edits", "edits_below_insertion", "deletions", "additions", "renames")
FIXED_DATE = "2026-01-01T12:00:00+00:00"
Key = tuple[str, str]


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


def sdist(name: str, version: str) -> Path:
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    for found in DOWNLOADS.glob("*.tar.gz"):
        stem = found.name[: -len(".tar.gz")]
        if stem.lower().replace("_", "-") == f"{name}-{version}".lower():
            return found
    log(f"pip download --no-binary :all: {name}=={version}")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    f"{name}=={version}", "-d", str(DOWNLOADS)], check=True, capture_output=True)
    return sdist(name, version)


def unpack(archive: Path, into: Path) -> None:
    """The sdist's files (its one top directory stripped) into ``into``, which is emptied first
    (but ``.git``)."""
    for child in into.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = member.name.split("/", 1)
            if len(parts) < 2 or not parts[1] or not (member.isfile() or member.isdir()):
                continue
            target = into / parts[1]
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            handle = tar.extractfile(member)
            assert handle is not None
            target.write_bytes(handle.read())


# -- the truth -----------------------------------------------------------------------------------
def definitions(source: bytes) -> dict[str, dict[str, Any]] | None:
    """Every def/class of ``source`` by key (functions and methods marked), with its own text."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    lines = source.split(b"\n")
    found: list[dict[str, Any]] = []

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                qualname = f"{prefix}{child.name}"
                function = not isinstance(child, ast.ClassDef)
                found.append({"qualname": qualname, "name": child.name, "start": start, "line": child.lineno,
                              "end": child.end_lineno or child.lineno, "function": function})
                visit(child, qualname + ".", not function)
            else:
                visit(child, prefix, in_class)

    visit(tree, "", False)
    owner: dict[int, int] = {}
    for at, item in sorted(enumerate(found), key=lambda pair: (-(pair[1]["end"] - pair[1]["start"]), pair[1]["start"])):
        for number in range(item["start"], item["end"] + 1):
            owner[number] = at
    counts: dict[str, int] = {}
    keyed: dict[str, dict[str, Any]] = {}
    for at, item in sorted(enumerate(found), key=lambda pair: (pair[1]["start"], pair[1]["line"], -pair[1]["end"])):
        counts[item["qualname"]] = counts.get(item["qualname"], 0) + 1
        key = item["qualname"] if counts[item["qualname"]] == 1 else f"{item['qualname']}#{counts[item['qualname']]}"
        own = [lines[n - 1].strip() for n in range(item["start"], item["end"] + 1) if owner.get(n) == at]
        anonymous = [text.replace(item["name"].encode(), b"\0", 1) if n == item["line"] else text
                     for n, text in zip([n for n in range(item["start"], item["end"] + 1) if owner.get(n) == at],
                                        own, strict=True)]
        keyed[key] = {**item, "own": b"\n".join(own), "anonymous": b"\n".join(anonymous)}
    return keyed


def python_files(root: Path) -> dict[str, bytes]:
    found = sorted([*root.rglob("*.py"), *root.rglob("*.pyi")])
    return {str(path.relative_to(root)): path.read_bytes() for path in found
            if ".git" not in path.relative_to(root).parts and path.is_file() and not path.is_symlink()}


def truth(old_root: Path, new_root: Path) -> dict[str, set[Any]]:
    old_files, new_files = python_files(old_root), python_files(new_root)
    old_defs = {p: d for p, d in ((p, definitions(b)) for p, b in old_files.items()) if d is not None}
    new_defs = {p: d for p, d in ((p, definitions(b)) for p, b in new_files.items()) if d is not None}
    gone = sorted(set(old_files) - set(new_files))
    came = sorted(set(new_files) - set(old_files))
    pairs: list[tuple[float, str, str]] = []
    for old_path in gone:
        for new_path in came:
            ratio = difflib.SequenceMatcher(None, old_files[old_path].split(b"\n"),
                                            new_files[new_path].split(b"\n"), autojunk=False).ratio()
            if ratio >= 0.5:
                pairs.append((-ratio, old_path, new_path))
    renamed_files: dict[str, str] = {}
    for _, old_path, new_path in sorted(pairs):
        if old_path not in renamed_files and new_path not in renamed_files.values():
            renamed_files[old_path] = new_path
    result: dict[str, set[Any]] = {name: set() for name in CATEGORIES}
    deleted: dict[Key, dict[str, Any]] = {}
    added: dict[Key, dict[str, Any]] = {}
    for path, defs in old_defs.items():
        counterpart = renamed_files.get(path, path)
        other = new_defs.get(counterpart)
        if other is None and counterpart in new_files:
            continue  # unparsable on the new side: nothing to compare
        for key, item in defs.items():
            if not item["function"]:
                continue
            now = (other or {}).get(key)
            if now is None:
                deleted[(path, key)] = item
                continue
            if counterpart != path:
                result["renames"].add(((path, key), (counterpart, key)))
            if now["own"] != item["own"]:
                result["edits"].add((path, key))
                if now["start"] != item["start"]:
                    result["edits_below_insertion"].add((path, key))
    for path, defs in new_defs.items():
        origin = next((o for o, n in renamed_files.items() if n == path), path)
        before = old_defs.get(origin)
        if before is None and origin in old_files:
            continue
        for key, item in defs.items():
            if item["function"] and key not in (before or {}):
                added[(path, key)] = item
    by_text: dict[bytes, tuple[list[Key], list[Key]]] = {}
    for key, item in deleted.items():
        by_text.setdefault(item["anonymous"], ([], []))[0].append(key)
    for key, item in added.items():
        by_text.setdefault(item["anonymous"], ([], []))[1].append(key)
    for text, (olds, news) in by_text.items():
        if len(olds) == 1 and len(news) == 1:
            was, now = deleted[olds[0]], added[news[0]]
            if was["name"] != now["name"] and text.count(b"\n") < 1:
                continue
            result["renames"].add((olds[0], news[0]))
            del deleted[olds[0]], added[news[0]]
    result["deletions"] = set(deleted)
    result["additions"] = set(added)
    return result


# -- cm-graph ------------------------------------------------------------------------------------
def cm_graph(*args: str, cwd: Path, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cm_graph", *args, "--state-dir", str(state)], cwd=cwd,
                          capture_output=True, text=True, check=False)


def answered(document: dict[str, Any]) -> dict[str, set[Any]]:
    result: dict[str, set[Any]] = {name: set() for name in CATEGORIES}
    for item in document["definitions"]:
        if item["kind"] not in ("function", "method"):
            continue
        old, new = item["old"], item["new"]
        old_key = (old["path"], old["name"]) if old else None
        new_key = (new["path"], new["name"]) if new else None
        if item["change"] == "added":
            result["additions"].add(new_key)
        elif item["change"] == "deleted":
            result["deletions"].add(old_key)
        elif item["change"] == "modified":
            result["edits"].add(old_key)
            if old["start_line"] != new["start_line"]:
                result["edits_below_insertion"].add(old_key)
        elif item["change"] == "renamed":
            result["renames"].add((old_key, new_key))
            if item.get("body_changed"):
                result["edits"].add(old_key)
                if old["start_line"] != new["start_line"]:
                    result["edits_below_insertion"].add(old_key)
    return result


def score(expected: set[Any], got: set[Any]) -> dict[str, Any]:
    hit = len(expected & got)
    return {"truth": len(expected), "answered": len(got), "hit": hit,
            "recall": hit / len(expected) if expected else None, "precision": hit / len(got) if got else None,
            "missed": sorted(map(str, expected - got))[:5], "extra": sorted(map(str, got - expected))[:5]}


def run_subject(name: str, modes: tuple[str, ...], base: Path) -> dict[str, Any]:
    package, first, second = SUBJECTS[name]
    old_archive, new_archive = sdist(package, first), sdist(package, second)
    work = base / name
    shutil.rmtree(work, ignore_errors=True)
    repo, state, old_tree, new_tree = work / "repo", work / "state", work / "old", work / "new"
    for directory in (repo, old_tree, new_tree):
        directory.mkdir(parents=True)
    unpack(old_archive, old_tree)
    unpack(new_archive, new_tree)
    expected = truth(old_tree, new_tree)
    git(repo, "init", "-q", "-b", "main")
    unpack(old_archive, repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{package} {first}")
    bound = git(repo, "rev-parse", "HEAD")
    log(f"[{name}] cm-graph build of {package} {first}")
    built = cm_graph("build", cwd=repo, state=state)
    if built.returncode != 0:
        raise SystemExit(f"[{name}] build failed: {built.stderr[-2000:]}")
    results: dict[str, Any] = {"subject": f"{package} {first} -> {second}",
                               "truth": {k: len(v) for k, v in expected.items()}, "modes": {}}
    for mode in modes:
        git(repo, "reset", "-q", "--hard", bound)
        git(repo, "clean", "-qfdx")
        unpack(new_archive, repo)
        if mode == "commit":
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", f"{package} {second}")
            args = ["--commit", "HEAD"]
        elif mode == "staged":
            git(repo, "add", "-A")
            args = ["--staged"]
        else:
            git(repo, "add", "-A", "--intent-to-add")  # new files are in the diff as a user's `git add -N`
            args = ["--worktree"]
        started = time.perf_counter()
        done = cm_graph("changes", *args, "--json", "--max-items", "500", cwd=repo, state=state)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"[{name}] changes {mode} failed: {done.stderr[-2000:]}")
        document = json.loads(done.stdout)
        got = answered(document)
        results["modes"][mode] = {category: score(expected[category], got[category]) for category in CATEGORIES}
        results["modes"][mode]["callers_total"] = document["callers"]["total"]
        results["modes"][mode]["aligned_unchanged"] = sum(len(f["aligned_unchanged"]) for f in document["files"])
        results["modes"][mode]["seconds"] = round(elapsed, 2)
        results["modes"][mode]["index_side"] = document["freshness"]["index_side"]
    return results


def table(runs: list[dict[str, Any]]) -> str:
    out = ["| subject | diff | category | truth | answered | recall | precision |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    extras = ["", "| subject | diff | aligned but unchanged (not reported) | callers walked | seconds |",
              "| --- | --- | --- | --- | --- |"]

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f} %"

    for run in runs:
        for mode, categories in run["modes"].items():
            for category in CATEGORIES:
                row = categories[category]
                out.append(f"| {run['subject']} | {mode} | {category} | {row['truth']} | {row['answered']} | "
                           f"{pct(row['recall'])} | {pct(row['precision'])} |")
            extras.append(f"| {run['subject']} | {mode} | {categories['aligned_unchanged']} | "
                          f"{categories['callers_total']} | {categories['seconds']} |")
    return "\n".join(out + extras)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subjects", default=",".join(SUBJECTS))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "cm-graph-bench" / "changes"))
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    options = parser.parse_args(argv)
    modes = tuple(options.modes.split(","))
    runs = [run_subject(name, modes, Path(options.work)) for name in options.subjects.split(",")]
    if options.json:
        print(json.dumps(runs, indent=2))
    else:
        print(table(runs))
        for run in runs:
            for mode, categories in run["modes"].items():
                for category in CATEGORIES:
                    row = categories[category]
                    if row["missed"] or row["extra"]:
                        print(f"{run['subject']} {mode} {category}: missed {row['missed']} extra {row['extra']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
