"""Named damaged graphs, kept as files under ``fixtures/damaged/`` so a reader can open each one.

``structure/`` holds documents whose top level is not a graph (hand-written: the files are the
source). ``invalid-json/`` holds G0's ``graph.json`` broken so no strict JSON reader accepts it;
those files are generated from the recipes below (a test holds them equal), regenerate with::

    python -m tests.support.damaged

The random damage of the adversarial sweeps (``adversarial.py``, ``test_damaged_graphs.py``) is
drawn from a seed, not kept as files.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from .documentkit import g0_bytes

DAMAGED_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "damaged"


def g0_with(key: str, raw_value: bytes) -> bytes:
    """G0's bytes with ``"key": <raw_value>`` spliced into the first node."""
    data = g0_bytes()
    marker = b'{"id": "n-config"'
    assert marker in data
    return data.replace(
        marker, b'{"' + key.encode() + b'": ' + raw_value + b', "id": "n-config"', 1
    )


INVALID_JSON: dict[str, Callable[[], bytes]] = {
    "NaN": lambda: g0_with("weight", b"NaN"),
    "Infinity": lambda: g0_with("weight", b"Infinity"),
    "-Infinity": lambda: g0_with("weight", b"-Infinity"),
    "leading-zero": lambda: g0_with("weight", b"01"),
    "single-quotes": lambda: g0_with("weight", b"'x'"),
    "undefined": lambda: g0_with("weight", b"undefined"),
    "invalid-utf8": lambda: g0_bytes().replace(b"parse_config", b"parse\xff_config"),
    "trailing-comma": lambda: g0_bytes()[:-1] + b",}",
    "trailing-garbage": lambda: g0_bytes() + b" x",
    "two-documents": lambda: g0_bytes() + g0_bytes(),
    "empty": lambda: b"",
    "whitespace": lambda: b"   \n",
    "nul-bytes": lambda: b"\x00" * 16,
}


def damaged_documents(kind: str) -> dict[str, bytes]:
    """Every file of ``fixtures/damaged/<kind>/``, by name (without ``.json``), sorted."""
    return {path.stem: path.read_bytes() for path in sorted((DAMAGED_DIR / kind).glob("*.json"))}


def main() -> int:
    """Rewrite ``invalid-json/`` from its recipes."""
    directory = DAMAGED_DIR / "invalid-json"
    directory.mkdir(parents=True, exist_ok=True)
    for name, recipe in INVALID_JSON.items():
        (directory / f"{name}.json").write_bytes(recipe())
    print(f"wrote {len(INVALID_JSON)} files to {directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
