-- Stage 2 of an import, for the chosen edge list (:edge_list).
-- Records every code node that borders an untraversable record: the code-node end of an edge
-- whose other end is a code node with an uncitable path, and both ends of an edge between two
-- code nodes whose own call-site path is uncitable. Such edges are never indexed (insert_edges),
-- so a walk cannot pass them; a walk that seeds or reaches a border node reports
-- provider_warning instead of silently ending there.
-- Database: import
-- Params : :edge_list
-- Returns: nothing
INSERT OR IGNORE INTO stage_borders (provider_id)
SELECT CASE WHEN r.source_node IS NOT NULL THEN e.source ELSE e.target END
FROM res.resolved AS r
JOIN stage_edges AS e ON e.rowid = r.seq
WHERE EXISTS (SELECT 1 FROM stage_untraversable)  -- constant: an ordinary graph skips the scan
  AND e.list = :edge_list
  AND (r.source_node IS NULL OR r.target_node IS NULL)
  AND (CASE WHEN r.source_node IS NOT NULL THEN e.target ELSE e.source END)
      IN (SELECT provider_id FROM stage_untraversable)
UNION ALL
SELECT e.source
FROM stage_edges AS e
JOIN res.resolved AS r ON r.seq = e.rowid
WHERE e.site_uncitable AND e.list = :edge_list
  AND r.source_node IS NOT NULL AND r.target_node IS NOT NULL
UNION ALL
SELECT e.target
FROM stage_edges AS e
JOIN res.resolved AS r ON r.seq = e.rowid
WHERE e.site_uncitable AND e.list = :edge_list
  AND r.source_node IS NOT NULL AND r.target_node IS NOT NULL;
