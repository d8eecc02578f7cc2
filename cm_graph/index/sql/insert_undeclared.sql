-- Which code node borders which undeclared id, in node order.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO idx.undeclared_endpoints (node, missing_id)
SELECT n.node, u.missing_id
FROM stage_undeclared AS u
JOIN idx.nodes AS n ON n.provider_id = u.provider_id
ORDER BY n.node, u.missing_id;
