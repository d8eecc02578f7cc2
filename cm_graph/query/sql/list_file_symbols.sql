-- list_file_symbols: the definitions of one file, for `cm-graph symbols PATH`.
-- Database: index
-- Params : :path (repository-relative, exactly as the provider recorded it), :limit
-- Returns: (node, label, kind, line) of every node whose path is :path, by line (a node without
--          a line last), then label, then node; at most :limit rows.
SELECT node, label, kind, line
FROM nodes
WHERE path = :path
ORDER BY line IS NULL, line, label, node
LIMIT :limit;
