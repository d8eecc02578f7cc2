-- Which code nodes border an untraversable record (stage_borders), in node order.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO idx.untraversable_borders (node)
SELECT n.node
FROM stage_borders AS b
JOIN idx.nodes AS n ON n.provider_id = b.provider_id
ORDER BY n.node;
