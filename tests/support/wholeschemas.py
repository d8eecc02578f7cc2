"""Every reply checked against the whole schema of its own ``schema``: the package's data file
``cm_graph/surfaces/schemas/<schema>.json``, served as ``cmgraph://schemas/<schema>``."""

from __future__ import annotations

from typing import Any


def whole_schema_problems(reply: dict[str, Any]) -> list[str]:
    """What the whole schema of ``reply``'s own ``schema`` (``cmgraph://schemas/<schema>``, the
    package's data file) finds wrong with it, each as ``path: message``; an unknown schema is one."""
    import jsonschema

    from cm_graph.surfaces.replyschemas import BY_SCHEMA, whole_schema

    if reply.get("schema") not in BY_SCHEMA:
        return [f"$.schema: no whole schema for {reply.get('schema')!r}"]
    validator = jsonschema.Draft202012Validator(whole_schema(reply["schema"]))
    return [f"{error.json_path}: {error.message[:200]}" for error in validator.iter_errors(reply)]


def checked(reply: dict[str, Any]) -> dict[str, Any]:
    """``reply``, asserted valid under its whole schema."""
    problems = whole_schema_problems(reply)
    assert problems == [], (reply.get("schema"), reply.get("status"), problems)
    return reply
