"""Terminal rendering: metadata tables on stderr-free stdout, errors on stderr.

Only this module and the CLI import rich. Everything rendered here is metadata (counts, states,
ids); evidence never reaches the terminal through this module.

Paths, labels and targets are the repository's own text, and a file may be named
``:warning:.py``, ``[bold]x.py`` or ``x\\x1b]52;c;…\\x07.py``. So nothing here is ever read as
markup or emoji codes, nor reaches the terminal as a control character: every string reaches
rich as a ``Text`` made by ``literal``, which spells each control or bidi character visibly
(``base/printable.py``) and which rich prints as written whatever console it is given; the
console this module makes reads neither markup nor emoji either. (rich's ``escape`` is not
enough: it leaves emoji codes alone and doubles a trailing backslash; rich itself drops BEL,
backspace and CR but passes ESC.) Styling is given as styles, never as markup; a line break of
our own between escaped parts is ``lines``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..base.printable import printable
from ..generation.definitions import gaps_sentence

# The width of a console that is not a terminal (a pipe, a file, CliRunner): wider than any row
# we print, so a table never folds a cell. rich gives a pipe 80 columns (or $COLUMNS), and a
# citation folded there (``tests/test_more.py#L17`` then ``26``) reads as another line.
PIPED_WIDTH = 100_000


def console(stderr: bool = False) -> Console:
    """The console every command prints through: literal text (no markup, no emoji codes); on a
    terminal its width, elsewhere whole rows (``PIPED_WIDTH``) unless ``$COLUMNS`` is set."""
    out = Console(stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)
    if not out.is_terminal and not os.environ.get("COLUMNS", "").strip():
        out.width = PIPED_WIDTH  # an explicit $COLUMNS is a width someone asked for: kept
    return out


def literal(value: str | Text, style: str = "") -> Text:
    """``value`` as written, its control and bidi characters spelled visibly (``printable``):
    no markup, no emoji codes, no highlighting. A ``Text`` is already one (``lines``)."""
    return value if isinstance(value, Text) else Text(printable(value), style=style)


def lines(parts: list[str]) -> Text:
    """One cell of several lines: each part escaped, the line breaks between them ours."""
    return Text("\n".join(printable(part) for part in parts))


def print_command(out: Console, command: str) -> None:
    """A command the reader is told to run, on its own line and whole at any width (never
    wrapped by words nor cut by a table's column): what they copy is what runs."""
    out.print(literal(f"  {command}"), soft_wrap=True, overflow="ignore", crop=False)


def _row(*cells: str | Text) -> list[Text]:
    return [literal(cell) for cell in cells]


def print_mapping(out: Console, title: str, rows: dict[str, Any]) -> None:
    table = Table(title=literal(title), show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    for key, value in rows.items():
        table.add_row(*_row(key, _text(value)))
    out.print(table)


def _uncovered_line(item: dict[str, Any]) -> str:
    line = f"{item['path']} ({item.get('reason', item.get('rule', ''))})"
    return f"{line}: {item['next_action']}" if item.get("next_action") else line


def _text(value: Any) -> str | Text:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):  # counts per rule or reason
        return ", ".join(f"{key}: {_text(item)}" for key, item in value.items()) or "-"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(item, dict) and "path" in item for item in value):
            # uncovered inputs: one line each, the file, why, and what can be done
            return lines([_uncovered_line(item) for item in value])
        return ", ".join(str(item) for item in value) or "-"
    return str(value)


def print_summary(out: Console, summary: dict[str, Any]) -> None:
    """The query summary: a status header, then one sorted ``key: value`` row per field."""
    rows = {k: v for k, v in sorted(summary.items()) if k not in ("schema", "status")}
    print_mapping(out, f"Graph context: {summary['status']}", rows)


def print_status(out: Console, value: dict[str, Any]) -> None:
    rows: dict[str, Any] = {"state": value["state"], "usable": value["usable"]}
    if "detail" in value:
        rows["detail"] = value["detail"]
    rows.update({key: item for key, item in value.get("build", {}).items() if key != "schema"})
    additions = dict(value.get("cm_graph", {}))
    last_build = additions.pop("last_build", None)
    coverage = additions.pop("coverage", None) or {}
    rows.update(additions)
    code = coverage.get("code_bytes") or {}
    if code.get("tracked"):
        rows["code_read"] = (f"{code.get('read', 0):,} of {code['tracked']:,} code bytes "
                             f"({100 * code.get('read', 0) // code['tracked']}%)")
    if coverage.get("files"):
        rows["files"] = {key: count for key, count in coverage["files"].items() if count}
    for key in ("exclude", "scope_exclusions", "empty_inputs", "uncovered_inputs"):
        if coverage.get(key):
            rows[key] = coverage[key]
    definitions = coverage.get("definitions") or {}
    if gaps_sentence(definitions) is not None:
        rows["definition_gaps"] = gaps_sentence(definitions)
    if coverage.get("warning"):
        rows["coverage_warning"] = f"{coverage['warning']} {coverage.get('remedy', '')}".strip()
    rows["search"] = value["search"]
    if value.get("next_action"):
        rows["next_action"] = value["next_action"]
    if last_build is not None:
        rows["last_build"] = last_build["summary"]
        rows["to_recover"] = last_build["next_action"]
    print_mapping(out, f"Local graph: {value['state']}", rows)


def print_answer(out: Console, answer: Any) -> None:
    """``query --show``'s view of an answer (answer.Answer): one two-line entry per relationship,
    in report order, drawn as ``ask`` draws it (no repeated question prefix, the node a hop-2
    row was reached from, citations never cut)."""
    from ..base.rules import citation_string

    def say(line: str) -> None:
        out.print(literal(line), soft_wrap=False)

    count = len(answer.relations)
    say(f"{answer.question.name} {answer.target}: {count} relationship{'s' if count != 1 else ''}")
    for relation in answer.relations:
        edge, reached, origin = relation.edge, relation.reached, relation.origin
        subject, obj = (reached, origin) if edge.source == reached.node else (origin, reached)
        say(f"{relation.level:>2}  {subject.label} {edge.relation} {obj.label} ({edge.confidence})")
        details = [f"via {origin.label}"] if relation.level >= 2 else []
        where = citation_string(reached.path, reached.line) if reached.path else "(no source)"
        details.append(f"{reached.kind} at {where}")
        if edge.site_path:
            details.append(f"call site {citation_string(edge.site_path, edge.site_line)}")
        say("    " + " · ".join(details))
    if not count:
        say("No relationship of this question's kinds was found within the bounds.")
    flags = answer.omissions()
    say(f"omissions: {', '.join(flags) if flags else 'none'}")


@contextmanager
def build_progress(err: Console, *, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """Each build stage as a line on stderr with its elapsed time (the running one live, with
    a spinner), on a terminal only: silent when stderr is not a TTY or ``enabled`` is false
    (``--json``), so nothing but the result reaches a pipe or a log."""
    if not enabled or not err.is_terminal:
        yield lambda stage: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(finished_text=Text("done", style="green")),
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=False) as bar:
        running: list[Any] = []

        def finish() -> None:
            if running:
                bar.update(running.pop(), total=1, completed=1)

        def stage(name: str) -> None:
            finish()
            running.append(bar.add_task(name, total=None))

        yield stage
        finish()


def print_doctor(out: Console, report: dict[str, Any]) -> None:
    table = Table(title=literal(f"cm-graph doctor: {report['status']}"), title_justify="left")
    for column in ("check", "status", "message", "remediation"):
        table.add_column(column)
    for check in report["checks"]:
        table.add_row(*_row(check["check"], check["status"], check["message"], check.get("remediation", "")))
    out.print(table)
    for check in report["checks"]:  # the commands to run, whole, each on its own line
        if check.get("command"):
            out.print(literal(f"{check['check']}:"))
            print_command(out, check["command"])


def print_audit(out: Console, report: dict[str, Any]) -> None:
    table = Table(title=literal(f"cm-graph audit {report['generation']}: {report['status']}"), title_justify="left")
    for column in ("check", "status", "message"):
        table.add_column(column)
    for check in report["checks"]:
        table.add_row(*_row(check["check"], check["status"], check["message"]))
    out.print(table)
    for entry in report.get("tables", []):
        if entry["only_in_stored"] or entry["only_in_rebuilt"]:
            out.print(literal(
                f"{entry['table']}: {entry['only_in_stored']} rows only in the stored index, "
                f"{entry['only_in_rebuilt']} only in the fresh derivation"
            ))
            for side in ("stored", "rebuilt"):
                for row in entry[f"{side}_samples"]:
                    out.print(literal(f"  {side}: {row}"))


def _diff_node_line(row: dict[str, Any]) -> str:
    old = f"{row['old_path']}#L{row['old_line']}" if row["old_line"] is not None else str(row["old_path"])
    new = f"{row['new_path']}#L{row['new_line']}" if row["new_line"] is not None else str(row["new_path"])
    if row["change"] == "added":
        return f"added    {row['new_label']}  {new}"
    if row["change"] == "removed":
        return f"removed  {row['old_label']}  {old}"
    if row["change"] == "changed":
        return f"changed  {row['old_label']} -> {row['new_label']}  {new}"
    if row["old_path"] == row["new_path"]:
        return f"moved    {row['new_label']}  {row['new_path']} line {row['old_line']} -> {row['new_line']}"
    return f"moved    {row['new_label']}  {old} -> {new}"


def _diff_edge_line(row: dict[str, Any]) -> str:
    edge = f"{row['source']} {row['relation']} {row['target']}"
    if row["change"] == "moved":
        return f"moved    {edge}  {row['site_path']} line {row['old_site_line']} -> {row['site_line']}"
    site = row["site_path"] + (f"#L{row['site_line']}" if row["site_line"] is not None else "")
    return f"{row['change']:<8} {edge}" + (f"  {site}" if site else "")


def _diff_definition_line(row: dict[str, Any]) -> str:
    def span(start: int | None, end: int | None) -> str:
        return f"lines {start}-{end}"

    name = f"{row['kind']} {row['qualname']}  {row['path']}"
    if row["change"] == "changed":
        return (f"changed  {name} {span(row['old_start_line'], row['old_end_line'])} -> "
                f"{span(row['new_start_line'], row['new_end_line'])}")
    side = "new" if row["change"] == "added" else "old"
    return f"{row['change']:<8} {name} {span(row[f'{side}_start_line'], row[f'{side}_end_line'])}"


def _diff_reference_line(row: dict[str, Any]) -> str:
    target = row["target"] if row["target"] is not None else f"unbound {row['name']}"
    uses = row["new_count"] if row["change"] == "added" else row["old_count"]
    counted = f"{row['old_count']} -> {row['new_count']}" if row["change"] == "changed" else f"x{uses}"
    return f"{row['change']:<8} {row['caller']} {row['role']} {target}  {row['path']} {counted}"


def print_diff(out: Console, report: dict[str, Any]) -> None:
    """``cm-graph diff``: counts, then one line per change, added/removed/changed before moved
    (a line shift is one moved row, ``line N -> M``), wrapped by words, never mid-citation."""
    summary = Table(title="Graph diff", title_justify="left")
    summary.add_column("section")
    summary.add_column("changes")
    sections = [section for section in ("nodes", "relationships", "files", "definitions", "references")
                if section in report]
    for section in sections:
        counts = report[section]["counts"]
        summary.add_row(*_row(section, ", ".join(f"{k} {v:,}" for k, v in counts.items()) or "none"))
    if "exclude" in report:  # the two sides were built with different --exclude globs
        old, new = report["exclude"]["old"], report["exclude"]["new"]
        summary.add_row(*_row("--exclude", f"old {old}, new {new}"))
    out.print(summary)
    draw = {
        "nodes": _diff_node_line,
        "relationships": _diff_edge_line,
        "files": lambda row: f"{row['change']:<8} {row['path']}",
        "definitions": _diff_definition_line,
        "references": _diff_reference_line,
    }
    for section in sections:
        rows = report[section]["rows"]
        if not rows:
            continue
        out.print(literal(section), style="bold")
        for row in rows:
            out.print(literal("  " + draw[section](row)), soft_wrap=False)


def print_evidence(out: Console, packet: dict[str, Any]) -> None:
    """The recipient's reading of a packet: documents and citations, nothing about where from."""
    out.print(literal(
        f"revision {packet['source_revision']} · {packet['completeness']}"
        f"{' · truncated' if packet['truncated'] else ''}"
        f" · omissions: {', '.join(packet['omissions']) or 'none'}"
    ))
    for number, document in enumerate(packet["documents"], 1):
        out.print(literal(f"{number}. {document['text']} [{document['confidence']}]"))
        for citation in document["citations"]:
            out.print(literal(f"   {citation['source']}  ({citation['title']})"))


def _endpoint_names(data: dict[str, Any]) -> Callable[[dict[str, Any]], str]:
    """How a row names an endpoint: ``Container.method()`` for a method, plus its citation when
    another node of this answer carries the same name (five ``.invoke()`` told apart)."""

    def qualified(endpoint: dict[str, Any]) -> str:
        label = endpoint["label"]
        return f"{endpoint['container']}{label}" if endpoint.get("container") and label.startswith(".") else label

    seen: dict[str, set[str]] = {}
    for row in data["relationships"]:
        for side in ("source", "target", "reached_from"):
            seen.setdefault(qualified(row[side]), set()).add(row[side]["provider_id"])
    for seed in data["seeds"]:
        seen.setdefault(qualified(seed), set()).add(seed["provider_id"])

    def name(endpoint: dict[str, Any]) -> str:
        shown = qualified(endpoint)
        if len(seen.get(shown, ())) > 1:
            shown += f" ({endpoint['citation'] or endpoint['provider_id']})"
        return shown

    return name


def _definition_line(endpoint: dict[str, Any]) -> str:
    held = f" in {endpoint['container']}" if endpoint.get("container") else ""
    return f"{endpoint['label']} ({endpoint['kind']}{held}) {endpoint['citation'] or '(no source)'}"


def print_answer_data(out: Console, data: dict[str, Any]) -> None:
    """``ask``'s view of one answer (answerdata.answer_data): the seeds it used, one two-line
    entry per relationship (hop, the edge's own endpoints, the node it was reached from, the
    reached node's citation and the call site, never cut at any width), then what bounded it."""

    def say(line: str) -> None:
        # Wrapped by words to the terminal's width: a citation (one word) is never split.
        out.print(literal(line), soft_wrap=False)

    count = len(data["relationships"])
    scope = f" in {data['within']}" if data.get("within") else ""
    say(f"{data['question']} {data['target']}{scope}: {count} relationship{'s' if count != 1 else ''}")
    matched, seeds = data["matched_definitions"], data["seeds"]
    if matched == 1:
        say(f"seed: {_definition_line(seeds[0])}")
    else:
        used = f", the first {len(seeds)} used" if matched > len(seeds) else ", all used"
        say(f"seeds: the name matches {matched:,} definitions{used}:")
        for definition in data["definitions"][:len(seeds)]:
            say(f"  {_definition_line(definition)}")
        if matched > len(seeds):
            say(f"  ... and {matched - len(seeds):,} more, not used")
    for aside in data.get("chosen_over", []):  # a binding, manifest key or declaration-only member
        say(f"chosen over: {_definition_line(aside)} (defines nothing itself)")
    name = _endpoint_names(data)
    for row in data["relationships"]:
        reached = row[row["reached"]]
        edge = f"{name(row['source'])} {row['relation']} {name(row['target'])}"
        say(f"{row['hop']:>2}  {edge} ({row['confidence']})")
        details = []
        if row["hop"] >= 2:
            details.append(f"via {name(row['reached_from'])}")
        details.append(f"{reached['kind']} at {reached['citation'] or '(no source)'}")
        if row["call_site"]:
            details.append(f"call site {row['call_site']}")
        say("    " + " · ".join(details))
    if not count:
        say("No relationship of this question's kinds was found within the bounds.")
    for cut in data["bounds_hit"]:
        say(f"truncated: {cut['text']}")
        if (cut["remedy"] or "").startswith("cm-graph "):
            print_command(out, cut["remedy"])
    if data["undeclared_endpoints"]:
        shown = ", ".join(data["undeclared_endpoints"])
        say(
            f"provider_partial: the walk touched nodes next to endpoints the provider named but never "
            f"declared (often standard-library imports): {shown}"
        )
    say(f"omissions: {', '.join(data['omissions']) or 'none'}")


def print_symbols(out: Console, path: str, symbols: list[dict[str, Any]], dropped: list[dict[str, Any]]) -> None:
    """``cm-graph symbols PATH``: a file's definitions by line, then those its text holds and the graph lacks."""
    table = Table(title=literal(f"{path}: {len(symbols)} definitions"), title_justify="left")
    table.add_column("line", justify="right", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("label", overflow="fold")
    for symbol in symbols:
        table.add_row(*_row("" if symbol["line"] is None else str(symbol["line"]), symbol["kind"], symbol["label"]))
    out.print(table)
    if dropped:
        named = ", ".join(f"{item['name']} L{item['line']}" for item in dropped)
        out.print(literal(f"The text also defines {len(dropped)} the graph lacks (extraction gaps; textual): {named}."))


def usage_text(item: dict[str, Any]) -> str:
    """``[resolved] instantiate httpcore.ConnectionPool (module_attribute, through httpcore)``;
    ``[package] import from urllib3.poolmanager`` for the anchors that have no role."""
    if "role" not in item:
        return f"[{item['anchor']}] {item['via']}"
    through = f", through {item['through']}" if item.get("through") else ""
    return f"[{item['anchor']}] {item['role']} {item['via']} ({item['use_form']}{through})"
