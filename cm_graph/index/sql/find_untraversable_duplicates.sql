-- An id declared by an untraversable code node and by any other code node (traversable or
-- not): two code nodes with one id, which refuses the graph as a duplicate always does.
-- Database: import
-- Params : none
-- Returns: (duplicate): at most one row when there is such an id, else none.
SELECT 1 AS duplicate
FROM stage_untraversable AS u
WHERE EXISTS (SELECT 1 FROM stage_nodes AS n WHERE n.provider_id = u.provider_id)
   OR (SELECT count(*) FROM stage_untraversable AS d WHERE d.provider_id = u.provider_id) > 1
LIMIT 1;
