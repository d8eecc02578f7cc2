"""cm-graph: bounded, offline questions over a per-generation SQLite index of a Graphify code graph."""

__version__ = "0.1.0"
