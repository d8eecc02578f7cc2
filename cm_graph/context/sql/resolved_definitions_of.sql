-- resolved_definitions_of: the resolver's definitions bound to the given graph nodes (the
--          definition each node is, matched by path, line and label at build time).
-- Database: index
-- Params : :nodes JSON array of node numbers
-- Returns: (node, definition)
-- Order  : definition number (an enclosing definition before what it encloses).
-- Bound  : one indexed lookup per given node (definitions_by_node).
SELECT d.node, d.definition
FROM json_each(:nodes) AS wanted
JOIN definitions AS d ON d.node = wanted.value
ORDER BY d.definition;
