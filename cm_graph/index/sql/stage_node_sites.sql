-- The sites of the indexed nodes a resolved definition can bind to (a cited path: every
-- definition is in a file), for insert_definitions' lookups. Staging only: never in the index.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO stage_node_sites (path, line, label, kind, node)
SELECT n.path, n.line, n.label, n.kind, n.node FROM idx.nodes AS n WHERE n.path <> '';
