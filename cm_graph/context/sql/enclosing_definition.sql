-- enclosing_definition: the definition a line of a file sits in, as far as the graph knows: the
--          symbol or test of that file defined last at or above the line.
-- Params : :path  a repository-relative path, :line  a line number
-- Returns: at most one row (node, label, kind, line)
-- Order  : the nearest definition above (ties: node number).
-- Bound  : the file's nodes, by the path index.
SELECT node, label, kind, line FROM nodes
WHERE path = :path AND line IS NOT NULL AND line <= :line AND kind <> 'file'
ORDER BY line DESC, node
LIMIT 1;
