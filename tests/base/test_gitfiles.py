"""Issue 31: HEAD read from git's own files, with no child, agrees with ``git rev-parse HEAD`` on
every layout it follows, and gives None (ask git) on every layout it does not."""

from __future__ import annotations

import os
from pathlib import Path

from cm_graph.base.gitfiles import read_head

from ..support.helpers import commit_all, git, make_repo, write_files


def _head(repo: Path) -> str:
    found = read_head(repo)
    assert found is not None
    assert found[0] == git(repo, "rev-parse", "HEAD")
    return found[0]


def test_a_branch_a_detached_head_and_packed_refs_read_as_git_reads_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    first = _head(repo)
    second = commit_all(repo, "two")
    assert _head(repo) == second != first
    git(repo, "checkout", "-q", "--detach", first)
    assert _head(repo) == first
    git(repo, "checkout", "-q", "main")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert _head(repo) == second
    git(repo, "tag", "-a", "-m", "t", "v1", first)  # a peeled line in packed-refs after pack-refs
    git(repo, "pack-refs", "--all")
    assert _head(repo) == second


def test_the_key_moves_with_a_commit_a_checkout_and_a_pack(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    keys = [read_head(repo)]
    assert read_head(repo) == keys[0]  # nothing changed: the same key
    commit_all(repo, "two")
    keys.append(read_head(repo))
    git(repo, "checkout", "-q", "-b", "other")
    keys.append(read_head(repo))  # the same commit, another branch: another key
    git(repo, "pack-refs", "--all")
    keys.append(read_head(repo))
    assert None not in keys and len(set(keys)) == len(keys)
    git(repo, "status", "--porcelain")  # git writing its index leaves the key alone
    write_files(repo, {"b.py": "y = 2\n"})
    git(repo, "add", "b.py")
    assert read_head(repo) == keys[-1]


def test_a_symbolic_ref_chain_and_a_linked_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert _head(repo) == head
    git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    assert (linked / ".git").is_file()
    assert _head(linked) == head
    moved = commit_all(linked, "on side")
    assert _head(linked) == moved and _head(repo) == head


def test_layouts_it_does_not_follow_are_left_to_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    dot_git = repo / ".git"
    git(repo, "checkout", "-q", "--orphan", "unborn")  # an unborn branch: git says there is no commit
    assert read_head(repo) is None
    git(repo, "checkout", "-q", "main")
    git(repo, "symbolic-ref", "HEAD", "refs/bisect/x")  # a per-worktree ref
    assert read_head(repo) is None
    (dot_git / "HEAD").write_text("ref: refs/heads/../../config\n")
    assert read_head(repo) is None
    (dot_git / "HEAD").write_text("ref: refs/heads/main\n")
    ref = dot_git / "refs" / "heads" / "main"
    value = ref.read_bytes()
    ref.unlink()
    os.mkfifo(ref)  # never waited on
    assert read_head(repo) is None
    ref.unlink()
    ref.write_bytes(value + b"trailing\n")
    assert read_head(repo) is None
    ref.write_bytes(value)
    assert read_head(repo) is not None
    (dot_git / "reftable").mkdir()
    assert read_head(repo) is None
    (dot_git / "reftable").rmdir()
    moved = tmp_path / "elsewhere.git"
    dot_git.rename(moved)
    (repo / ".git").symlink_to(moved)
    assert read_head(repo) is None
    assert read_head(tmp_path / "not-a-repo") is None
