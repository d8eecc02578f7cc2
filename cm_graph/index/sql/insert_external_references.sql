-- The external_references table: what a code node names that this graph does not define.
-- An import edge from a code node whose target the provider declared nowhere (not a code node,
-- not a non-code exclusion, not an untraversable node), at its own citable call site; and each
-- member call the provider parked on a code node with a path (cited at the caller's file).
-- Database: import
-- Params : :edge_list the document's edge list name
-- Returns: nothing
-- Order  : the primary key, so the file's bytes do not depend on the provider's order.
INSERT INTO idx.external_references (node, kind, target, receiver_type, language, site_path, site_line)
SELECT DISTINCT r.source_node, 'import', e.target, '', '', e.site_path, e.site_line
FROM res.resolved AS r
JOIN stage_edges AS e ON e.rowid = r.seq
WHERE e.list = :edge_list
  AND e.relation IN ('imports', 'imports_from')  -- the provider's two import words
  AND r.source_node IS NOT NULL
  AND r.target_node IS NULL
  AND e.site_path <> ''
  AND e.site_line IS NOT NULL
  AND e.site_error IS NULL
  AND e.site_uncitable = 0
  AND e.target NOT IN (SELECT provider_id FROM stage_exclusions)
  AND e.target NOT IN (SELECT provider_id FROM stage_untraversable)
UNION
SELECT n.node, 'member_call', c.callee, c.receiver_type, c.language, n.path, c.line
FROM stage_member_calls AS c
JOIN idx.nodes AS n ON n.provider_id = c.provider_id
WHERE n.path <> ''
ORDER BY 1, 2, 3, 4, 5, 6, 7;
