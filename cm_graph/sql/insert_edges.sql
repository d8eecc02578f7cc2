-- Distinct relationships between two code nodes, numbered in full identity order:
-- (source, target, relation, kind, confidence, call-site path, call-site line or -1).
-- Byte-identical records collapse into one row whose records column counts them.
-- The ORDER BY equals the GROUP BY, so one sorter serves both, and rows are inserted in identity
-- order with the edge number left to SQLite: an empty table's rowids count 1, 2, 3... in insert
-- order, which is the identity rank (the permutation and byte-identity tests hold this).
INSERT INTO idx.edges (source, target, relation, kind, confidence, site_path, site_line, records)
SELECT s.node, t.node, e.relation, e.kind, e.confidence, e.site_path, min(e.site_line), count(*)
FROM stage_edges AS e
JOIN idx.nodes AS s ON s.provider_id = e.source
JOIN idx.nodes AS t ON t.provider_id = e.target
WHERE e.list = :edge_list
GROUP BY s.node, t.node, e.relation, e.kind, e.confidence, e.site_path, coalesce(e.site_line, -1)
ORDER BY s.node, t.node, e.relation, e.kind, e.confidence, e.site_path, coalesce(e.site_line, -1);
