-- Distinct relationships between two code nodes, numbered in full identity order:
-- (source, target, relation, kind, confidence, call-site path, call-site line or -1).
-- Byte-identical records collapse into one row whose records column counts them.
-- Rows come out of the GROUP BY sorter in identity order, which is the row_number order, so
-- they are inserted in primary-key order without a second sort (the permutation and
-- byte-identity tests hold this).
INSERT INTO idx.edges (edge, source, target, relation, kind, confidence, site_path, site_line, records)
SELECT row_number() OVER (
         ORDER BY s.node, t.node, e.relation, e.kind, e.confidence, e.site_path,
                  coalesce(e.site_line, -1)),
       s.node, t.node, e.relation, e.kind, e.confidence, e.site_path, min(e.site_line), count(*)
FROM stage_edges AS e
JOIN idx.nodes AS s ON s.provider_id = e.source
JOIN idx.nodes AS t ON t.provider_id = e.target
WHERE e.list = :edge_list
GROUP BY s.node, t.node, e.relation, e.kind, e.confidence, e.site_path, coalesce(e.site_line, -1);
