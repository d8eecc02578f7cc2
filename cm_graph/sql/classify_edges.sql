-- Stage 2 of an import, over the staging tables, for the chosen edge list (:edge_list).
-- Records every (code node, undeclared id) pair: an edge between a code node and an id the
-- provider declared nowhere (neither a code node nor a declared non-code exclusion).
-- One scan, two membership probes per edge; the exclusions are probed only for the edges with
-- exactly one code-node end.
INSERT OR IGNORE INTO stage_undeclared (provider_id, missing_id)
SELECT CASE WHEN source_is_node THEN source ELSE target END,
       CASE WHEN source_is_node THEN target ELSE source END
FROM (
  SELECT e.source, e.target,
         e.source IN (SELECT provider_id FROM stage_nodes) AS source_is_node,
         e.target IN (SELECT provider_id FROM stage_nodes) AS target_is_node
  FROM stage_edges AS e
  WHERE e.list = :edge_list
)
WHERE source_is_node <> target_is_node
  AND (CASE WHEN source_is_node THEN target ELSE source END)
      NOT IN (SELECT provider_id FROM stage_exclusions);
