-- The rationale table: each staged rationale node by the code node its rationale_for edge
-- explains (the edge's source is the rationale, its target a code node; resolved gives the
-- target's number and no source number, since a rationale is not a code node).
-- Database: import
-- Params : :edge_list the document's edge list name
-- Returns: nothing
-- Order  : the primary key, so the file's bytes do not depend on the provider's order.
INSERT INTO idx.rationale (node, path, line, text, truncated)
SELECT DISTINCT r.target_node, s.path, s.line, s.text, s.truncated
FROM res.resolved AS r
JOIN stage_edges AS e ON e.rowid = r.seq
JOIN stage_rationale AS s ON s.provider_id = e.source
WHERE e.list = :edge_list
  AND e.relation = 'rationale_for'
  AND r.source_node IS NULL
  AND r.target_node IS NOT NULL
ORDER BY r.target_node, s.path, s.line, s.text;
