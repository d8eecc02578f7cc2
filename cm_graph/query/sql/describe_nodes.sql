-- describe_nodes: what a packet says about each node a walk touched.
-- Database: index
-- Params : :nodes JSON array of node numbers
-- Returns: (node, label, path, line, kind, incomplete, borders_untraversable): the last is 1
--          when the node borders an untraversable record
SELECT n.node, n.label, n.path, n.line, n.kind, n.incomplete,
       EXISTS (SELECT 1 FROM untraversable_borders AS b WHERE b.node = n.node) AS borders_untraversable
FROM json_each(:nodes) AS wanted
JOIN nodes AS n ON n.node = wanted.value;
