"""Definitions before manifest keys (issue 27 item 6): in ``ask`` and ``context`` a real
definition outranks a ``package.json`` dependency or script of its name and a ``.d.ts``
declaration-only member, and the answer names what it was chosen over; ``query`` keeps the
seed's tiers exactly (the manifest key it matched first). Built with the real pinned provider."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cm_graph.generation.layout import Workspace

from ..support.askkit import authorization
from ..support.contextkit import ask_context
from ..support.helpers import make_repo, provider_extract, run_installed

pytestmark = [pytest.mark.provider]

FILES = {
    "package.json": json.dumps({"name": "lib", "scripts": {"build": "tsc"}, "devDependencies": {"diff": "^5.0.0"}},
                               indent=2) + "\n",
    "src/diff.js": "export function diff(a, b) {\n  return a - b;\n}\n",
    "src/build.js": "export function build() {\n  return 1;\n}\n",
    "src/app.js": "import { diff } from './diff';\nimport { build } from './build';\nexport function main() {\n"
                  "  return diff(build(), 1);\n}\n",
    "src/hooks.js": "export function useState(x) {\n  return [x];\n}\n",
    "src/types.d.ts": "export enum HookType {\n  useState = 1,\n  useEffect = 2,\n}\n",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("manifest")
    repo = make_repo(root / "repo", FILES)
    provider_extract(repo, root / "out")
    done = run_installed("build", "--from-graph", root / "out", "--state-dir", root / "state", cwd=repo)
    assert done.returncode == 0, done.stderr
    return Workspace.locate(repo, root / "state")


def _ask(workspace: Workspace, target: str) -> dict[str, Any]:
    done = run_installed("ask", "impact", target, "--json", "--state-dir", workspace.root, cwd=workspace.checkout)
    assert done.returncode == 0, done.stderr
    [answer] = json.loads(done.stdout)["answers"]
    return answer


@pytest.mark.parametrize(("target", "defined", "over"), [("diff", "src/diff.js", "package.json"),
                                                          ("build", "src/build.js", "package.json"),
                                                          ("useState", "src/hooks.js", "src/types.d.ts")])
def test_ask_and_context_choose_the_definition_and_name_what_it_was_chosen_over(
    built: Workspace, target: str, defined: str, over: str,
) -> None:
    answer = _ask(built, target)
    assert [seed["path"] for seed in answer["seeds"]] == [defined]
    assert [item["path"] for item in answer["chosen_over"]] == [over]
    context = ask_context(built, "usage", target)
    assert context["anchors"][0]["path"] == defined
    kind = "manifest key(s)" if over.endswith(".json") else "declaration-only member(s)"
    assert f"It was chosen over 1 {kind} of the same name" in context["answer"]


def test_query_keeps_the_seeds_tiers_exactly(built: Workspace) -> None:
    from cm_graph.evidence.ask import ask

    outcome = ask(built, "impact", "diff", authorization(built))
    assert outcome.answer is not None  # the seed it walked, whatever the packet then holds
    assert [seed.path for seed in outcome.answer.seeds] == ["package.json"] and outcome.answer.set_aside == ()
