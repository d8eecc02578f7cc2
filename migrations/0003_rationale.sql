-- Migration 0003 (schema version 3): the provider's rationale nodes, kept for code_context.
--
-- A version 2 index pruned them, so it is derived again rather than migrated in place (every
-- other version is); this step exists so the numbered steps still equal schema.sql.
PRAGMA user_version = 3;             -- the schema version; see migrations/

-- What the code says about itself: the provider's rationale nodes (docstrings and NOTE/WHY/
-- HACK-style comments) by the code node their rationale_for edge explains. The text is the
-- provider's label, whitespace collapsed and cut to 300 characters (truncated says so); path and
-- line are the rationale's own location, cited like any other (checked against the census).
CREATE TABLE rationale (
  node      INTEGER NOT NULL REFERENCES nodes (node),
  path      TEXT NOT NULL,
  line      INTEGER NOT NULL,
  text      TEXT NOT NULL,
  truncated INTEGER NOT NULL CHECK (truncated IN (0, 1)),
  PRIMARY KEY (node, path, line, text)
) WITHOUT ROWID;
