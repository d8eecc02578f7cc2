-- Both directions of every edge, each node's list in identity-rank order, written in primary
-- key order so the table's pages are laid out the same way on every import. One sorter orders
-- both halves by (node, direction, edge); the window numbers each list along that same order,
-- so the position follows the edge and the rows come out in primary key order.
-- Database: import
-- Params : none
-- Returns: nothing
INSERT INTO idx.adjacency (node, direction, position, kind, edge, neighbour)
SELECT node, direction,
       row_number() OVER (PARTITION BY node, direction ORDER BY edge) - 1,
       kind, edge, neighbour
FROM (
  SELECT source AS node, 0 AS direction, kind, edge, target AS neighbour FROM idx.edges
  UNION ALL
  SELECT target, 1, kind, edge, source FROM idx.edges
)
ORDER BY node, direction, edge;
