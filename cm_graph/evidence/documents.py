"""Turn an answer's relationships into cited documents.

Every citation is confirmed against the bound commit's census stored in the index: the path
must be tracked by that commit and a line claim must not pass the end of its blob. What cannot
be confirmed is dropped, never downgraded, and the drop is reported (provider_warning); a
relationship left with nothing to cite is not a document (document_limit).
"""

from __future__ import annotations

import apsw

from ..base.rules import citation_in_scope, citation_string
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..query.answer import Answer, Node, Relation

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

MAX_DOCUMENTS = 16
MAX_CITATIONS_PER_DOCUMENT = 10
MAX_CITATIONS = 200
SOURCE_KIND = "local_repository_graph"
PACKET_CONFIDENCE = {"extracted": "extracted", "inferred": "inferred", "ambiguous": "unknown"}


class CitationChecker:
    """Answers "does the bound commit carry this path and line?" from the index's census."""

    def __init__(self, connection: apsw.Connection) -> None:
        self._connection = connection
        self._lines: dict[str, int | None] = {}

    def confirms(self, path: str, line: int | None) -> bool:
        if not citation_in_scope(path, line):
            return False
        if path not in self._lines:
            rows = fetch_rows(
                self._connection.execute(query_sql("census_lines"), {"path": path}), tuple[int | None]
            )
            self._lines[path] = -1 if not rows else rows[0][0]
        lines = self._lines[path]
        if lines == -1:
            return False
        return line is None or (lines is not None and line <= lines)


class Documents:
    """The documents of one answer and why any were left out (filled in by ``build_documents``)."""

    __slots__ = ("items", "unvalidated", "dropped", "text_limited")

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.unvalidated = False
        self.dropped = False
        self.text_limited = False

    def omissions(self) -> list[str]:
        codes = []
        if self.unvalidated:
            codes.append("provider_warning")
        if self.dropped:
            codes.append("document_limit")
        if self.text_limited:
            codes.append("text_limit")
        return codes


def sentence(question: str, relation: Relation, reached_path_cited: bool = True) -> str:
    """``<question>: <subject> <relation> <object> (<evidence>, hop <n>[, reached from <seed>],
    <kind> at <path>)`` — the edge's own two endpoints, never a seed-to-far-node shortcut.

    A packet's text may name only what its citations already carry (the seed), so when the
    reached node's citation was dropped its whole ``<kind> at <path>`` clause is left out. A
    sourceless stub has no path to drop: its clause stays, ending ``at )``, as the reference's
    text does.
    """
    reached, origin = relation.reached, relation.origin
    if relation.edge.source == reached.node:
        subject, obj = reached.label, origin.label
    else:
        subject, obj = origin.label, reached.label
    details = [relation.edge.confidence, f"hop {relation.level}"]
    if relation.level >= 2:
        details.append(f"reached from {relation.seed.label}")
    if not reached.path:
        details.append(f"{reached.kind} at ")
    elif reached_path_cited:
        details.append(f"{reached.kind} at {reached.path}")
    return f"{question}: {subject} {relation.edge.relation} {obj} ({', '.join(details)})"


def _endpoint_citation(node: Node) -> str | None:
    return citation_string(node.path, node.line) if node.path else None


def build_documents(
    answer: Answer,
    checker: CitationChecker,
    max_documents: int,
    max_document_bytes: int = 20_000,
    max_text_bytes: int = 80_000,
) -> Documents:

    """One document per relationship, in report order, within the policy's budgets.

    A document whose text would pass ``max_document_bytes``, or that would take the packet past
    ``max_text_bytes``, is left out and reported (``text_limit``) rather than minted into a
    packet that delivery would refuse.
    """
    limit = min(MAX_DOCUMENTS, max_documents)
    result = Documents()
    total = 0
    text_bytes = 0
    for relation in answer.relations:
        if len(result.items) >= limit:
            result.dropped = True
            break
        entries: dict[str, tuple[Node, str]] = {}
        located = 0
        for endpoint in (relation.reached, relation.origin):
            citation = _endpoint_citation(endpoint)
            if citation is None:
                continue
            located += 1
            entries.setdefault(citation, (endpoint, f"{endpoint.kind} {endpoint.label}"))
        cited = [
            {"source": citation, "title": title}
            for citation, (node, title) in entries.items()
            if checker.confirms(node.path, node.line)
        ]
        reached_citation = _endpoint_citation(relation.reached)
        reached_path_cited = any(c["source"] == reached_citation for c in cited)
        if len(cited) < len(entries) or located < 2:
            result.unvalidated = True
        edge = relation.edge
        if edge.site_path:
            site = citation_string(edge.site_path, edge.site_line)
            if checker.confirms(edge.site_path, edge.site_line):
                if all(c["source"] != site for c in cited):
                    cited.append({"source": site, "title": f"call site: {edge.relation}"})
            else:
                result.unvalidated = True
        cited = cited[:MAX_CITATIONS_PER_DOCUMENT]
        if not cited:
            result.dropped = True
            continue
        if total + len(cited) > MAX_CITATIONS:
            result.dropped = True
            break
        text = sentence(answer.question.name, relation, reached_path_cited)
        size = len(text.encode("utf-8"))
        if size > max_document_bytes:
            result.text_limited = True
            continue
        if text_bytes + size > max_text_bytes:
            result.text_limited = True
            break
        text_bytes += size
        total += len(cited)
        result.items.append({
            "text": text,
            "confidence": PACKET_CONFIDENCE[edge.confidence],
            "source_kind": SOURCE_KIND,
            "citations": cited,
        })
    return result
