-- Code nodes, numbered by provider id (code-point order), so node numbers never depend on the
-- provider's listing order: rows go in in that order and an empty table's rowids count 1, 2, 3...
-- incomplete marks nodes that border an undeclared endpoint.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO idx.nodes (provider_id, label, callable_base, path, line, kind, incomplete)
SELECT n.provider_id, n.label, n.callable_base, n.path, n.line, n.kind,
       EXISTS (SELECT 1 FROM stage_undeclared AS u WHERE u.provider_id = n.provider_id)
FROM stage_nodes AS n
ORDER BY n.provider_id;
