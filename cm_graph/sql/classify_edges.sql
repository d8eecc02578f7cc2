-- Stage 2 of an import, over the staging tables, for the chosen edge list (:edge_list).
-- Records every (code node, undeclared id) pair: an edge between a code node and an id the
-- provider declared nowhere (neither a code node nor a declared non-code exclusion).
INSERT OR IGNORE INTO stage_undeclared (provider_id, missing_id)
SELECT e.source, e.target
FROM stage_edges AS e
WHERE e.list = :edge_list
  AND e.source IN (SELECT provider_id FROM stage_nodes)
  AND e.target NOT IN (SELECT provider_id FROM stage_nodes)
  AND e.target NOT IN (SELECT provider_id FROM stage_exclusions)
UNION ALL
SELECT e.target, e.source
FROM stage_edges AS e
WHERE e.list = :edge_list
  AND e.target IN (SELECT provider_id FROM stage_nodes)
  AND e.source NOT IN (SELECT provider_id FROM stage_nodes)
  AND e.source NOT IN (SELECT provider_id FROM stage_exclusions);
