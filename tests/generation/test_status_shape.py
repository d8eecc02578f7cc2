"""`status --json` has the reference's ``code_mower.contextGraphStatus.v1`` shape, key for key.

The expected key sets are not taken from our code: ``fixtures/reference-status-shape.json`` was
written from the reference notes (the status summary, the shareable build summary, the search
readiness objects). A reader of the reference shape must find every key it expects, with the
type it expects (``search`` a string, ``build`` the build summary with its ``schema``), and
nothing else except the one extension key ``cm_graph`` that carries our additions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cm_graph.cli.app import app

from ..cli.test_cli_query import Case, make_reader_incompatible
from ..support.g0 import g0_graph
from ..support.helpers import commit_all, publish

SHAPE = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "reference-status-shape.json").read_text())
RENAMED = {key: value["ours"] for key, value in SHAPE["deviations"].items()}


def status_json(case: Case) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["status", *case.where(), "--json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return json.loads(result.stdout)


def assert_reference_shape(value: dict[str, Any], reader: str) -> None:
    status = SHAPE["status"]
    extension = SHAPE["extension_key"]
    keys = set(value) - {extension}
    assert set(status["required"]) <= keys, set(status["required"]) - keys
    allowed = set(status["required"]) | set(status["optional"])
    assert keys <= allowed, keys - allowed
    assert value["schema"] == status["schema"]
    assert isinstance(value["usable"], bool) and isinstance(value["state"], str)
    assert value["search"] in SHAPE["search_values"]
    if "build" in value:
        assert set(value["build"]) == set(SHAPE["build"]["exact"])
        assert value["build"]["schema"] == SHAPE["build"]["schema"]
    readiness = value["query_reader"]
    assert readiness["schema"] == SHAPE["query_reader"]["schema"]
    assert readiness["reader"] == reader
    assert readiness["search"] == value["search"]
    expected = {RENAMED.get(key, key) for key in SHAPE["query_reader"][reader]}
    assert set(readiness) == expected


def test_current_status_has_the_reference_shape(case: Case) -> None:
    publish(case.repo, case.state, g0_graph())
    value = status_json(case)
    assert_reference_shape(value, "compatible")
    assert (value["state"], value["usable"], value["search"]) == ("current", True, "available")
    # published as another compatible tool publishes (no build record of ours): origin unknown
    assert value["cm_graph"] == {"origin": "unknown", "contained": None}


def test_stale_and_absent_status_have_the_reference_shape(case: Case) -> None:
    assert_reference_shape(status_json(case), "not_checked")
    publish(case.repo, case.state, g0_graph())
    commit_all(case.repo, "HEAD moves")
    value = status_json(case)
    assert_reference_shape(value, "not_checked")
    assert value["state"] == "stale" and value["search"] == "unavailable" and "build" in value


def test_reader_incompatible_status_has_the_reference_shape(case: Case) -> None:
    make_reader_incompatible(case)
    value = status_json(case)
    assert_reference_shape(value, "incompatible")
    assert value["next_action"] == value["query_reader"]["next_action"]
