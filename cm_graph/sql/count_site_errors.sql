-- Kept edges (both endpoints code nodes) whose call site is out of scope or malformed:
-- any one of them refuses the whole graph.
SELECT e.site_error
FROM stage_edges AS e
WHERE e.list = :edge_list
  AND e.site_error IS NOT NULL
  AND e.source IN (SELECT provider_id FROM stage_nodes)
  AND e.target IN (SELECT provider_id FROM stage_nodes)
LIMIT 1;
