"""A JavaScript/TypeScript project's answers are valid under the whole schema
(``cmgraph://schemas/cm_graph.codeContext.v3``): the resolver's ``resolved`` evidence for .ts and
.js files travels in the same wire form as Python's. ``test_resolved_javascript``'s project, with a
TypeScript test file, as one real commit extracted by the pinned provider and built by the
installed ``cm-graph``; each intent is asked of the symbols the resolver binds and the graph
misses, and every reply, as sent, is checked against the schema file."""

from __future__ import annotations

import pytest

from cm_graph.context.from_workspace import code_context
from cm_graph.context.wire import cited, section_items
from cm_graph.generation.layout import Workspace

from ..index.test_resolved_javascript import FILES
from ..support.helpers import make_repo, provider_extract, run_installed
from ..support.wholeschemas import whole_schema_problems

pytestmark = [pytest.mark.provider]

TEST_CART = (
    "import { Cart } from '../src/cart';\n"
    "import { format as fmt } from '../src/util';\n"
    "\n"
    "export function test_total(): string {\n"
    "  const cart = new Cart();\n"                # a local holding an instance: cart.total() binds
    "  return fmt(cart.total());\n"              # an aliased call, which the graph misses
    "}\n"
)
ASKED = [("how", "makeCart"), ("how", "Cart"), ("usage", "sum"), ("usage", "format"), ("impact", "sum"),
         ("impact", "format"), ("tests", "sum"), ("tests", "format"), ("tests", "makeCart"), ("usage", "no_such_name")]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    base = tmp_path_factory.mktemp("js-schema")
    repo = make_repo(base / "repo", {**FILES, "tests/cart.test.ts": TEST_CART})
    provider_extract(repo, base / "graphify-out")
    state = base / "state"
    built = run_installed("build", "--from-graph", base / "graphify-out", "--state-dir", state, cwd=repo)
    assert built.returncode == 0, built.stderr
    return Workspace.locate(repo, state)


def test_every_intents_answer_on_a_typescript_project_is_valid_under_the_whole_schema(workspace: Workspace) -> None:
    resolved: dict[str, set[str]] = {}
    for intent, target in ASKED:
        reply = code_context(workspace, intent, target)
        assert whole_schema_problems(reply) == [], (intent, target, reply["status"], whole_schema_problems(reply))
        citations = cited(reply)
        for name, section in reply.get("sections", {}).items():
            for item in section_items(section, citations):
                if item.get("evidence") == "resolved" and str(item.get("path", "")).endswith((".ts", ".js")):
                    resolved.setdefault(name, set()).add(intent)
    # The resolver's items were among what the schema held: a caller, a callee, a hop, a test.
    assert {"resolved_callers", "resolved_calls", "resolved_by_hop", "resolved_tests"} <= set(resolved), resolved
