-- Migration 0006 (schema version 6): the text index's lines become one posting list per name.
--
-- One row per (name, file, line) made the mentions table most of the text index's bytes and its
-- insert a fifth of a large build; a name's lines are only ever read together, so they are now
-- one blob on the name's row. A version 5 index is derived again rather than migrated in place;
-- this step exists so the numbered steps still equal schema.sql.
PRAGMA user_version = 6;             -- the schema version; see migrations/

DROP TABLE mentions;
DROP TABLE mention_names;

-- Every name the graph defines (a symbol's or test's label without a leading dot or argument
-- list) that some code line of the bound commit mentions, with how many lines mention it and
-- which (postings). kept = 0 when the name is too common to list: more than 2,000 lines
-- (total = 2001), no posting. A posting is a line that uses the name outside strings and
-- comments, other than a definition, an assignment target or keyword argument, or (outside `#`
-- languages) an object key: a little-endian unsigned 64-bit integer
-- file << 24 | line << 2 | form, ascending, with form 0 qualified_call (`x.name(`), 1 call
-- (`name(`), 2 qualified (`x.name`), 3 name (a bare reference), the strongest on the line.
CREATE TABLE mention_names (
  name      TEXT NOT NULL PRIMARY KEY,
  total     INTEGER NOT NULL,
  kept      INTEGER NOT NULL CHECK (kept IN (0, 1)),
  postings  BLOB NOT NULL                    -- 8 bytes a line: see above ('' when kept = 0)
) WITHOUT ROWID;
