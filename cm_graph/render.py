"""Terminal rendering: metadata tables on stderr-free stdout, errors on stderr.

Only this module and the CLI import rich. Everything rendered here is metadata (counts, states,
ids); evidence never reaches the terminal through this module.
"""

from __future__ import annotations

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
