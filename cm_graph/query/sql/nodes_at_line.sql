-- nodes_at_line: the code nodes defined at one line of one file, for a line-qualified anchor
--          (`path::name#L<n>` or `path#L<n>`), which tells apart two same-named definitions.
-- Database: index
-- Params : :path  a repository-relative path, :line  a line number, :limit at most this many rows
-- Returns: (node, label) of nodes at :path whose line is :line
-- Order  : node number.
-- Bound  : :limit rows, by the path index.
SELECT node, label FROM nodes
WHERE path = :path AND line = :line
ORDER BY node
LIMIT :limit;
