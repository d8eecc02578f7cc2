-- Distinct relationships between two code nodes, numbered in full identity order (an edge whose
-- own call-site path cannot be cited is untraversable and left out, see classify_untraversable):
-- (source, target, relation, kind, confidence, call-site path, call-site line or -1).
-- Byte-identical records collapse into one row whose records column counts them. The node
-- numbers come from the resolver (res.node_rank ranks provider ids exactly as idx.nodes does).
-- The ORDER BY equals the GROUP BY, so one sorter serves both, and rows are inserted in identity
-- order with the edge number left to SQLite: an empty table's rowids count 1, 2, 3... in insert
-- order, which is the identity rank (the permutation and byte-identity tests hold this).
-- Database: import
-- Params : :edge_list
-- Returns: nothing
INSERT INTO idx.edges (source, target, relation, kind, confidence, site_path, site_line, records)
SELECT r.source_node, r.target_node, e.relation, e.kind, e.confidence, e.site_path,
       min(e.site_line), count(*)
FROM res.resolved AS r
JOIN stage_edges AS e ON e.rowid = r.seq
WHERE e.list = :edge_list
  AND r.source_node IS NOT NULL
  AND r.target_node IS NOT NULL
  AND NOT e.site_uncitable
GROUP BY r.source_node, r.target_node, e.relation, e.kind, e.confidence, e.site_path,
         coalesce(e.site_line, -1)
ORDER BY r.source_node, r.target_node, e.relation, e.kind, e.confidence, e.site_path,
         coalesce(e.site_line, -1);
