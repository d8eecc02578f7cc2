-- anchor_definition: the resolver's definition of a graph node (docs/resolver.md), to tell a class
--          or a method from other code, and its range.
-- Database: index
-- Params : :node  a node number
-- Returns: (definition, kind, name, qualname, parent): at most one row (the first by rank)
-- Order  : definition rank.
-- Bound  : one range of the definitions_by_node index.
SELECT definition, kind, name, qualname, parent FROM definitions
WHERE node = :node
ORDER BY definition
LIMIT 1;
