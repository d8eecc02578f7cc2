-- file_neighbourhood: the files within two hops (either direction, any relation) of the nodes
-- of one file, for "coupled without a graph path".
-- Database: index
-- Params : :path, :limit (adjacency rows read at most)
-- Returns: (path) distinct, unordered (the caller uses it as a set)
-- Bound  : :limit rows per hop.
WITH
  mine AS (SELECT node FROM nodes WHERE path = :path),
  hop1 AS (
    SELECT DISTINCT a.neighbour AS node
    FROM mine AS m CROSS JOIN adjacency AS a ON a.node = m.node
    LIMIT :limit
  ),
  hop2 AS (
    SELECT DISTINCT a.neighbour AS node
    FROM hop1 AS h CROSS JOIN adjacency AS a ON a.node = h.node
    LIMIT :limit
  )
SELECT DISTINCT n.path FROM (SELECT node FROM hop1 UNION SELECT node FROM hop2) AS r
JOIN nodes AS n ON n.node = r.node
WHERE n.path <> '';
