"""benchmarks/js_truth.py, the JavaScript/TypeScript caller ground truth of benchmarks/context.py:
acorn and @babel/parser over a real one-commit repository find calls, ``obj.name(...)``,
``new``, ``.call`` and callbacks (TypeScript too; declaration files are not read), credit each
to its nearest named definition (the enclosing ones kept for the lenient score), leave out
references that are not calls, read tracked files only, and count what they cannot parse. The
lenient score accepts an enclosing definition but not the module for a nested site. For
benchmarks/tasks.py the same walk records each spelling's role, definition ranges and the names
a file binds to a package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import context  # noqa: E402
import js_truth  # noqa: E402

from ..support.network import npm_registry_unreachable  # noqa: E402

UTIL = """\
export function helper(x) { return x; }
export class Thing {
  constructor() { helper(1); }
  run() { return [1].map(helper); }
}
function outer() {
  return function inner() { return helper(2); };
}
const arrow = () => new Thing();
Thing.call(null);
export default { helper };
"""
USE = "import u from './util.js';\nfunction user() { return u.helper(3); }\n"
TYPED = """\
import { helper } from './util.js';
export class Box<T> {
  private readonly value: T;
  constructor(value: T) { this.value = value; }
  open(): T { return helper(this.value as unknown as T); }
}
"""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "util.js").write_text(UTIL)
    (repo / "lib" / "use.js").write_text(USE)
    (repo / "lib" / "typed.ts").write_text(TYPED)
    (repo / "lib" / "typed.d.ts").write_text("export declare function helper(x: number): number;\n")
    (repo / "broken.js").write_text("function (\n")
    run = {"check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], **run)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], **run)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-q", "-m", "js"], **run)
    (repo / "lib" / "untracked.js").write_text("function stray() { helper(4); }\n")
    return repo


@pytest.fixture(scope="module")
def cache() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the JavaScript ground truth")
    cache = Path(tempfile.gettempdir()) / "cm-graph-bench"  # the benchmark's own cache: acorn installed once
    if not js_truth.parsers_installed(cache):  # npm install would need the registry
        unreachable = npm_registry_unreachable()
        if unreachable is not None:
            pytest.skip(f"the JavaScript parsers are installed from npm: {unreachable}")
    return cache


def test_callers_definitions_and_unparsed_files(tmp_path: Path, cache: Path) -> None:
    truth = js_truth.parse_checkout(_repo(tmp_path), cache)
    assert truth.parsed == 3 and truth.unparsed == ("broken.js",)  # typed.d.ts is not read
    assert {name: truth.definitions[name] for name in ("helper", "Thing", "run", "outer", "inner", "arrow")} == {
        "helper": 1, "Thing": 1, "run": 1, "outer": 1, "inner": 1, "arrow": 1}
    # Calls, a method call through an object, a callback; not the export object; not untracked files.
    assert truth.callers("helper") == {("lib/util.js", "constructor"), ("lib/util.js", "run"),
                                       ("lib/util.js", "inner"), ("lib/use.js", "user"), ("lib/typed.ts", "open")}
    assert truth.definitions["helper"] == 1 and truth.definitions["open"] == 1
    assert truth.callers("Thing") == {("lib/util.js", "arrow"), ("lib/util.js", "<module>")}
    assert ("lib/util.js", ("<module>", "outer", "inner")) in truth.sites("helper")


def test_lenient_score_accepts_an_enclosing_definition_only(tmp_path: Path, cache: Path) -> None:
    truth = js_truth.parse_checkout(_repo(tmp_path), cache)
    claims = {("lib/util.js", "outer"), ("lib/util.js", "<module>"), ("lib/use.js", "user")}
    found, right = context._lenient(truth.sites("helper"), claims)
    assert (found, right) == (2, 2)  # inner (via outer) and user; the module claim is rejected
    assert context._unit("lib/util.js", "lib/util.js") == context._unit("util.js", "lib/util.js") == (
        "lib/util.js", "<module>")


ROLES = """\
const send = require('send');
const { helper: assist } = require('./util.js');
class Base { run() { return 1; } }
class Child extends Base {
  run() {
    try { send(); assist(); } catch (error) { if (error instanceof Oops) throw new Oops('again'); }
    return new Base();
  }
}
class Oops extends Error {}
"""


def test_roles_ranges_and_package_bindings_for_tasks(tmp_path: Path, cache: Path) -> None:
    """The walk benchmarks/tasks.py reads: each spelling's role and enclosing definitions, each
    definition's range and class, and the names a file binds to a package (not its own code)."""
    repo = _repo(tmp_path)
    (repo / "lib" / "roles.js").write_text(ROLES)
    subprocess.run(["git", "-C", str(repo), "add", "lib/roles.js"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "commit", "-q", "-m", "roles"], check=True)
    truth = js_truth.parse_checkout(repo, cache)
    mine = {(line, name, role): chain for path, line, name, role, _, chain in truth.occurrences
            if path == "lib/roles.js"}
    assert mine[(6, "Oops", "except")] == ("<module>", "Child", "run")
    assert (6, "Oops", "raise") in mine and (7, "Base", "instantiation") in mine
    assert (4, "Base", "inherit") in mine and (2, "helper", "import") in mine
    assert (6, "assist", "call") in mine and (6, "send", "call") in mine
    assert ("lib/roles.js", "send") in truth.externals and ("lib/roles.js", "assist") not in truth.externals
    ranges = {(name, kind, cls): (start, end) for path, name, start, end, kind, cls, _ in truth.ranges
              if path == "lib/roles.js"}
    assert ranges[("run", "method", "Child")] == (5, 8) and ranges[("Child", "class", None)] == (4, 9)
    assert [sup for path, name, *_, sup in truth.ranges if path == "lib/roles.js" and name == "Child"] == ["Base"]
