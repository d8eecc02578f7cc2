-- Every path a node or a call site could cite; their blobs get line counts at import.
-- (DISTINCT first: a few thousand paths deduplicated in a small b-tree, instead of sorting
-- every edge's call site.)
-- Database: import
-- Params : none
-- Returns: (path)
SELECT path FROM (
  SELECT DISTINCT path FROM idx.nodes WHERE path <> ''
  UNION
  SELECT DISTINCT site_path FROM idx.edges WHERE site_path <> ''
  UNION
  SELECT DISTINCT path FROM stage_rationale
)
ORDER BY 1;
