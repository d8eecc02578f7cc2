-- Kept edges (both endpoints code nodes) whose call site is out of scope or malformed:
-- any one of them refuses the whole graph; the first in document order names the reason.
-- Database: import
-- Params : :edge_list
-- Returns: (site_error)
SELECT e.site_error
FROM stage_edges AS e
JOIN res.resolved AS r ON r.seq = e.rowid
WHERE e.list = :edge_list
  AND e.site_error IS NOT NULL
  AND r.source_node IS NOT NULL
  AND r.target_node IS NOT NULL
ORDER BY e.rowid
LIMIT 1;
