"""Reading a ``code_context`` answer back: a section's items as dicts and a citation's location.

The wire form is the answer's own business (``shape.py``); anything that reads an answer (the CLI's
view, the feedback loop, benchmarks, tests) goes through these two functions, so a denser
encoding changes one module, not every reader.
"""

from __future__ import annotations

from typing import Any


def section_items(section: dict[str, Any]) -> list[dict[str, Any]]:
    """The items a section shows, each as one dict, in report order."""
    return list(section.get("items") or [])


def cited(document: dict[str, Any]) -> dict[str, str]:
    """Each citation id of the answer and the ``path#Lline`` (or ``path``) it names."""
    return {entry["id"]: entry["cite"] for entry in document.get("citations") or []}
