-- describe_nodes: what a packet says about each node a walk touched.
-- Params : :nodes JSON array of node numbers
-- Returns: (node, label, path, line, kind, incomplete, borders an untraversable record)
SELECT n.node, n.label, n.path, n.line, n.kind, n.incomplete,
       EXISTS (SELECT 1 FROM untraversable_borders AS b WHERE b.node = n.node)
FROM json_each(:nodes) AS wanted
JOIN nodes AS n ON n.node = wanted.value;
