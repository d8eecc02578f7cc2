-- neighbours: one hop of a code_context walk, from a frontier of nodes over named relations.
-- Database: index
-- Params : :frontier  JSON array of node numbers, in the walk's order
--          :direction 0 along the edges (what the frontier points at), 1 against them
--          :relations JSON array of the provider's relation words to follow (verbatim)
--          :limit     at most this many rows (the walk's remaining read budget plus one)
-- Returns: (node, neighbour, edge, relation, confidence, site_path, site_line): node is the
--          frontier node the step leaves (its origin), neighbour the node it reaches
-- Order  : frontier position, then adjacency position (the edge's identity rank): total. The
--          CROSS JOINs fix the loop order (json_each yields the frontier in array order, the
--          adjacency primary-key range yields positions in order), so no ORDER BY is needed and
--          the LIMIT stops the scan: a hub's 20,000 incoming edges are not all read and sorted.
-- Bound  : :limit rows; each row is a primary-key step into adjacency and edges.
SELECT a.node, a.neighbour, e.edge, e.relation, e.confidence, e.site_path, e.site_line
FROM json_each(:frontier) AS f
CROSS JOIN adjacency AS a ON a.node = f.value AND a.direction = :direction
CROSS JOIN edges AS e ON e.edge = a.edge
WHERE e.relation IN (SELECT value FROM json_each(:relations))
LIMIT :limit;
