-- Stage 2 of an import, for the chosen edge list (:edge_list).
-- Records every (code node, undeclared id) pair: an edge between a code node and an id the
-- provider declared nowhere (neither a code node, nor a declared non-code exclusion, nor a code
-- node whose path cannot be cited: that one was declared, see classify_untraversable). The
-- resolver already found the edges with exactly one code-node end.
-- Database: import
-- Params : :edge_list
-- Returns: nothing
INSERT OR IGNORE INTO stage_undeclared (provider_id, missing_id)
SELECT CASE WHEN r.source_node IS NOT NULL THEN e.source ELSE e.target END,
       CASE WHEN r.source_node IS NOT NULL THEN e.target ELSE e.source END
FROM res.resolved AS r
JOIN stage_edges AS e ON e.rowid = r.seq
WHERE e.list = :edge_list
  AND (r.source_node IS NULL OR r.target_node IS NULL)
  AND (CASE WHEN r.source_node IS NOT NULL THEN e.target ELSE e.source END)
      NOT IN (SELECT provider_id FROM stage_exclusions)
  AND (CASE WHEN r.source_node IS NOT NULL THEN e.target ELSE e.source END)
      NOT IN (SELECT provider_id FROM stage_untraversable);
