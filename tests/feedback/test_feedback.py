"""Issue 18: answer ids on every surface, the local outcome store, rewards by replay, the eval run.

Over G0 published as another tool would (helpers.publish), through the CLI in-process; the store
is a real apsw file in a real state dir, the checkout a real git repository.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import apsw
import pytest

from cm_graph.context.wire import cited as cited_of
from cm_graph.feedback.outcomes import store_path
from cm_graph.feedback.record import record_outcome
from cm_graph.feedback.rewards import report
from cm_graph.generation.layout import Workspace

from ..generation.test_lifecycle import cli, where
from ..query.test_answer_ids import ask_answer, context_answer
from ..support.g0 import g0_graph
from ..support.helpers import git, publish

T = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def record(repo: Path, state: Path, answer: dict[str, Any], *flags: str, intent: str | None = None,
           question: str | None = None) -> Any:
    asked = ["--intent", intent] if intent else ["--question", str(question)]
    return cli("feedback", "record", *asked, "--target", answer["target"], "--answer-id", answer["answer_id"],
               *flags, *where(repo, state), "--json")


# -- recording ---------------------------------------------------------------------------------------


def test_record_is_checked_idempotent_per_client_and_keeps_no_prose(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    answer = context_answer(g0_repo, state_dir, "how", "load")
    counts = ["--reads-avoided", "2", "--files-read", "0", "--correct"]

    first = record(g0_repo, state_dir, answer, *counts, "--client", "claude", "--note", "secret words",
                   intent="how")
    assert first.code == 0, first.err
    assert (first.out["status"], first.out["seq"], first.out["eval_case"]) == ("recorded", 1, True)
    again = record(g0_repo, state_dir, answer, "--reads-avoided", "0", "--files-read", "9", "--wrong",
                   "--client", "claude", intent="how")
    assert (again.code, again.out["status"], again.out["seq"]) == (0, "already_recorded", 1)
    other = record(g0_repo, state_dir, answer, *counts, "--client", "codex", "--note", "kept words",
                   "--keep-note", intent="how")
    assert (other.out["status"], other.out["seq"], other.out["note"]) == ("recorded", 2, "kept")

    wrong_id = dict(answer, answer_id="sha256:" + "0" * 64)
    refused = record(g0_repo, state_dir, wrong_id, *counts, intent="how")
    assert refused.code == 1 and refused.err.startswith("cm-graph: not_reproduced: ")
    assert len(refused.err.strip().splitlines()) == 1 and "Traceback" not in refused.err
    other_arguments = record(g0_repo, state_dir, answer, *counts, "--max-chars", "12000", intent="how")
    assert other_arguments.code == 1 and "not_reproduced" in other_arguments.err

    exported = cli("feedback", "export", *where(g0_repo, state_dir)).out
    rows = exported["outcomes"]
    assert [(r["client"], r["files_read"], r["correct"]) for r in rows] == [("claude", 0, True), ("codex", 0, True)]
    assert rows[0]["note"] is None and len(rows[0]["note_sha256"]) == 64 and rows[1]["note"] == "kept words"
    assert b"secret words" not in store_path(state_dir).read_bytes()
    [case] = exported["cases"]
    assert case["answer_id"] == answer["answer_id"] and case["commit"] == answer["graph"]["commit"]
    assert case["cited"] == sorted(cited_of(answer).values())


@pytest.mark.parametrize("flags, reason", [
    (["--reads-avoided", "-1", "--files-read", "0", "--correct"], "invalid"),
    (["--reads-avoided", "1", "--files-read", "0", "--correct", "--client", "bad client"], "invalid"),
    (["--reads-avoided", "1", "--files-read", "0", "--correct", "--connection", "nowhere"], "not_configured"),
    (["--reads-avoided", "1", "--files-read", "0", "--correct", "--note", "x" * 201], "invalid"),
])
def test_bad_input_is_one_refusal_and_writes_nothing(g0_repo: Path, state_dir: Path, flags: list[str],
                                                      reason: str) -> None:
    publish(g0_repo, state_dir, g0_graph())
    answer = context_answer(g0_repo, state_dir, "how", "load")
    ran = record(g0_repo, state_dir, answer, *flags, intent="how")
    assert ran.code == 1 and ran.err.startswith(f"cm-graph: {reason}: "), ran.err
    assert not store_path(state_dir).exists()


# -- privacy ---------------------------------------------------------------------------------------


def test_the_store_is_owner_only_and_refused_when_it_is_not(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    answer = context_answer(g0_repo, state_dir, "how", "load")
    assert record(g0_repo, state_dir, answer, "--reads-avoided", "1", "--files-read", "0", "--correct",
                  intent="how").code == 0
    path = store_path(state_dir)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    path.chmod(0o644)
    for args in (["feedback", "report"], ["eval", "run"], ["feedback", "export"]):
        ran = cli(*args, *where(g0_repo, state_dir))
        assert ran.code == 1 and ran.err.startswith("cm-graph: invalid: Private state"), (args, ran.err)
    path.chmod(0o600)
    path.parent.chmod(0o755)  # a directory of ours open to others is named with its fix (issue 32 item 1)
    assert cli("feedback", "report", *where(g0_repo, state_dir)).err.startswith(
        f"cm-graph: invalid: The private state directory {path.parent} is mode 0755, not owner-only; "
        f"run `chmod 700 {path.parent}`")
    path.parent.chmod(0o700)

    path.rename(path.with_name("elsewhere.sqlite"))
    path.symlink_to("elsewhere.sqlite")
    ran = record(g0_repo, state_dir, answer, "--reads-avoided", "1", "--files-read", "0", "--correct",
                 "--client", "second", intent="how")
    assert ran.code == 1 and ran.err.startswith("cm-graph: invalid: Private state")
    path.unlink()
    foreign = apsw.Connection(str(path))
    foreign.execute("PRAGMA application_id = 7; CREATE TABLE t (x)")
    foreign.close()
    path.chmod(0o600)
    assert cli("feedback", "report", *where(g0_repo, state_dir)).err.startswith("cm-graph: unreadable: ")


def test_disconnect_purges_the_connections_outcomes(g0_repo: Path, state_dir: Path) -> None:
    publish(g0_repo, state_dir, g0_graph())
    connected = cli("connect", "--connection", "local-graph", "--repository", "owner/repo",
                    "--recipient", "claude:builder", *where(g0_repo, state_dir), "--json")
    assert connected.code == 0, connected.err
    through = context_answer(g0_repo, state_dir, "how", "load")
    direct = ask_answer(g0_repo, state_dir, "impact", "parse_config")
    counts = ["--reads-avoided", "1", "--files-read", "0", "--correct"]
    assert record(g0_repo, state_dir, through, *counts, "--connection", "local-graph", intent="how").code == 0
    assert record(g0_repo, state_dir, direct, *counts, question="impact").code == 0

    gone = cli("disconnect", "--connection", "local-graph", "--state-dir", str(state_dir), "--json")
    assert gone.code == 0, gone.err
    assert (gone.out["outcome_cleanup"], gone.out["outcomes_purged"]) == ("complete", 1)
    exported = cli("feedback", "export", *where(g0_repo, state_dir)).out
    assert [r["capability_id"] for r in exported["outcomes"]] == ["cmg:question:impact:parse_config"]
    assert [c["answer_id"] for c in exported["cases"]] == [direct["answer_id"]]
    refused = record(g0_repo, state_dir, through, *counts, "--connection", "local-graph", intent="how")
    assert refused.code == 1 and "not_configured" in refused.err

    purged = cli("feedback", "purge", *where(g0_repo, state_dir), "--json").out
    assert purged["outcomes_purged"] == 1
    assert cli("feedback", "export", *where(g0_repo, state_dir)).out["cases"] == []


# -- rewards ---------------------------------------------------------------------------------------


def test_the_reward_mapping_and_ema_by_hand() -> None:
    rows = [
        {"capability_id": "a", "kind": "code_context", "intent": "how", "correct": True, "reads_avoided": 3,
         "files_read": 0},
        {"capability_id": "a", "kind": "code_context", "intent": "how", "correct": True, "reads_avoided": 1,
         "files_read": 2},
        {"capability_id": "b", "kind": "question", "intent": "impact", "correct": False, "reads_avoided": 0,
         "files_read": 5},
        {"capability_id": "c", "kind": "question", "intent": "impact", "correct": True, "reads_avoided": 0,
         "files_read": 1},
    ]
    figures = report(rows)
    # a: 0.5 -> 0.7*0.5+0.3*1.0 = 0.65 -> 0.7*0.65+0.3*0.7 = 0.665; b: 0.35; c: 0.44
    assert [(w["capability_id"], w["reward"], w["n"]) for w in figures["weakest"]] == [
        ("b", 0.35, 1), ("c", 0.44, 1), ("a", 0.665, 2)]
    assert [(i["intent"], i["n"], i["reads_avoided_rate"]) for i in figures["intents"]] == [
        ("how", 2, 1.0), ("impact", 2, 0.0)]
    assert figures["files_read"] == {"n": 4, "total": 8, "median": 1.5, "max": 5, "zero": 1}


def test_replay_gives_the_same_figures_from_two_state_dirs(g0_repo: Path, tmp_path: Path) -> None:
    reports = []
    for machine, start in (("one", T), ("two", T + timedelta(days=40))):
        state = tmp_path / machine
        workspace = publish(g0_repo, state, g0_graph())
        outcomes = [
            ("code_context", "how", "load", {}, "claude", 2, 0, True),
            ("code_context", "usage", "parse_config", {}, "claude", 0, 4, True),
            ("question", "impact", "parse_config", {"depth": 1}, "codex", 1, 1, True),
            ("code_context", "how", "load", {}, "codex", 0, 3, False),
            ("question", "symbol", "load", {}, "devin", 0, 2, False),
        ]
        for step, (kind, intent, target, arguments, client, avoided, read, correct) in enumerate(outcomes):
            asked = (context_answer(g0_repo, state, intent, target) if kind == "code_context"
                     else ask_answer(g0_repo, state, intent, target, *sum((["--depth", str(v)]
                                                                            for v in arguments.values()), [])))
            record_outcome(workspace, kind=kind, intent=intent, target=target, arguments=arguments,
                           answer_id=asked["answer_id"], client=client, reads_avoided=avoided, files_read=read,
                           correct=correct, now=start + timedelta(minutes=step * 7))
        ran = cli("feedback", "report", *where(g0_repo, state), "--json")
        assert ran.code == 0, ran.err
        reports.append(json.dumps(ran.out, sort_keys=True))
    assert reports[0] == reports[1]
    figures = json.loads(reports[0])
    assert (figures["outcomes"], figures["capabilities"]) == (5, 4)
    how = next(w for w in figures["weakest"] if w["capability_id"] == "cmg:code_context:how:load")
    assert (how["n"], how["reward"]) == (2, round(0.7 * 0.65 + 0.3 * 0.0, 4))


# -- the eval run ----------------------------------------------------------------------------------


def test_eval_run_reproduces_on_the_same_generation_and_fails_when_it_cannot(g0_repo: Path,
                                                                             state_dir: Path) -> None:
    assert cli("eval", "run", *where(g0_repo, state_dir)).err.startswith("cm-graph: absent: ")  # no graph
    publish(g0_repo, state_dir, g0_graph())
    assert cli("eval", "run", *where(g0_repo, state_dir), "--json").out["status"] == "empty"
    answer = context_answer(g0_repo, state_dir, "impact", "parse_config")
    assert record(g0_repo, state_dir, answer, "--reads-avoided", "1", "--files-read", "0", "--correct",
                  intent="impact").code == 0
    passed = cli("eval", "run", *where(g0_repo, state_dir), "--json")
    assert (passed.code, passed.out["status"], passed.out["counts"]["reproduced"]) == (0, "passed", 1)

    store = apsw.Connection(str(store_path(state_dir)))  # a case whose answer this graph no longer gives
    store.execute("UPDATE cases SET answer_id = :id", {"id": "sha256:" + "1" * 64})
    store.close()
    failed = cli("eval", "run", *where(g0_repo, state_dir), "--json")
    assert failed.code == 1 and failed.err.startswith("cm-graph: eval_failed: 1 of 1 ")
    assert failed.out["counts"]["not_reproduced"] == 1 and failed.out["regressions"] == ["sha256:" + "1" * 64]


def test_no_socket_is_opened_by_the_loop(g0_repo: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    publish(g0_repo, state_dir, g0_graph())
    answer = context_answer(g0_repo, state_dir, "how", "load")
    opened: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        opened.append(args)
        raise AssertionError("the feedback loop opened a network socket")

    for name in ("connect", "connect_ex", "bind", "sendto"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    assert record(g0_repo, state_dir, answer, "--reads-avoided", "1", "--files-read", "0", "--correct",
                  intent="how").code == 0
    for args in (["feedback", "report"], ["feedback", "export"], ["eval", "run"], ["feedback", "purge"]):
        assert cli(*args, *where(g0_repo, state_dir)).code == 0, args
    assert opened == []
    assert os.listdir(state_dir / "feedback") == ["outcomes.sqlite"]
    assert git(g0_repo, "status", "--porcelain") == ""
    assert Workspace.locate(g0_repo, state_dir).directory.is_dir()


def test_the_row_cap_drops_the_oldest_outcomes_first(g0_repo: Path, state_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from cm_graph.feedback import outcomes

    monkeypatch.setattr(outcomes, "MAX_OUTCOMES", 2)
    publish(g0_repo, state_dir, g0_graph())
    answer = context_answer(g0_repo, state_dir, "how", "load")
    for client in ("first", "second", "third"):
        assert record(g0_repo, state_dir, answer, "--reads-avoided", "1", "--files-read", "0", "--correct",
                      "--client", client, intent="how").code == 0
    exported = cli("feedback", "export", *where(g0_repo, state_dir)).out
    assert [(r["seq"], r["client"]) for r in exported["outcomes"]] == [(2, "second"), (3, "third")]
    assert [c["answer_id"] for c in exported["cases"]] == [answer["answer_id"]]  # still backed


def test_two_processes_recording_one_answer_keep_one_row(g0_repo: Path, state_dir: Path) -> None:
    import subprocess

    from ..support.helpers import CM_GRAPH

    publish(g0_repo, state_dir, g0_graph())
    answer = context_answer(g0_repo, state_dir, "how", "load")
    command = [str(CM_GRAPH), "feedback", "record", "--intent", "how", "--target", "load", "--answer-id",
               answer["answer_id"], "--reads-avoided", "1", "--files-read", "0", "--correct", "--client", "twin",
               "--repo-path", str(g0_repo), "--state-dir", str(state_dir), "--json"]
    racing = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [process.communicate(timeout=60) for process in racing]
    assert [process.returncode for process in racing] == [0, 0], results
    statuses = sorted(json.loads(out)["status"] for out, _ in results)
    assert statuses == ["already_recorded", "recorded"]
    assert {json.loads(out)["seq"] for out, _ in results} == {1}
    assert len(cli("feedback", "export", *where(g0_repo, state_dir)).out["outcomes"]) == 1
