-- owners_of: which of the given nodes a node named :owner defines (a class's methods, a
-- module's functions), by the provider's method/contains/defines edges.
-- Database: index
-- Params : :nodes JSON array of node numbers, :owner the owner's bare name
-- Returns: (node) of each given node with such an incoming edge from a node labelled :owner or
--          :owner(...)
-- Order  : node number.
-- Bound  : the given nodes' incoming adjacency.
SELECT DISTINCT a.node
FROM json_each(:nodes) AS wanted
CROSS JOIN adjacency AS a ON a.node = wanted.value AND a.direction = 1
CROSS JOIN edges AS e ON e.edge = a.edge
CROSS JOIN nodes AS o ON o.node = a.neighbour
WHERE e.relation IN ('method', 'contains', 'defines')
  AND (o.label = :owner OR o.callable_base = :owner)
ORDER BY a.node;
