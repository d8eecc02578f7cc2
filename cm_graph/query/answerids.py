"""The two ids every answer carries, whichever surface asked: ``capability_id`` and ``answer_id``.

``capability_id`` (``cmg:<kind>:<intent>:<normalised target>``) names *what was asked*, so it is
the same on every generation and outcomes about one capability can be pooled. ``answer_id``
(``sha256:`` of the canonical JSON of the answer) names *what was answered*: the answer carries its
generation and its arguments, so the id pins both and an outcome can be replayed against it. It
leaves out what describes the checkout rather than the answer (``freshness``: where HEAD is now,
and for a fleet which members are behind theirs; ``next_actions`` and ``pages``: advice and cursors
that follow from it, a cursor naming the answer's id),
so moving HEAD alone, in the checkout or in any fleet member, never changes an answer's id.

This sits in ``query/`` so the questions (``evidence/``) and ``code_context`` (``context/``) share
one definition.
"""

from __future__ import annotations

import hashlib

from ..base.jsonio import dumps_canonical
from ..index.graphmodel import callable_base

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

# Keys of an answer document that are not part of the answer itself.
NOT_THE_ANSWER = ("answer_id", "freshness", "pages", "next_actions")
ID_PREFIX = "sha256:"
CAPABILITY_PREFIX = "cmg:"


def normalise_target(target: str) -> str:
    """The target's stable spelling: trimmed, no leading dot, no argument list (``.load()``,
    ``load()`` and ``load`` are one capability)."""
    name = target.strip().lstrip(".")
    return callable_base(name) or name


def capability_id(kind: str, intent: str, target: str) -> str:
    """``kind`` is the surface's family (``code_context`` or ``question``), ``intent`` its intent
    or question name."""
    return f"{CAPABILITY_PREFIX}{kind}:{intent}:{normalise_target(target)}"


def answer_id(document: dict[str, Any]) -> str:
    rest = {key: value for key, value in document.items() if key not in NOT_THE_ANSWER}
    return ID_PREFIX + hashlib.sha256(dumps_canonical(rest)).hexdigest()


def stamp_ids(document: dict[str, Any], kind: str, intent: str, target: str) -> dict[str, Any]:
    """``document`` with ``capability_id`` and then ``answer_id`` (of everything else): in their
    places when the document has them already (an envelope's, ``base/envelope.py``), else appended."""
    document["capability_id"] = capability_id(kind, intent, target)
    document["answer_id"] = answer_id(document)
    return document
