-- Resolve the endpoints of the staged edges :first..:last (rowids) to node numbers; edges with
-- no code-node end are left out (the index never holds them).
-- Database: import
-- Params : :first, :last
-- Returns: nothing
INSERT INTO res.resolved (seq, source_node, target_node)
SELECT e.rowid, s.node, t.node
FROM stage_edges AS e
LEFT JOIN res.node_rank AS s ON s.provider_id = e.source
LEFT JOIN res.node_rank AS t ON t.provider_id = e.target
WHERE e.rowid BETWEEN :first AND :last
  AND (s.node IS NOT NULL OR t.node IS NOT NULL)
ORDER BY e.rowid;
