"""Terminal rendering: metadata tables on stderr-free stdout, errors on stderr.

Only this module and the CLI import rich. Everything rendered here is metadata (counts, states,
ids); evidence never reaches the terminal through this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.table import Table

from .jsonio import dumps_pretty


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def print_json(out: Console, value: Any) -> None:
    out.file.write(dumps_pretty(value) + "\n")
    out.file.flush()


def print_mapping(out: Console, title: str, rows: dict[str, Any]) -> None:
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    for key, value in rows.items():
        table.add_row(key, _text(value))
    out.print(table)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value) or "-"
    return str(value)


def print_refusal(err: Console, reason: str, message: str) -> None:
    err.print(f"[bold red]cm-graph: {reason}[/]: {message}", markup=True, highlight=False)


def print_summary(out: Console, summary: dict[str, Any]) -> None:
    """The query summary: a status header, then one sorted ``key: value`` row per field."""
    rows = {k: v for k, v in sorted(summary.items()) if k not in ("schema", "status")}
    print_mapping(out, f"Graph context: {summary['status']}", rows)


def print_status(out: Console, value: dict[str, Any]) -> None:
    rows: dict[str, Any] = {"state": value["state"], "usable": value["usable"]}
    if "detail" in value:
        rows["detail"] = value["detail"]
    rows.update(value.get("build", {}))
    rows["search"] = value["search"]["search"]
    if "next_action" in value["search"]:
        rows["next_action"] = value["search"]["next_action"]
    print_mapping(out, f"Local graph: {value['state']}", rows)


def print_answer(out: Console, answer: Any) -> None:
    """The operator's view of an answer: one row per relationship, in report order."""
    from .documents import sentence

    table = Table(
        title=f"{answer.question.name} {answer.target}: {len(answer.relations)} relationships",
        title_justify="left",
    )
    table.add_column("hop", justify="right")
    table.add_column("relationship")
    table.add_column("call site")
    for relation in answer.relations:
        edge = relation.edge
        site = edge.site_path + (f"#L{edge.site_line}" if edge.site_line else "")
        table.add_row(str(relation.level), sentence(answer.question.name, relation), site or "-")
    out.print(table)
    flags = [code for code in answer.omissions()]
    out.print(f"omissions: {', '.join(flags) if flags else 'none'}")


@contextmanager
def build_progress(err: Console) -> Iterator[Callable[[str], None]]:
    """Stage names on stderr while a build runs; silent when stderr is not a terminal."""
    if not err.is_terminal:
        yield lambda stage: None
        return
    with err.status("census") as status:
        yield lambda stage: status.update(f"[bold]{stage}[/] …")


def print_doctor(out: Console, report: dict[str, Any]) -> None:
    table = Table(title=f"cm-graph doctor: {report['status']}", title_justify="left")
    for column in ("check", "status", "message", "remediation"):
        table.add_column(column)
    for check in report["checks"]:
        table.add_row(check["check"], check["status"], check["message"], check.get("remediation", ""))
    out.print(table)
