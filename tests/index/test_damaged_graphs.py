"""A CI-sized adversarial sweep of item 1's guarantee: damaged graphs through the shared publish
path over a good generation. Every damaged graph is either refused (a Refusal: reason plus one
sentence, never another exception), publishing nothing and leaving the previous generation
current and answering, or accepted whole (a flip inside a string can still be valid JSON).

Deterministic (a fixed seed); the counts are asserted, so a regression names how many broke.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from cm_graph.base.errors import Refusal
from cm_graph.generation.layout import Workspace
from cm_graph.generation.store import read_current
from cm_graph.index.ensure import ensure_index
from cm_graph.provider.publish import publish_provider_output

from ..support.g0 import g0_graph
from ..support.helpers import FIXED_BUILT_AT, code_paths, inventory_for, write_output

CASES = 80


def damaged(data: bytes, rng: random.Random) -> bytes:
    """Truncate, flip a byte, delete a span, or duplicate a span of ``data``."""
    kind = rng.randrange(4)
    at = rng.randrange(1, len(data) - 1)
    if kind == 0:
        return data[:at]
    if kind == 1:
        return data[:at] + bytes([data[at] ^ rng.choice((0x01, 0x20, 0x80, 0xFF))]) + data[at + 1:]
    span = rng.randrange(1, 40)
    if kind == 2:
        return data[:at] + data[at + span:]
    return data[:at] + data[at:at + span] + data[at:]


def test_damaged_graphs_never_replace_a_good_generation(g0_repo: Path, state_dir: Path, tmp_path: Path) -> None:
    inventory = inventory_for(g0_repo, code_paths(g0_repo))
    workspace = Workspace.locate(g0_repo, state_dir)
    good = json.dumps(g0_graph(), indent=1).encode()
    publish_provider_output(workspace, write_output(tmp_path / "good", good, inventory), built_at=FIXED_BUILT_AT)
    rng = random.Random(12)
    tally = {"refused": 0, "accepted": 0, "broke": 0}
    broke = []
    for case in range(CASES):
        current = read_current(workspace)
        index_before = workspace.index_path(current.id).read_bytes()
        out = write_output(tmp_path / f"case-{case}", damaged(good, rng), inventory)
        try:
            publish_provider_output(workspace, out, built_at=FIXED_BUILT_AT)
        except Refusal as refusal:
            tally["refused"] += 1
            held = (
                read_current(workspace).id == current.id
                and os.listdir(workspace.generations_dir) == [current.id]
                and workspace.index_path(current.id).read_bytes() == index_before
                and ensure_index(workspace).reused
                and bool(refusal.message) and "\n" not in refusal.message
            )
        except Exception as error:  # noqa: BLE001 - counted: any other exception is a break
            tally["broke"] += 1
            broke.append(f"case {case}: {error!r}")
            continue
        else:
            tally["accepted"] += 1
            now = read_current(workspace)
            held = now.id != current.id and ensure_index(workspace).reused
        if not held:
            tally["broke"] += 1
            broke.append(f"case {case}: state not held")
        leftovers = [name for name in os.listdir(workspace.indexes_dir) if name.startswith(".")]
        leftovers += [name for name in os.listdir(workspace.generations_dir) if name.startswith(".")]
        if leftovers:
            broke.append(f"case {case}: leftovers {leftovers}")
    print(f"damaged graphs: {CASES} tried, {tally}")
    assert broke == [], broke
    assert tally["refused"] > CASES // 2, tally  # most damage must be caught, not just "held"
