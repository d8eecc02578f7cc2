-- changed_file_known: whether the bound commit tracks a path and whether the graph has a node in it.
-- Database: index
-- Params : :path  a repository-relative path
-- Returns: (tracked, in_graph): 1 or 0 each
-- Order  : one row.
-- Bound  : two primary-key or index lookups.
SELECT EXISTS (SELECT 1 FROM census WHERE path = :path) AS tracked,
       EXISTS (SELECT 1 FROM nodes WHERE path = :path) AS in_graph;
