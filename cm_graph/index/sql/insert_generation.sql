-- The one row naming the generation an index file was derived from (the importer's last write,
-- and the only one a same-tree rebind makes).
-- Database: import
-- Params : :generation, :commit_id, :tree_id, :built_at, :completeness, :provider, :graph_digest,
--          :graph_bytes, :census_digest, :document_format
-- Returns: nothing
INSERT INTO idx.generation (
  generation, commit_id, tree_id, built_at, completeness, provider, graph_digest, graph_bytes,
  census_digest, document_format
) VALUES (
  :generation, :commit_id, :tree_id, :built_at, :completeness, :provider, :graph_digest, :graph_bytes,
  :census_digest, :document_format
)
