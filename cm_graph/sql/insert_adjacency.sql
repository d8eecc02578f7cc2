-- Both directions of every edge, each node's list in identity-rank order, written in primary
-- key order so the table's pages are laid out the same way on every import.
INSERT INTO idx.adjacency (node, direction, position, kind, edge, neighbour)
SELECT node, direction, position, kind, edge, neighbour
FROM (
  SELECT source AS node, 0 AS direction,
         row_number() OVER (PARTITION BY source ORDER BY edge) - 1 AS position,
         kind, edge, target AS neighbour
  FROM idx.edges
  UNION ALL
  SELECT target, 1,
         row_number() OVER (PARTITION BY target ORDER BY edge) - 1,
         kind, edge, source
  FROM idx.edges
)
ORDER BY node, direction, position;
