-- Scratch tables for one import; the staging file is deleted when the import ends.
-- Database: import (schema)
CREATE TABLE stage_nodes (
  provider_id TEXT NOT NULL PRIMARY KEY, label TEXT NOT NULL, callable_base TEXT,
  path TEXT NOT NULL, line INTEGER, kind TEXT NOT NULL
);
CREATE TABLE stage_exclusions (provider_id TEXT NOT NULL, file_type TEXT NOT NULL);
CREATE INDEX stage_exclusions_by_id ON stage_exclusions (provider_id);
-- Rationale nodes with a citable location (also staged as exclusions): their bounded text.
CREATE TABLE stage_rationale (
  provider_id TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL,
  truncated INTEGER NOT NULL
);
CREATE INDEX stage_rationale_by_id ON stage_rationale (provider_id);
-- Code nodes whose path no citation can carry (document.py): known by id, never indexed.
CREATE TABLE stage_untraversable (provider_id TEXT NOT NULL);
CREATE INDEX stage_untraversable_by_id ON stage_untraversable (provider_id);
CREATE TABLE stage_edges (
  list TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, relation TEXT NOT NULL,
  kind TEXT NOT NULL, confidence TEXT NOT NULL, site_path TEXT NOT NULL, site_line INTEGER,
  site_error TEXT, site_uncitable INTEGER NOT NULL
);
-- The few edges whose call-site path cannot be cited (empty for an ordinary graph, so it costs
-- nothing to keep while staging, and the statements that look for them read only it).
CREATE INDEX stage_edges_uncitable ON stage_edges (site_uncitable) WHERE site_uncitable;
CREATE TABLE stage_undeclared (
  provider_id TEXT NOT NULL, missing_id TEXT NOT NULL, PRIMARY KEY (provider_id, missing_id)
);
-- Code nodes on the other side of an untraversable record (classify_untraversable.sql).
CREATE TABLE stage_borders (provider_id TEXT NOT NULL PRIMARY KEY);
-- Member calls the provider parked on a code node (metadata.unresolved_calls), by caller id.
CREATE TABLE stage_member_calls (
  provider_id TEXT NOT NULL, callee TEXT NOT NULL, receiver_type TEXT NOT NULL, language TEXT NOT NULL,
  line INTEGER NOT NULL
);
-- Where each indexed node sits, for binding resolved definitions to nodes (insert_definitions):
-- the index's own nodes_by_path leads to every node of a file and then to its row, per
-- definition; this covering copy, filled once (stage_node_sites.sql), is one seek.
CREATE TABLE stage_node_sites (
  path TEXT NOT NULL, line INTEGER, label TEXT NOT NULL, kind TEXT NOT NULL, node INTEGER NOT NULL
);
CREATE INDEX stage_node_sites_by_site ON stage_node_sites (path, line, label, node, kind);
