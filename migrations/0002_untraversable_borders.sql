-- Migration 0002 (schema version 2): code nodes that border an untraversable record.
--
-- A version 1 index was derived only from graphs with no such record (the importer refused
-- them), so the new table is rightly empty after this step.
PRAGMA user_version = 2;             -- the schema version; see migrations/

-- Code nodes next to a record no traversal passes: a code node whose source_file no citation
-- can carry (a legal file name holding '#', a control character, a backslash, an empty or '.'
-- segment), or an edge between two code nodes whose own call-site path is such a name. Those
-- records are not in nodes or edges at all; a walk that seeds or reaches a node listed here
-- reports provider_warning.
CREATE TABLE untraversable_borders (
  node INTEGER NOT NULL PRIMARY KEY REFERENCES nodes (node)
) WITHOUT ROWID;
