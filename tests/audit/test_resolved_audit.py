"""``audit`` and ``export`` cover the resolved layer (issue 28 item 4): a changed resolved reference
is found by the audit's re-derivation and named by its table, and the canonical export lists the
resolved rows. (``diff``'s definitions and references sections: test_audits.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import apsw

from cm_graph.audit.export import export_lines
from cm_graph.audit.rederive import audit
from cm_graph.generation.status import require_current
from cm_graph.index.ensure import ensure_index

from ..support.helpers import make_repo, publish
from ..support.resolvedkit import file_nodes

FILES: dict[str, str | bytes] = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n",
}


def test_audit_finds_a_changed_reference_and_export_lists_the_resolved_rows(tmp_path: Path) -> None:
    workspace = publish(make_repo(tmp_path / "repo", FILES), tmp_path / "state", file_nodes(FILES))
    index = ensure_index(workspace).path
    assert audit(require_current(workspace))["status"] == "pass"
    exported = [json.loads(line) for line in export_lines(index, "jsonl")]
    assert [r["row"]["qualname"] for r in exported if r["table"] == "definitions"] == [
        "pkg", "pkg.a", "pkg.a.helper", "pkg.a.caller"]
    assert [(r["row"]["line"], r["row"]["role"], r["row"]["definition"], r["row"]["enclosing"])
            for r in exported if r["table"] == "resolved_references"] == [(6, "call", 3, 4)]

    connection = apsw.Connection(str(index))
    with connection:
        connection.execute("UPDATE resolved_references SET definition = enclosing")  # a call bound elsewhere
    connection.close()
    report = audit(require_current(workspace))
    assert report["status"] == "fail"
    differing = [t["table"] for t in report["tables"] if t["only_in_stored"] or t["only_in_rebuilt"]]
    assert differing == ["resolved_references"]
