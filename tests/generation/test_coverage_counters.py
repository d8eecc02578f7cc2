"""Every tracked file in exactly one counter, and code bytes read against code bytes tracked
(issue 27 item 5, issue 32 item 13), on real repositories built with the pinned provider.

yargs's npm package keeps 97 % of its code under ``build/``, a directory name the provider prunes
unconditionally: the build is ``complete`` by the provider's own inventory, so only the byte
counters can say that most of the code was never read. msgpack's ``.pyx`` sources are code in a
language the provider has no extractor for; werkzeug's documentation and data files were in no
counter at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cm_graph.generation.coverage import FILE_COUNTERS

from ..support.helpers import git, make_repo
from ..support.releases import npm_release, pypi_sdist
from .test_lifecycle import cli, where

# The shape of yargs 17's npm package: a thin entry point, its compiled code under build/.
YARGS_LIKE = {
    "index.cjs": "const { Yargs } = require('./build/index.cjs');\nmodule.exports = Yargs;\n",
    "build/index.cjs": "".join(f"function command{n}(argv) {{\n  return argv.length + {n};\n}}\n" for n in range(400)),
    "build/lib/parser.js": "".join(f"export function parse{n}(x) {{\n  return x * {n};\n}}\n" for n in range(300)),
    "README.md": "# yargs-like\n",
    "package.json": '{"name": "yargs-like", "version": "1.0.0"}\n',
}
# msgpack's: Cython sources beside the Python fallback.
MSGPACK_LIKE = {
    "msgpack/__init__.py": "def packb(o):\n    return bytes(o)\n",
    "msgpack/_packer.pyx": "cdef class Packer:\n    cdef int depth\n\n    def pack(self, obj):\n        return obj\n"
                           * 20,
    "msgpack/_unpacker.pyx": "def unpackb(packed):\n    return packed\n" * 20,
    "docs/index.rst": "msgpack\n=======\n",
}


@pytest.mark.provider
def test_code_mostly_under_build_is_counted_unread_and_warned_with_an_honest_remedy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", YARGS_LIKE)
    state = tmp_path / "state"
    built = cli("build", *where(repo, state), "--json")
    assert built.code == 0, built.err
    summary = built.out
    assert summary["completeness"] == "complete"
    files = summary["files"]
    assert sum(files.values()) == summary["tracked_files"] == len(YARGS_LIKE)
    assert (files["code_read"], files["scope_excluded"], files["non_code"]) == (2, 2, 1)
    code = summary["code_bytes"]
    build_bytes = len(YARGS_LIKE["build/index.cjs"]) + len(YARGS_LIKE["build/lib/parser.js"])
    assert code["scope_excluded"] == build_bytes
    assert code["tracked"] == code["read"] + build_bytes
    assert code["read"] == len(YARGS_LIKE["index.cjs"]) + len(YARGS_LIKE["package.json"])
    warning = summary["coverage_warning"]
    assert "skipped_dir:build" in warning and "cannot read" in warning and "%" in warning

    status = cli("status", *where(repo, state), "--json")
    assert status.code == 0
    coverage = status.out["cm_graph"]["coverage"]
    assert (coverage["files"], coverage["code_bytes"]) == (files, code)
    assert f"{coverage['warning']} {coverage['remedy']}" == warning
    human = cli("status", *where(repo, state))
    assert "code_read" in human.out and "cannot read" in " ".join(human.out.split())

    doctor = cli("doctor", *where(repo, state), "--json")
    check = {c["check"]: c for c in doctor.out["checks"]}["coverage"]
    assert check["status"] == "warn" and "skipped_dir:build" in check["message"]
    assert "cannot read" in check["remediation"] and "--exclude build/" in check["remediation"]

    # Said knowingly: the operator leaves build/ out; the files move to their own counter and
    # the warning goes, since no scope rule hides code any more.
    excluded = cli("refresh", *where(repo, state), "--exclude", "build/", "--json")
    assert excluded.code == 0, excluded.err
    assert excluded.out["files"]["operator_excluded"] == 2 and excluded.out["files"]["scope_excluded"] == 0
    assert "coverage_warning" not in excluded.out
    assert excluded.out["code_bytes"]["operator_excluded"] == build_bytes


@pytest.mark.provider
def test_pyx_sources_are_code_the_provider_cannot_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", MSGPACK_LIKE)
    built = cli("build", *where(repo, tmp_path / "state"), "--json")
    assert built.code == 0, built.err
    files, code = built.out["files"], built.out["code_bytes"]
    assert (files["code_read"], files["unsupported_language"], files["non_code"]) == (1, 2, 1)
    pyx = len(MSGPACK_LIKE["msgpack/_packer.pyx"]) + len(MSGPACK_LIKE["msgpack/_unpacker.pyx"])
    assert code["unsupported_language"] == pyx
    assert code["tracked"] == len(MSGPACK_LIKE["msgpack/__init__.py"]) + pyx
    # Most of the code is unread, but no scope rule hid it: the warning names the language instead.
    assert ".pyx" in built.out["coverage_warning"] and "no extractor" in built.out["coverage_warning"]


@pytest.mark.provider
def test_the_build_summary_accounts_for_every_tracked_file(tmp_path: Path) -> None:
    """werkzeug: 286 tracked, 140 indexed, the rest in no counter."""
    files = {
        "src/app.py": "def app():\n    return 1\n",
        "src/tool": "#!/usr/bin/env python3\nprint(1)\n",
        "docs/index.rst": "Docs\n",
        "docs/logo.png": b"\x89PNG\r\n\x1a\n\0\0",
        "examples/data.csv": "a,b\n",
        "dist/app.py": "def bundled():\n    return 2\n",
        "vendor/lib.py": "def vendored():\n    return 3\n",
        "stats/model.r": "x <- 1\n",
        ".gitignore": "*.pyc\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    built = cli("build", *where(repo, tmp_path / "state"), "--exclude", "vendor/", "--json")
    assert built.code == 0, built.err
    counted = built.out["files"]
    assert set(counted) == set(FILE_COUNTERS)
    assert sum(counted.values()) == built.out["tracked_files"] == len(files)
    assert counted == {"code_read": 2, "uncovered": 0, "scope_excluded": 1, "unsupported_language": 1,
                       "non_code": 4, "operator_excluded": 1, "oversized": 0}
    assert built.out["indexed_files"] == 2


@pytest.mark.provider
def test_yargs_release_with_its_build_directory_is_complete_and_warned(tmp_path: Path) -> None:
    """yargs 17.7.2 as npm ships it: 21 of its 62 files, 217,667 bytes, are under build/."""
    repo = npm_release(tmp_path / "repo", "yargs", "17.7.2", skipped_dirs=())
    tracked = git(repo, "ls-files").split()
    under_build = [path for path in tracked if path.startswith("build/")]
    build_bytes = sum((repo / path).stat().st_size for path in under_build)
    built = cli("build", *where(repo, tmp_path / "state"), "--json")
    assert built.code == 0, built.err
    assert built.out["completeness"] == "complete"
    files, code = built.out["files"], built.out["code_bytes"]
    assert sum(files.values()) == len(tracked) == 62
    assert (files["scope_excluded"], code["scope_excluded"]) == (len(under_build), build_bytes) == (21, 217_667)
    assert code["read"] < code["tracked"] // 2
    assert "skipped_dir:build" in built.out["coverage_warning"] and "cannot read" in built.out["coverage_warning"]


@pytest.mark.provider
def test_msgpack_sdist_counts_its_pyx_sources_as_unread_code(tmp_path: Path) -> None:
    """msgpack 1.1.0's sdist: its three .pyx files were in no count at all."""
    repo = pypi_sdist(tmp_path / "repo", "msgpack", "1.1.0")
    tracked = git(repo, "ls-files").split()
    pyx = [path for path in tracked if path.endswith(".pyx")]
    built = cli("build", *where(repo, tmp_path / "state"), "--json")
    assert built.code == 0, built.err
    files, code = built.out["files"], built.out["code_bytes"]
    assert sum(files.values()) == len(tracked) == 43
    assert files["unsupported_language"] == len(pyx) == 3
    assert code["unsupported_language"] == sum((repo / path).stat().st_size for path in pyx) == 32_621
    assert code["tracked"] == code["read"] + code["unsupported_language"]
    assert "coverage_warning" not in built.out  # 97 % of its code bytes were read
