-- describe_endpoints: what the operator's view adds about each node an answer names: the
-- provider's id and the definition that holds it (a class for a method), so that five
-- `.invoke()` methods can be told apart.
-- Database: index
-- Params : :nodes JSON array of node numbers
-- Returns: (node, provider_id, container): container is the label of the lowest-numbered
--          non-file node with a `method` or `contains` edge onto the node, or NULL (read through
--          the node's incoming adjacency: edges have no index on their target).
SELECT n.node, n.provider_id, (
  SELECT c.label
  FROM adjacency AS a
  JOIN edges AS e ON e.edge = a.edge
  JOIN nodes AS c ON c.node = a.neighbour
  WHERE a.node = n.node AND a.direction = 1
    AND e.relation IN ('method', 'contains') AND c.kind <> 'file'
  ORDER BY c.node
  LIMIT 1
) AS container
FROM json_each(:nodes) AS wanted
JOIN nodes AS n ON n.node = wanted.value;
