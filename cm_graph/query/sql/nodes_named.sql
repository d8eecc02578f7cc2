-- nodes_named: the code nodes an agent's bare name can mean, for qualified resolution.
-- Database: index
-- Params : :name  a bare name ("load"), :limit at most this many rows
-- Returns: (node, path) of nodes labelled :name, :name(...), .:name or .:name(...) (a method's
--          label carries its leading dot in the pinned provider)
-- Order  : node number.
-- Bound  : :limit rows, by the label and callable-base indexes.
SELECT node, path FROM nodes
WHERE label IN (:name, '.' || :name) OR callable_base IN (:name, '.' || :name)
ORDER BY node
LIMIT :limit;
