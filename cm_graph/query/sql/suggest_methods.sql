-- suggest_methods: definitions a method spelling names: `ensure_object` or
-- `Context.ensure_object` for the provider's `.ensure_object()` label.
-- Database: index
-- Params : :name (the bare method name), :container (a class label, or NULL for any), :limit
-- Returns: (node) of methods labelled `.<name>` or `.<name>(...)`, held by :container when given,
--          in node order.
SELECT n.node
FROM nodes AS n
WHERE (n.label = '.' || :name OR n.callable_base = '.' || :name)
  AND (:container IS NULL OR EXISTS (
    SELECT 1
    FROM adjacency AS a
    JOIN edges AS e ON e.edge = a.edge
    JOIN nodes AS c ON c.node = a.neighbour
    WHERE a.node = n.node AND a.direction = 1 AND e.relation IN ('method', 'contains')
      AND (c.label = :container OR c.callable_base = :container)
  ))
ORDER BY n.node
LIMIT :limit;
