-- similar_by_callees: structurally similar code, by the Jaccard index of callee sets.
-- Database: index
-- Params : :anchor    node number
--          :relations JSON array of the relation words that count as a call
--          :limit     at most this many rows
-- Returns: (peer, shared, theirs, ours) for every node other than the anchor sharing at least
--          two callees with it and whose Jaccard index is at least one half (shared * 2 >=
--          union); theirs and ours count the peer's and the anchor's callees. The caller asks for
--          one row more than it shows to see a cut.
-- Order  : Jaccard index descending (as an exact integer ratio), then peer node number.
-- Bound  : the callers of the anchor's callees that have fewer than 200 incoming relationships.
WITH
  rel AS (SELECT value AS relation FROM json_each(:relations)),
  mine AS (
    SELECT DISTINCT a.neighbour AS callee
    FROM adjacency AS a CROSS JOIN edges AS e ON e.edge = a.edge
    WHERE a.node = :anchor AND a.direction = 0 AND a.neighbour <> :anchor
      AND e.relation IN (SELECT relation FROM rel)
  ),
  -- Callees with 200 or more incoming relationships are shared by everything and say nothing
  -- about similarity (one primary-key probe at position 200 says so); the rest are compared.
  rare AS (
    SELECT m.callee FROM mine AS m
    WHERE NOT EXISTS (SELECT 1 FROM adjacency AS h WHERE h.node = m.callee AND h.direction = 1 AND h.position = 200)
  ),
  peers AS (
    SELECT a.neighbour AS peer, count(DISTINCT m.callee) AS shared
    FROM rare AS m
    CROSS JOIN adjacency AS a ON a.node = m.callee AND a.direction = 1
    CROSS JOIN edges AS e ON e.edge = a.edge
    WHERE a.neighbour <> :anchor AND e.relation IN (SELECT relation FROM rel)
    GROUP BY a.neighbour
    HAVING count(DISTINCT m.callee) >= 2
  ),
  sized AS (
    SELECT p.peer, p.shared,
           (SELECT count(DISTINCT a.neighbour)
            FROM adjacency AS a CROSS JOIN edges AS e ON e.edge = a.edge
            WHERE a.node = p.peer AND a.direction = 0 AND a.neighbour <> p.peer
              AND e.relation IN (SELECT relation FROM rel)) AS theirs,
           (SELECT count(*) FROM mine) AS ours
    FROM peers AS p
  )
SELECT peer, shared, theirs, ours FROM sized
WHERE shared * 2 >= ours + theirs - shared
ORDER BY shared * 1000000 / (ours + theirs - shared) DESC, peer
LIMIT :limit;
