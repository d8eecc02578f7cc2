-- The change-coupling history of one generation (indexes/<generation>.history.sqlite, 0600),
-- Database: history (schema)
-- derived from the bound commit's ancestry only, so it is as reproducible as the index.
-- params : the window and thresholds it was built with, and what was read and dropped.
-- commits: the commits read (the window's newest non-merge commits), numbered in sha order;
--          changes: each commit's changed paths after the lockfile/generated filter.
-- revs / pairs: per-path revision counts and co-change counts (a < b, shared >= 2), over the
--          kept change sets and the bound commit's census only.
PRAGMA application_id = 1668114280;  -- 0x636d6768, "cmgh": a cm-graph history file
PRAGMA user_version = 1;
CREATE TABLE params (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE commits (seq INTEGER NOT NULL PRIMARY KEY, sha TEXT NOT NULL UNIQUE);
CREATE TABLE changes (seq INTEGER NOT NULL, path TEXT NOT NULL, PRIMARY KEY (seq, path)) WITHOUT ROWID;
CREATE TABLE revs (path TEXT NOT NULL PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE pairs (
  a TEXT NOT NULL, b TEXT NOT NULL, shared INTEGER NOT NULL, PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX pairs_by_b ON pairs (b, a);
