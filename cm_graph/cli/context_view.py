"""A person's view of a code_context answer: the prose, then one table per section.

Rendered through the project's literal console and ``render.literal`` (no markup, no emoji
codes, no control character: labels and paths are the repository's own text). An agent reads the
JSON instead; this view adds nothing to it.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ..context.wire import cited, header, section_items
from .render import literal, usage_text


def _where(item: dict[str, Any]) -> tuple[str, str]:
    """The location a row shows (the call site when it is cited, else the definition) and the
    cite the prose uses for the same item (the site's, else the definition's)."""
    site = item.get("site") or {}
    if site.get("cite"):
        return f"{site['path']}#L{site['line']}" if site["line"] else site["path"], site["cite"]
    path, line = item.get("path"), item.get("line")
    return (f"{path}#L{line}" if path and line else path or "-"), item.get("cite") or ""


def print_context(out: Console, document: dict[str, Any]) -> None:
    head = f"{document['intent']} {document['target']}: {document['status']}"
    out.print(literal(head, style="bold"))
    out.print(literal(document["answer"]))
    _print_sections(out, document)
    _print_tail(out, document)


def print_prime(out: Console, document: dict[str, Any]) -> None:
    """A prime: the prose, the spellings the task named and what each became, each anchor's sections."""
    out.print(literal(f"prime: {document['status']}", style="bold"))
    out.print(literal(document["answer"]))
    spellings = section_items(document["spellings"])
    if spellings:
        table = Table(title=literal("spellings"), title_justify="left")
        for column in ("spelling", "from", "status", "anchor or candidates"):
            table.add_column(column, overflow="fold")
        for item in spellings:
            became = item.get("anchor") or ", ".join(item.get("candidates") or []) or str(item.get("total") or "")
            table.add_row(*(literal(cell) for cell in (item["spelling"], item["from"], item["status"], became)))
        out.print(table)
    _print_sections(out, document)
    _print_tail(out, document)


def _print_sections(out: Console, document: dict[str, Any]) -> None:
    for name, rows in document["sections"].items():
        section = header(rows)
        title = f"{name}: {section['status']} ({section['shown']} of {section['total']})"
        if section["status"] != "ok" and section["reason"]:
            title += f" - {section['reason']}"
        items = section_items(rows, cited(document))
        if not items:
            out.print(literal(title, style="dim"))
            continue
        table = Table(title=literal(title), title_justify="left")
        # A citation is folded onto the next line when narrow, never cut with an ellipsis.
        for column in ("", "name", "where", "how"):
            table.add_column(column, overflow="fold")
        for item in items:
            how = item.get("relation") or (f"{item['form']}, {item.get('confidence') or item['evidence']}"
                                           if "form" in item else
                                           f"overrides, {', '.join(item['evidence'])}, depth {item['depth']}"
                                           if "depth" in item else
                                            f"shares {item['jaccard']}" if "jaccard" in item else
                                            usage_text(item) if "anchor" in item else
                                            _test_how(item) if "runner" in item else "says")
            if item.get("use"):  # a dynamic use: its kind, and the prefix a getattr dispatch spells
                how = f"{item['use']}, {how}" + (f", prefix {item['prefix']}" if item.get("prefix") else "")
            chosen = item.get("linked_to")
            if chosen:
                where_chosen = f"{chosen['path']}#L{chosen['line']}" if chosen["line"] else chosen["path"]
                how += f"; graph links it to {chosen['label']} at {where_chosen}"
            if item.get("through"):
                how += f", through {item['through']}"
            if "hop" in item:
                how += f", hop {item['hop']}"
            # a cross_repo row names the repository that uses the definition (it has no label)
            name = item.get("label") or item.get("text") or item["repository"]
            where, cite = _where(item)
            table.add_row(*(literal(cell) for cell in (cite, name, where, how)))
        out.print(table)


def _print_tail(out: Console, document: dict[str, Any]) -> None:
    graph, fresh = document["graph"], document["freshness"]
    out.print(literal(f"generation {graph['generation']} at {graph['commit'][:12]}, {fresh['state']}; "
                      f"{len(cited(document))} citation(s) verified", style="dim"))
    for action in document["next_actions"]:
        out.print(literal(f"next: {action['command']}  ({action['why']})", style="dim"))


def _test_how(item: dict[str, Any]) -> str:
    """A test to run's evidence kind, and its outcome in the recorded run when it was observed."""
    return str(item["evidence"]) + (f", {item['outcome']}" if item.get("outcome") else "")
