"""``Settled``: what one judgement of a workspace's graph gives a ``code_context`` call.

Its own module, typer- and dataclass-free, so that a CLI question (``from_workspace.settle``) does
not load the resident server's machinery (``resident.py``: threads, dataclasses) to hold it.
"""

from __future__ import annotations

from ..base.records import record

TYPE_CHECKING = False  # read as typing.TYPE_CHECKING by type checkers; typing stays unloaded
if TYPE_CHECKING:
    from typing import Any

    import apsw

    from ..generation.status import GraphStatus
    from ..generation.store import Generation
    from .observed import Observed


@record
class Settled:
    """What one judgement gives a ``code_context`` call: the status, the generation, its open
    index, its change-coupling history (or None), HEAD's commit (None when git could not say),
    the definitions the graph lacks and what is known of observed test evidence."""

    status: GraphStatus
    generation: Generation
    connection: apsw.Connection
    history: apsw.Connection | None
    head: str | None
    gaps: dict[str, list[dict[str, Any]]]
    observed: Observed | None = None  # the generation's observed test map (observed.py)

    def close(self) -> None:
        self.connection.close()
        if self.history is not None:
            self.history.close()
