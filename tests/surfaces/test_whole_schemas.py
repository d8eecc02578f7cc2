"""Issue 30 item 3: output schemas describe the whole reply, not a skeleton.

Each tool's ``outputSchema`` stays the envelope's keys (hosts keep it beside the model on every
turn) and its ``$comment`` names the resource ``cmgraph://schemas/<schema>`` holding the whole
schema of each reply it gives. On a repository the pinned provider built, with a commit whose diff
touches a definition, its caller and its test (so ``changes`` has definitions, callers and tests to
run) and a fleet, every tool is called over the SDK's client, answered and refused; every reply is
validated with jsonschema against the whole schema read from that resource, and each schema is
shown to reject a reply with a key removed, a wrong type or a key it does not name.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

import jsonschema  # noqa: E402
from mcp import MCPError  # noqa: E402

from cm_graph.connections.store import ConnectionStore, connect  # noqa: E402
from cm_graph.surfaces.replyschemas import REPLY_SCHEMAS, SCHEMAS_URI, answered_in  # noqa: E402

from ..support.helpers import commit_all, make_repo, provider_extract, run_installed, write_files  # noqa: E402
from ..support.surfacekit import CONNECTION, RECIPIENT, Served  # noqa: E402
from .test_mcp_server import stdio, structured  # noqa: E402
from .test_prime_mcp import FILES, TASK  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.provider]
PACKAGED = Path(__file__).resolve().parents[2] / "cm_graph" / "surfaces" / "schemas"
CHANGED = {
    "pkg/config.py": ("def parse_config(text):\n    pairs = (line.split('=', 1) for line in text.splitlines())\n"
                      "    return dict(pairs)\n\n\ndef load_settings(path):\n"
                      "    return parse_config(open(path).read())\n"),
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("code_context", {"target": "parse_config"}),
    ("code_context", {"target": "parse_config", "intent": "impact"}),
    ("code_context", {"target": "no_such_symbol"}),
    ("prime", {"task": TASK}),
    ("prime", {"task": "make it faster"}),
    ("ask", {"question": "impact", "target": "parse_config"}),
    ("ask", {"question": "symbol", "target": "no_such_symbol"}),
    ("changes", {"diff": "commit", "ref": "HEAD"}),
    ("changes", {"diff": "commit", "ref": "HEAD", "max_items": 1, "max_chars": 5000}),
    ("changes", {}),
    ("cross_repo_usages", {"symbol": "parse_config"}),
    ("cross_repo_usages", {"symbol": "parse_config", "fleet": "nosuch"}),
    ("graph_status", {}),
    ("graph_status", {"fleet": "deps"}),
    ("graph_status", {"fleet": "nosuch"}),
    # refused: rejected arguments, a bad revision, a report about no answer
    ("code_context", {"target": "parse_config", "intent": "callers"}),
    ("changes", {"diff": "commit", "ref": "no-such-ref"}),
    ("graph_feedback", {"capability_id": "cmg:code_context:usage:parse_config", "answer_id": "sha256:" + "0" * 64,
                        "reads_avoided": 1, "files_read": 0, "correct": True}),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    """test_prime_mcp's repository, then a commit that changes ``parse_config``, built by the
    pinned provider at that commit, in a fleet of its own."""
    base = tmp_path_factory.mktemp("whole-schemas")
    repo = make_repo(base / "repo", FILES)
    write_files(repo, CHANGED)
    commit_all(repo, "parse_config in two steps")
    provider_extract(repo, base / "graphify-out")
    state = base / "state"
    done = run_installed("build", "--from-graph", base / "graphify-out", "--state-dir", state, cwd=repo)
    assert done.returncode == 0, done.stderr
    connect(ConnectionStore(state), CONNECTION, repo, ["owner/repo"], [RECIPIENT])
    joined = run_installed("fleet", "add", "deps", "--repo-path", repo, "--state-dir", state, cwd=repo)
    assert joined.returncode == 0, joined.stderr
    return Served(repo, state)


def broken(reply: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The reply spoiled three ways: its prose removed, a bounds value of the wrong type, a key no
    schema names; and for a reply with items, an item's own key removed."""
    spoiled = []
    removed = copy.deepcopy(reply)
    del removed["answer"]
    spoiled.append(("answer removed", removed))
    retyped = copy.deepcopy(reply)
    retyped["bounds"]["truncated"] = "no"
    spoiled.append(("bounds.truncated a string", retyped))
    added = copy.deepcopy(reply)
    added["bogus"] = 1
    spoiled.append(("an unknown key", added))
    if reply["schema"] == "cm_graph.changes.v1" and reply["status"] == "answered" and reply["definitions"]:
        item = copy.deepcopy(reply)
        del item["definitions"][0]["change"]
        spoiled.append(("a definition without its change", item))
        item = copy.deepcopy(reply)
        item["tests"]["items"][0]["path"] = 7
        spoiled.append(("a test's path a number", item))
        item = copy.deepcopy(reply)
        del item["tests"]["selection"]
        spoiled.append(("the tests without their selection", item))
    if reply["schema"] == "cm_graph.codeContext.v3" and reply["status"] == "answered":
        item = copy.deepcopy(reply)
        item["sections"][next(iter(reply["sections"]))]["status"] = "fine"
        spoiled.append(("a section status no section has", item))
        item = copy.deepcopy(reply)
        item["citations"]["c1"] = 12
        spoiled.append(("a file's citations a number", item))
        item = copy.deepcopy(reply)
        path = next(iter(reply["citations"]))
        item["citations"][path] = {"x1": 3}
        spoiled.append(("a citation id not c<N>", item))
        item = copy.deepcopy(reply)
        item["citations"][path] = {next(iter(reply["citations"][path])): "12"}
        spoiled.append(("a citation's line a string", item))
        tabled = next((name for name, section in reply["sections"].items() if "rows" in section), None)
        if tabled is not None:
            item = copy.deepcopy(reply)
            item["sections"][tabled]["except"] = {"kind": {"first": "symbol"}}
            spoiled.append(("an except keyed by no row index", item))
    return spoiled


async def test_every_reply_is_valid_under_its_whole_schema_and_a_spoiled_one_is_not(served: Served) -> None:
    async with stdio(served) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert SCHEMAS_URI + "{schema}" in templates, templates
        schemas: dict[str, dict[str, Any]] = {}
        for row in REPLY_SCHEMAS:
            contents = (await client.read_resource(row.uri)).contents
            assert len(contents) == 1 and contents[0].mime_type == "application/json", row.name
            schemas[row.name] = json.loads(contents[0].text)
            # The resource is the package's data file, a draft 2020-12 schema of that very reply.
            assert schemas[row.name] == json.loads((PACKAGED / f"{row.name}.json").read_text()), row.name
            jsonschema.Draft202012Validator.check_schema(schemas[row.name])
            assert schemas[row.name]["$id"] == row.uri
        assert sorted(p.name for p in PACKAGED.glob("*.json")) == sorted(f"{r.name}.json" for r in REPLY_SCHEMAS)
        with pytest.raises(MCPError) as refused:
            await client.read_resource(SCHEMAS_URI + "cm_graph.nothing.v1")
        assert refused.value.data["reason"] == "not_found"
        # Each tool's brief schema names the whole one of each reply it gives.
        for name, tool in listed.items():
            assert tool.output_schema is not None
            assert tool.output_schema["$comment"].split() == [SCHEMAS_URI + s for s in answered_in(name)], name
        replies = []
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            replies.append((name, arguments, bool(result.is_error), structured(result)))
        context = next(reply for name, _, _, reply in replies if name == "code_context")
        report = {"capability_id": context["capability_id"], "answer_id": context["answer_id"], "reads_avoided": 2,
                  "files_read": 0, "correct": True}
        for _ in range(2):  # recorded, then already_recorded
            result = await client.call_tool("graph_feedback", report)
            replies.append(("graph_feedback", report, bool(result.is_error), structured(result)))
    seen = set()
    for name, arguments, is_error, reply in replies:
        validator = jsonschema.Draft202012Validator(schemas[reply["schema"]])
        problems = [f"{e.json_path}: {e.message[:200]}" for e in validator.iter_errors(reply)]
        assert problems == [], (name, arguments, reply["status"], problems)
        assert reply["schema"] in answered_in(name) or (is_error and reply["schema"] == "cm_graph.surfaceRefusal.v1")
        seen.add((reply["schema"], reply["status"]))
        for how, spoiled in broken(reply):
            assert not validator.is_valid(spoiled), (name, arguments, how)
    # Every schema was seen, in each of the states this repository gives.
    assert {row.name for row in REPLY_SCHEMAS} == {schema for schema, _ in seen}
    assert {("cm_graph.codeContext.v3", "answered"), ("cm_graph.codeContext.v3", "unresolved"),
            ("cm_graph.prime.v2", "answered"), ("cm_graph.prime.v2", "unresolved"),
            ("cm_graph.askAnswer.v1", "answered"), ("cm_graph.askAnswer.v1", "unavailable"),
            ("cm_graph.changes.v1", "answered"), ("cm_graph.crossRepoUsages.v1", "ok"),
            ("cm_graph.crossRepoUsages.v1", "unavailable"), ("cm_graph.surfaceStatus.v1", "ready"),
            ("cm_graph.surfaceFleetStatus.v1", "ready"), ("cm_graph.surfaceFleetStatus.v1", "unavailable"),
            ("cm_graph.feedbackRecord.v1", "recorded"), ("cm_graph.feedbackRecord.v1", "already_recorded"),
            ("cm_graph.surfaceRefusal.v1", "refused")} <= seen, seen
    # The diff touched a definition with a caller and a test: the item schemas were exercised.
    changed = next(r for n, a, _, r in replies if n == "changes" and a == {"diff": "commit", "ref": "HEAD"})
    assert changed["definitions"] and changed["tests"]["items"], changed
    # tests.selection is optional: as the share bound gives it, it fits; retyped or widened, it does not.
    validator = jsonschema.Draft202012Validator(schemas["cm_graph.changes.v1"])
    selected = copy.deepcopy(changed)
    selected["tests"]["selection"] = {"max_share": 0.25, "known_tests": 1, "bound_tests": 1, "items": 1, "tests": 1,
                                      "more_items": 0, "more_tests": 0}
    assert validator.is_valid(selected)
    for key, value in (("max_share", "25%"), ("items", -1), ("bogus", 1)):
        spoiled = copy.deepcopy(selected)
        spoiled["tests"]["selection"][key] = value
        assert not validator.is_valid(spoiled), key


def test_the_schema_files_share_the_envelopes_parts_and_name_themselves() -> None:
    """The files are edited by hand: each is a draft 2020-12 schema named by its own resource URI,
    with the same next action and freshness as every other (a change to one is made to all)."""
    documents = {row.name: row.document() for row in REPLY_SCHEMAS}
    for name, document in documents.items():
        jsonschema.Draft202012Validator.check_schema(document)
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert document["$id"] == SCHEMAS_URI + name and document["properties"]["schema"] == {"const": name}
    first = documents["cm_graph.surfaceRefusal.v1"]["$defs"]
    for name, document in documents.items():
        assert {key: document["$defs"][key] for key in ("next_action", "freshness")} == {
            key: first[key] for key in ("next_action", "freshness")}, name
