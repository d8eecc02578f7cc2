"""``python -m cm_graph``: the console script's own entry (fast paths first, then typer), for a
machine where the ``cm-graph`` script is not on PATH."""

from .cli.entry import main

main()
