"""``cm-graph changes`` on real git repositories built by the pinned provider: a diff's hunks mapped
onto both sides' definition ranges, renames and moves followed, odd files named, the callers of
what changed walked on the bound commit, and no program the repository configures ever run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..support.cli import invoke, where
from ..support.helpers import commit_all, edit, git, make_repo, write_files
from ..support.wholeschemas import checked

pytestmark = [pytest.mark.provider]

CORE = '''def helper(x):
    return x + 1


def compute(y):
    return helper(y) * 2


class Box:
    def open(self):
        return compute(3)

    def close(self):
        return None
'''
USE = '''from pkg.core import Box, compute


def main():
    return compute(1) + Box().open()
'''


def built(tmp_path: Path, files: dict[str, str | bytes] | None = None) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "repo", files or {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE})
    state = tmp_path / "state"
    done = invoke("build", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return repo, state


def changes(repo: Path, state: Path, *args: str) -> dict[str, Any]:
    done = invoke("changes", *args, "--json", *where(repo, state))
    assert done.exit_code == 0, done.stderr
    return checked(dict(json.loads(done.stdout)))


def changed(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(d["change"], d["name"]) for d in document["definitions"]}


def test_an_edit_inside_a_function_is_that_function_modified_with_its_callers(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    document = changes(repo, state)
    assert changed(document) == {("modified", "compute")}
    [item] = document["definitions"]
    assert item["old"]["start_line"] == 5 and item["old"]["end_line"] == 6
    assert item["ranges"] == {"old": "index", "new": "parsed"}
    assert document["freshness"]["state"] == "current" and document["freshness"]["index_side"] == "old"
    callers = {c["label"]: c for c in document["callers"]["items"]}
    assert "pkg.use.main" in callers or "main()" in callers
    main = callers.get("pkg.use.main") or callers["main()"]
    assert main["hop"] == 1 and "resolved" in main["evidence"] and main["reaches"] == ["compute"]
    assert main["site"]["cite"] in {c["id"] for c in document["citations"]}
    assert document["schema"] == "cm_graph.changes.v1" and document["answer_id"].startswith("sha256:")


def test_an_insertion_above_a_function_shifts_it_without_touching_it(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    text = (repo / "pkg/core.py").read_text()
    (repo / "pkg/core.py").write_text("import os\n\n\ndef added(z):\n    return z\n\n\n"
                                      + text.replace("return None", "return 0"))
    document = changes(repo, state)
    assert changed(document) == {("added", "added"), ("modified", "Box.close")}
    close = next(d for d in document["definitions"] if d["name"] == "Box.close")
    assert (close["old"]["start_line"], close["new"]["start_line"]) == (13, 20)
    [entry] = document["files"]
    assert entry["module_level"]["new"] == [[1, 3], [6, 7]]


def test_a_deleted_function_is_deleted_with_its_old_range_and_its_callers(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    edit(repo, "pkg/core.py", "def helper(x):\n    return x + 1\n\n\n", "")
    document = changes(repo, state)
    assert ("deleted", "helper") in changed(document)
    helper = next(d for d in document["definitions"] if d["name"] == "helper")
    assert helper["new"] is None and (helper["old"]["start_line"], helper["old"]["end_line"]) == (1, 2)
    assert helper["old"]["cite"] is not None
    reaching = [c for c in document["callers"]["items"] if "helper" in c["reaches"]]
    assert any(c["label"] in ("pkg.core.compute", "compute()") for c in reaching)


def test_an_added_function_is_added_and_walks_no_caller(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    with (repo / "pkg/use.py").open("a") as handle:
        handle.write("\n\ndef extra():\n    return main()\n")
    document = changes(repo, state)
    assert changed(document) == {("added", "extra")}
    [item] = document["definitions"]
    assert item["old"] is None and item["new"]["start_line"] == 8 and item["new"]["cite"] is None
    assert document["callers"]["items"] == []


def test_a_renamed_file_renames_its_definitions_and_a_moved_function_is_followed(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    git(repo, "mv", "pkg/use.py", "pkg/entry.py")
    edit(repo, "pkg/core.py", "def helper(x):\n    return x + 1\n\n\n", "")
    write_files(repo, {"pkg/util.py": "def helper(x):\n    return x + 1\n"})
    git(repo, "add", "-A")
    document = changes(repo, state, "--staged")
    files = {f["path"]: f for f in document["files"]}
    assert files["pkg/entry.py"]["status"] == "renamed" and files["pkg/entry.py"]["old_path"] == "pkg/use.py"
    renamed = {d["name"]: d for d in document["definitions"] if d["change"] == "renamed"}
    assert renamed["main"]["old"]["path"] == "pkg/use.py" and renamed["main"]["new"]["path"] == "pkg/entry.py"
    assert renamed["main"]["body_changed"] is False
    assert renamed["helper"]["old"]["path"] == "pkg/core.py" and renamed["helper"]["new"]["path"] == "pkg/util.py"
    assert ("deleted", "helper") not in changed(document) and ("added", "helper") not in changed(document)


def test_a_function_renamed_in_place_is_one_rename(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    edit(repo, "pkg/core.py", "def compute(y):", "def calculate(y):")
    document = changes(repo, state)
    [item] = document["definitions"]
    assert item["change"] == "renamed" and item["old"]["name"] == "compute" and item["new"]["name"] == "calculate"
    assert any("compute" in c["reaches"] for c in document["callers"]["items"])


def test_binary_files_odd_names_and_deletions_are_named_and_escaped(tmp_path: Path) -> None:
    odd = "pkg/we\x1b]0;x\x07ird \nname.py"
    files: dict[str, str | bytes] = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE,
                                     "logo.bin": b"\x00\x01\x02" * 50, odd: "def odd():\n    return 1\n",
                                     "notes.txt": "gone\n"}
    repo, state = built(tmp_path, files)
    (repo / "logo.bin").write_bytes(b"\x00\x09\x02" * 50)
    (repo / odd).write_text("def odd():\n    return 2\n")
    (repo / "notes.txt").unlink()
    document = changes(repo, state)
    by_path = {f["path"]: f for f in document["files"]}
    assert by_path["logo.bin"]["binary"] is True and by_path["logo.bin"]["definitions"] == 0
    assert by_path["notes.txt"]["status"] == "deleted"
    assert by_path[odd]["status"] == "modified"
    assert ("modified", "odd") in changed(document)
    shown = invoke("changes", *where(repo, state))
    assert shown.exit_code == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "we\\x1b]0;x\\x07ird \\nname.py" in shown.stdout


def test_a_submodule_a_rename_and_an_edit_in_one_staged_diff_are_each_named(tmp_path: Path) -> None:
    """A gitlink (a submodule's commit, mode 160000) moved to another commit is named, flagged
    and not read; the rename and the edit staged with it are mapped as usual."""
    other = make_repo(tmp_path / "other", {"lib.py": "def lib():\n    return 1\n"})
    first = git(other, "rev-parse", "HEAD").strip()
    write_files(other, {"lib.py": "def lib():\n    return 2\n"})
    second = commit_all(other, "second")
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": USE})
    (repo / "vendor" / "lib").mkdir(parents=True)  # as a submodule not checked out leaves it
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{first},vendor/lib")
    git(repo, "commit", "-q", "-m", "vendor a submodule")
    state = tmp_path / "state"
    assert invoke("build", *where(repo, state)).exit_code == 0
    git(repo, "update-index", "--cacheinfo", f"160000,{second},vendor/lib")
    git(repo, "mv", "pkg/use.py", "pkg/usage.py")
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    git(repo, "add", "pkg/core.py")
    document = changes(repo, state, "--staged")
    by_path = {f["path"]: f for f in document["files"]}
    assert by_path["vendor/lib"]["submodule"] is True and by_path["vendor/lib"]["status"] == "modified"
    assert by_path["vendor/lib"]["definitions"] == 0
    assert by_path["pkg/usage.py"]["status"] == "renamed" and by_path["pkg/usage.py"]["old_path"] == "pkg/use.py"
    assert changed(document) == {("modified", "compute"), ("renamed", "main")}
    assert "Binary files, submodules and symbolic links are named but not read." in document["unseen"]


def test_staged_and_worktree_diffs_differ_by_what_is_staged(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    git(repo, "add", "pkg/core.py")
    edit(repo, "pkg/use.py", "compute(1)", "compute(2)")
    assert changed(changes(repo, state, "--staged")) == {("modified", "compute")}
    assert changed(changes(repo, state, "--worktree")) == {("modified", "compute"), ("modified", "main")}


def test_a_diff_whose_sides_are_not_the_bound_commit_says_stale_and_walks_no_caller(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    first = git(repo, "rev-parse", "HEAD")
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    second = commit_all(repo, "two")
    edit(repo, "pkg/core.py", "return x + 1", "return x + 2")
    third = commit_all(repo, "three")
    document = changes(repo, state, "--range", f"{second}..{third}")
    assert changed(document) == {("modified", "helper")}
    assert document["freshness"]["state"] == "stale" and document["callers"]["status"] == "unavailable"
    assert any("Neither side" in text for text in document["unseen"])
    by_commit = changes(repo, state, "--commit", second)
    assert by_commit["diff"]["old"] == first and by_commit["freshness"]["index_side"] == "old"
    assert changed(by_commit) == {("modified", "compute")}


def test_bad_input_has_a_stable_reason(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    bad = invoke("changes", "--commit", "no-such-ref", "--json", *where(repo, state))
    assert bad.exit_code == 1 and json.loads(bad.stdout)["reason"] == "bad_revision"
    assert invoke("changes", "--range", "HEAD", *where(repo, state)).exit_code == 1
    both = invoke("changes", "--staged", "--commit", "HEAD", "--json", *where(repo, state))
    assert both.exit_code == 1 and json.loads(both.stdout)["reason"] == "invalid"
    fresh = make_repo(tmp_path / "other", {"a.py": "def a():\n    return 1\n"})
    absent = invoke("changes", "--json", *where(fresh, tmp_path / "state2"))
    assert absent.exit_code == 1 and json.loads(absent.stdout)["reason"] == "absent"


def test_a_hostile_git_config_runs_nothing(tmp_path: Path) -> None:
    repo, state = built(tmp_path)
    marker = tmp_path / "ran"
    touch = f"sh -c 'touch {marker}' --"
    (repo / ".gitattributes").write_text("*.py diff=evil filter=evil\n")
    commit_all(repo, "attributes")
    invoke("refresh", *where(repo, state))
    edit(repo, "pkg/core.py", "helper(y) * 2", "helper(y) * 3")
    git(repo, "add", "pkg/core.py")
    edit(repo, "pkg/use.py", "compute(1)", "compute(2)")
    for key, value in (("diff.external", touch), ("diff.evil.textconv", touch), ("diff.evil.command", touch),
                       ("filter.evil.clean", touch), ("filter.evil.smudge", touch),
                       ("filter.evil.process", touch), ("filter.evil.required", "true"),
                       ("core.fsmonitor", touch), ("core.pager", touch), ("diff.orderFile", "/dev/null")):
        git(repo, "config", key, value)
    (repo / "pkg/core.py").touch()  # a stat change: git would run the clean filter to compare it
    for args in ((), ("--staged",), ("--commit", "HEAD"), ("--range", "HEAD~1..HEAD"), ("--base", "HEAD")):
        done = invoke("changes", *args, "--json", *where(repo, state))
        assert done.exit_code == 0, done.stderr
        assert not marker.exists(), f"a repository-configured program ran for changes {args}"
    assert changed(changes(repo, state)) == {("modified", "compute"), ("modified", "main")}
    # the trap is real: git itself, unwrapped, runs what the configuration names
    subprocess.run(["git", "-C", str(repo), "diff", "HEAD"], capture_output=True, check=False,
                   env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"})
    assert marker.exists()


def test_an_agents_answer_fits_its_character_budget_by_whole_items(tmp_path: Path) -> None:
    from cm_graph.base.jsonio import dumps_wire
    from cm_graph.context.changes import changes as answer_changes
    from cm_graph.context.diffread import DiffSpec
    from cm_graph.generation.layout import Workspace

    many = {f"pkg/mod_{i:02d}.py": "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n\n" for j in range(12))
            for i in range(12)}
    repo, state = built(tmp_path, {"pkg/__init__.py": "", **many})
    for name in many:
        edit(repo, name, "return x + ", "return x - ")
    workspace = Workspace.locate(repo, state)
    whole = answer_changes(workspace, DiffSpec("worktree"))
    assert whole["summary"]["modified"] == 144
    fitted = answer_changes(workspace, DiffSpec("worktree"), max_chars=6000)
    assert len(dumps_wire(fitted)) <= 6000 and fitted["bounds"]["truncated"] is True
    shown, total = fitted["bounds"]["shown"]["definitions"]
    assert 0 < shown < total == 144 and len(fitted["definitions"]) == shown
    assert fitted["definitions"] == whole["definitions"][:shown]
    cited = {c["id"] for c in fitted["citations"]}
    assert all(d["old"]["cite"] in cited for d in fitted["definitions"])


CART_TS = '''export class Cart {
  total(prices: number[]): number {
    let sum = 0;
    for (const p of prices) {
      sum += p;
    }
    return sum;
  }
}

export function checkout(cart: Cart): number {
  return cart.total([1, 2]);
}
'''
SHOP_TS = '''import { checkout, Cart } from "./cart";

export function run(): number {
  return checkout(new Cart());
}
'''


def test_a_typescript_edit_has_ranges_on_both_sides_and_walks_its_callers(tmp_path: Path) -> None:
    """The JavaScript/TypeScript resolver's walker reads a side that is not the bound commit, as
    Python's does: an edit inside a method's body is that method modified, not an unmapped line."""
    repo, state = built(tmp_path, {"src/cart.ts": CART_TS, "src/shop.ts": SHOP_TS})
    edit(repo, "src/cart.ts", "sum += p;", "sum += p * 2;")
    document = changes(repo, state)
    assert changed(document) == {("modified", "Cart.total")}
    [item] = document["definitions"]
    assert item["ranges"] == {"old": "index", "new": "parsed"}
    assert (item["old"]["start_line"], item["old"]["end_line"]) == (2, 8)
    assert (item["new"]["start_line"], item["new"]["end_line"]) == (2, 8)
    [entry] = document["files"]
    assert entry["unmapped"] == {"old": [], "new": []} and entry["ranges"] == {"old": "index", "new": "parsed"}
    assert not any("no ranges" in said or "no known definitions" in said for said in document["unseen"])
    reaching = {c["label"] for c in document["callers"]["items"] if "Cart.total" in c["reaches"]}
    assert any("checkout" in label for label in reaching), document["callers"]["items"]
