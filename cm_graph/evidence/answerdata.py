"""An answer as data for the operator: what ``ask --json`` prints and the table is drawn from.

The answer itself (answer.py) is what packets are made of and stays as the seed defines it. This
adds what a person needs to read and steer it: every endpoint named distinguishably (provider
id, container, citation), the intermediate node each relationship was reached from, how many
definitions the name matched and how many the seed bound dropped, which bound cut the answer and
the flag that lifts it, the undeclared endpoints behind provider_partial, and (for an unresolved
name) ranked suggestions.
"""

from __future__ import annotations

import json
import shlex

import apsw

from ..base.rules import citation_string
from ..base.sqlfiles import query_sql
from ..query.answer import Answer, Relation
from ..query.questions import MAX_DEPTH, MAX_NODE_BUDGET, MAX_SEEDS
from ..query.symbols import Endpoint, describe, matching_definitions, undeclared_near
from ..query.targets import path_spelling
from .documents import MAX_DOCUMENTS

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

MAX_UNDECLARED_LISTED = 10


def _depth_frontier(connection: apsw.Connection, result: Answer) -> int:
    """How many nodes at the last hop still have an eligible relationship behind them."""
    last = [r.reached.node for r in result.relations if r.level == result.depth]
    if not last:
        last = [s.node for s in result.seeds] if result.depth == 0 else []
    row = connection.execute(query_sql("count_depth_frontier"), {
        "nodes": json.dumps(sorted(set(last))),
        "directions": json.dumps(list(result.question.directions)),
        "kinds": json.dumps(list(result.question.kinds)),
        "edges": json.dumps(sorted({r.edge.edge for r in result.relations})),
    }).fetchone()
    return int(row[0]) if row else 0


def bounds_hit(result: Answer, matched: int, frontier: int, file: str | None = None) -> list[dict[str, Any]]:
    """Each bound that cut the answer: its name, value, one sentence and the flag that lifts it.
    A path target (``file``) cannot be narrowed with ``--in``: its cut names the command that
    lists every definition of the file and the spelling that asks about one."""
    cuts: list[dict[str, Any]] = []
    if result.seed_overflow:
        more = "more than " if matched > 1000 else ""
        kept = f"the seed bound ({MAX_SEEDS}) kept the first {MAX_SEEDS} and their neighbourhoods only"
        if file is not None:
            listing = f"cm-graph symbols {shlex.quote(file)}"
            text = (f"the file holds {more}{matched:,} definitions; {kept}: see every one with {listing}, "
                    f"then ask about one as {file}::NAME")
        else:
            listing = "--in PATH"
            text = f"the name matches {more}{matched:,} definitions; {kept}: narrow it with --in PATH"
        cuts.append({
            "bound": "seeds", "value": MAX_SEEDS, "matched": matched,
            "dropped": max(matched - MAX_SEEDS, 1), "text": text, "remedy": listing,
        })
    if result.over_budget:
        lifted = min(MAX_NODE_BUDGET, result.budget * 3)
        remedy = f"--node-budget {lifted}" if lifted > result.budget else None
        text = f"cut by the node budget ({result.budget})"
        text += f": rerun with {remedy}" if remedy else " (the maximum): ask about a narrower target"
        cuts.append({"bound": "node_budget", "value": result.budget, "text": text, "remedy": remedy})
    if result.depth_boundary:
        remedy = f"--depth {result.depth + 1}" if result.depth < MAX_DEPTH else None
        nodes = f"{frontier:,} node{'s' if frontier != 1 else ''}"
        text = f"stopped at depth {result.depth} on {nodes} with more behind them"
        text += f": {remedy}" if remedy else " (the maximum depth)"
        cuts.append({"bound": "depth", "value": result.depth, "nodes": frontier, "text": text, "remedy": remedy})
    if len(result.relations) > MAX_DOCUMENTS:
        cuts.append({
            "bound": "documents", "value": MAX_DOCUMENTS, "relationships": len(result.relations),
            "text": f"a packet holds {MAX_DOCUMENTS} of {len(result.relations):,} relationships "
                    "(document limit); this view shows them all",
            "remedy": None,
        })
    return cuts


def _relationship(relation: Relation, named: dict[int, Endpoint]) -> dict[str, Any]:
    edge = relation.edge
    source, target = named[edge.source], named[edge.target]
    site = citation_string(edge.site_path, edge.site_line) if edge.site_path else None
    citations = [c for c in (source.citation, target.citation, site) if c]
    return {
        "hop": relation.level,
        "source": source.to_json(),
        "relation": edge.relation,
        "kind": edge.kind,
        "target": target.to_json(),
        "reached": "source" if edge.source == relation.reached.node else "target",
        "reached_from": named[relation.origin.node].to_json(),
        "seed": relation.seed.label,
        "confidence": edge.confidence,
        "call_site": site,
        "citations": list(dict.fromkeys(citations)),
    }


def _file_target(target: str, matches: list[Endpoint]) -> str | None:
    """The file a path target names (its own node is among the matches), else None."""
    spelled = path_spelling(target)
    return spelled if any(m.kind == "file" and m.path == spelled for m in matches) else None


def answer_data(
    connection: apsw.Connection, result: Answer, within: str | None = None,
    suggestions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The whole answer as one JSON-ready object (deterministic: index order only)."""
    data: dict[str, Any] = {
        "question": result.question.name, "target": result.target, "within": within,
        "depth": result.depth, "node_budget": result.budget, "resolved": result.resolved,
    }
    if not result.resolved:
        data["suggestions"] = suggestions or []
        return data
    matches, matched = matching_definitions(connection, result.target, within, qualified=result.qualified)
    numbers = [m.node for m in matches]
    for relation in result.relations:
        numbers += [relation.edge.source, relation.edge.target, relation.origin.node]
    named = describe(connection, numbers)
    touched = [s.node for s in result.seeds] + [r.reached.node for r in result.relations]
    frontier = _depth_frontier(connection, result) if result.depth_boundary else 0
    data.update({
        "seeds": [named[s.node].to_json() for s in result.seeds],
        **({"chosen_over": [item.to_json() for item in describe(connection, list(result.set_aside)).values()]}
           if result.set_aside else {}),
        "matched_definitions": matched,
        "definitions": [m.to_json() for m in matches[:50]],
        "relationships": [_relationship(r, named) for r in result.relations],
        "truncated": result.truncated,
        "bounds_hit": bounds_hit(result, matched, frontier, _file_target(result.target, matches)),
        "omissions": result.omissions(),
        "undeclared_endpoints": undeclared_near(connection, touched, MAX_UNDECLARED_LISTED)
        if result.incomplete else [],
    })
    return data
