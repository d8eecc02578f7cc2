-- The local outcome store (docs/feedback.md). Applied on every open; creates what is missing.
-- Database: feedback (schema)
-- outcomes: append-only, one row per (answer_id, client), replayed in seq order.
-- cases: the eval corpus, one row per answer a correct outcome graded.
CREATE TABLE IF NOT EXISTS outcomes (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    workspace TEXT NOT NULL,
    client TEXT NOT NULL,
    connection TEXT,
    capability_id TEXT NOT NULL,
    answer_id TEXT NOT NULL,
    generation TEXT NOT NULL,
    kind TEXT NOT NULL,
    intent TEXT NOT NULL,
    target TEXT NOT NULL,
    reads_avoided INTEGER NOT NULL CHECK (reads_avoided >= 0),
    files_read INTEGER NOT NULL CHECK (files_read >= 0),
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    note_sha256 TEXT,
    note TEXT,
    UNIQUE (answer_id, client)
) STRICT;
CREATE INDEX IF NOT EXISTS outcomes_by_connection ON outcomes (connection);
CREATE TABLE IF NOT EXISTS cases (
    answer_id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    capability_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    intent TEXT NOT NULL,
    target TEXT NOT NULL,
    arguments TEXT NOT NULL,
    generation TEXT NOT NULL,
    commit_sha TEXT NOT NULL,
    cited TEXT NOT NULL,
    first_seq INTEGER NOT NULL
) STRICT;
