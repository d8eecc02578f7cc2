-- Scratch tables for one import; the staging file is deleted when the import ends.
CREATE TABLE stage_nodes (
  provider_id TEXT NOT NULL PRIMARY KEY, label TEXT NOT NULL, callable_base TEXT,
  path TEXT NOT NULL, line INTEGER, kind TEXT NOT NULL
);
CREATE TABLE stage_exclusions (provider_id TEXT NOT NULL, file_type TEXT NOT NULL);
CREATE INDEX stage_exclusions_by_id ON stage_exclusions (provider_id);
CREATE TABLE stage_edges (
  list TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, relation TEXT NOT NULL,
  kind TEXT NOT NULL, confidence TEXT NOT NULL, site_path TEXT NOT NULL, site_line INTEGER,
  site_error TEXT
);
CREATE TABLE stage_undeclared (
  provider_id TEXT NOT NULL, missing_id TEXT NOT NULL, PRIMARY KEY (provider_id, missing_id)
);
