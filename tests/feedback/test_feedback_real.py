"""Issue 18 "Must show": an eval run on a real project across two generations, with the pinned
provider. Correct outcomes about four answers are recorded on the first commit; the eval run on
that generation reproduces every answer id. Then a real change (a retired function deleted, a new
callee added below the code the other answers cite) is committed and refreshed, and the run
reports each case as what it is: two unchanged, one changed (a gained citation), one regressed
(its target is gone), and fails for a CI.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..generation.test_lifecycle import cli, where
from ..support.helpers import commit_all, make_repo, write_files

pytestmark = [pytest.mark.provider]

UTIL = "def helper(x):\n    return x + 1\n"
RETIRED = "\n\ndef retired(y):\n    return y - 1\n"
CORE = ("from pkg.util import helper\n\n\ndef load(v):\n    return helper(v) + gone(v){extra}\n\n\n"
        "def main():\n    return load(3)\n\n\ndef gone(v):\n    return v * 2\n")
FRESH = "\n\ndef fresh(v):\n    return v\n"


def answer_id(repo: Path, state: Path, *asked: str) -> str:
    ran = cli(*asked, *where(repo, state), "--json")
    assert ran.code == 0, ran.err
    return str(ran.out["answers"][0]["answer_id"] if asked[0] == "ask" else ran.out["answer_id"])


def test_eval_run_across_a_real_change_and_refresh(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/util.py": UTIL + RETIRED, "pkg/core.py": CORE.format(extra=""),
    })
    state = tmp_path / "state"
    built = cli("build", "--sandbox", "off", *where(repo, state), "--json")
    assert built.code == 0, built.err
    cases = {
        ("--intent", "how", "load"): ("context", "how", "load"),
        ("--intent", "usage", "helper"): ("context", "usage", "helper"),
        ("--intent", "how", "retired"): ("context", "how", "retired"),
        ("--question", "impact", "helper"): ("ask", "impact", "helper"),
    }
    recorded = {}
    for (flag, intent, target), asked in cases.items():
        recorded[f"{intent}:{target}"] = answer_id(repo, state, *asked)
        ran = cli("feedback", "record", flag, intent, "--target", target, "--answer-id", recorded[f"{intent}:{target}"],
                  "--reads-avoided", "1", "--files-read", "0", "--correct", *where(repo, state), "--json")
        assert ran.code == 0 and ran.out["eval_case"], ran.err

    same = cli("eval", "run", *where(repo, state), "--json")
    assert (same.code, same.out["status"], same.out["counts"]["reproduced"]) == (0, "passed", 4), same.err

    write_files(repo, {"pkg/util.py": UTIL, "pkg/core.py": CORE.format(extra=" + fresh(v)") + FRESH})
    commit_all(repo, "retire retired(), load() also calls fresh()")
    refreshed = cli("refresh", "--sandbox", "off", *where(repo, state), "--json")
    assert refreshed.code == 0, refreshed.err

    later = cli("eval", "run", *where(repo, state), "--json")
    assert later.code == 1 and later.err.startswith("cm-graph: eval_failed: 1 of 4 "), later.err
    verdicts = {r["capability_id"]: r for r in later.out["results"]}
    assert {cid: r["verdict"] for cid, r in verdicts.items()} == {
        "cmg:code_context:how:load": "changed",
        "cmg:code_context:usage:helper": "unchanged",
        "cmg:code_context:how:retired": "regressed",
        "cmg:question:impact:helper": "unchanged",
    }
    changed = verdicts["cmg:code_context:how:load"]
    assert changed["lost"] == [] and changed["gained"] == ["pkg/core.py#L16"]  # fresh(), where it is defined
    assert changed["survival"] == 1.0 and 0.5 <= changed["overlap"] < 1.0
    gone = verdicts["cmg:code_context:how:retired"]
    assert (gone["lost"], gone["survival"]) == (["pkg/util.py#L5"], 0.0)
    assert later.out["regressions"] == [recorded["how:retired"]]
    for result in later.out["results"]:
        assert result["generation"] != result["recorded_generation"]
        assert result["new_answer_id"] != result["answer_id"]  # a new generation is a new answer
