-- describe_nodes: what a packet says about each node a walk touched.
-- Params : :nodes JSON array of node numbers
-- Returns: (node, label, path, line, kind, incomplete)
SELECT n.node, n.label, n.path, n.line, n.kind, n.incomplete
FROM json_each(:nodes) AS wanted
JOIN nodes AS n ON n.node = wanted.value;
