-- describe_edges: what a packet says about each reported edge.
-- Database: index
-- Params : :edges JSON array of edge numbers
-- Returns: (edge, source, target, relation, kind, confidence, site_path, site_line)
SELECT e.edge, e.source, e.target, e.relation, e.kind, e.confidence, e.site_path, e.site_line
FROM json_each(:edges) AS wanted
JOIN edges AS e ON e.edge = wanted.value;
