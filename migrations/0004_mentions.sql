-- Migration 0004 (schema version 4): the text index, for code_context's mentions.
--
-- A version 3 index has no text index, so it is derived again rather than migrated in place;
-- this step exists so the numbered steps still equal schema.sql.
PRAGMA user_version = 4;             -- the schema version; see migrations/

-- The files the text index read: every tracked blob a node or call site names (the code files
-- the provider extracted), numbered in path order. Their lines are counted in census.
CREATE TABLE text_files (
  file  INTEGER PRIMARY KEY,                 -- rank of the path (1-based)
  path  TEXT NOT NULL
);

-- Every name the graph defines (a symbol's or test's label without a leading dot or argument
-- list) that some code line of the bound commit mentions, with how many lines mention it.
-- kept = 0 when the name is too common to list: more than 2,000 lines (total = 2001), none listed.
CREATE TABLE mention_names (
  name   TEXT NOT NULL PRIMARY KEY,
  total  INTEGER NOT NULL,
  kept   INTEGER NOT NULL CHECK (kept IN (0, 1))
) WITHOUT ROWID;

-- The lines that mention a kept name outside strings and comments, other than its own
-- definition: form says how (call `name(`, qualified_call `x.name(`, qualified `x.name`,
-- name: a bare reference), the strongest form on the line.
CREATE TABLE mentions (
  name  TEXT NOT NULL,
  file  INTEGER NOT NULL REFERENCES text_files (file),
  line  INTEGER NOT NULL,
  form  TEXT NOT NULL CHECK (form IN ('qualified_call', 'call', 'qualified', 'name')),
  PRIMARY KEY (name, file, line)
) WITHOUT ROWID;
