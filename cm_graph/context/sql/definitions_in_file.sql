-- definitions_in_file: the symbols and tests of one file with a line, to name the definition a
--          mention sits in (the nearest one at or above its line; the provider records no end
--          lines).
-- Database: index
-- Params : :path  a repository-relative path
-- Returns: (line, node, label, kind)
-- Order  : line, then node number.
-- Bound  : the file's nodes, by the path index.
SELECT line, node, label, kind FROM nodes
WHERE path = :path AND line IS NOT NULL AND kind <> 'file'
ORDER BY line, node;
