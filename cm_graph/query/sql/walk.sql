-- walk: one bounded, breadth-first question over the precomputed adjacency.
--
-- Database: index
-- Params : :seeds       JSON array of seed node numbers, in node order (at most 8)
--          :directions  JSON array of adjacency directions to follow: [1] against the edges,
--                       [0] along them, [0, 1] both ways (outgoing before incoming)
--          :kinds       JSON array of the relationship kinds the question follows
--          :depth       hop limit (1..4)
--          :budget      relationship budget (1..200)
-- Returns: (over_budget, depth_boundary, level, ordinal, edge, origin, reached, seed): one row
--          per reported relationship, in report order, with the walk's two flags on every row.
--          A walk that reports nothing returns one row whose relationship columns are NULL.
-- Order  : the FIFO order of the node expanded, then direction, then adjacency position (the
--          edge's identity rank): the reference breadth-first order.
-- Bound  : the recursive CTE expands one node per step and carries the budget already spent
--          (reported) and each queued node's hop. An expansion reads at most :budget + 1
--          adjacency entries of one node (an index range scan in position order), keeps what
--          the budget has room for plus one (the one that proves the answer was cut), and the
--          walk stops there, at the hop limit, or when the queue runs out: it never steps
--          through more than :budget + 8 nodes, whatever the graph's size or a hub's degree.
--
-- Rows alternate two phases. Phase 0 points at the queue's next node (head); expanding it gives
-- phase 1, whose `found` lists the relationships read ([edge, origin, reached, seed, hop]).
-- Phase 1 appends the reached nodes never queued before to the queue ([node, seed, hop], in
-- order of first sighting), marks the node expanded and moves the head on. `seen` (queued) and
-- `expanded` are ",n,m," strings. Walking both ways, an edge whose other end was expanded
-- earlier was already reported from that end, and a self-loop's incoming copy repeats its
-- outgoing one, so both are skipped; walking one way, no edge can be met twice.
WITH RECURSIVE
  params AS (
    SELECT :depth AS depth, :budget AS budget,
           json_array_length(:directions) = 2 AS both_ways
  ),
  walk (phase, queue, head, seen, expanded, reported, found) AS (
    SELECT 0,
           (SELECT json_group_array(json_array(s.value, s.value, 0) ORDER BY s.key)
            FROM json_each(:seeds) AS s),
           0,
           ',' || (SELECT group_concat(s.value, ',' ORDER BY s.key) FROM json_each(:seeds) AS s) || ',',
           ',',
           0,
           '[]'
    UNION ALL
    SELECT
      1 - w.phase,
      CASE w.phase
        WHEN 0 THEN w.queue
        ELSE (
          SELECT json_group_array(json(item) ORDER BY ord)
          FROM (
            SELECT q.key AS ord, q.value AS item FROM json_each(w.queue) AS q
            UNION ALL
            SELECT 1000000 + min(r.key), json_array(r.value ->> 2, r.value ->> 3, r.value ->> 4)
            FROM json_each(w.found) AS r
            WHERE instr(w.seen, ',' || (r.value ->> 2) || ',') = 0
            GROUP BY r.value ->> 2
          )
        )
      END,
      w.head + w.phase,
      CASE w.phase
        WHEN 0 THEN w.seen
        ELSE w.seen || coalesce((
          SELECT group_concat(reached, ',') || ','
          FROM (SELECT DISTINCT r.value ->> 2 AS reached
                FROM json_each(w.found) AS r
                WHERE instr(w.seen, ',' || (r.value ->> 2) || ',') = 0)
        ), '')
      END,
      CASE w.phase
        WHEN 0 THEN w.expanded
        ELSE w.expanded || (w.queue ->> ('$[' || w.head || '][0]')) || ','
      END,
      w.reported + CASE w.phase WHEN 1 THEN json_array_length(w.found) ELSE 0 END,
      CASE w.phase
        WHEN 0 THEN (
          SELECT coalesce(json_group_array(
                   json_array(edge, origin, neighbour, seed, hop) ORDER BY rank), '[]')
          FROM (
            SELECT a.edge, a.neighbour,
                   w.queue ->> ('$[' || w.head || '][0]') AS origin,
                   w.queue ->> ('$[' || w.head || '][1]') AS seed,
                   (w.queue ->> ('$[' || w.head || '][2]')) + 1 AS hop,
                   row_number() OVER (ORDER BY a.direction, a.position) AS rank
            FROM adjacency AS a
            WHERE a.node = w.queue ->> ('$[' || w.head || '][0]')
              AND a.direction IN (SELECT value FROM json_each(:directions))
              AND a.kind IN (SELECT value FROM json_each(:kinds))
              AND NOT (p.both_ways AND (
                    (a.neighbour = a.node AND a.direction = 1)
                 OR instr(w.expanded, ',' || a.neighbour || ',') > 0))
            ORDER BY a.direction, a.position
            LIMIT :budget + 1
          )
          WHERE rank <= p.budget - w.reported + 1
        )
        ELSE '[]'
      END
    FROM walk AS w, params AS p
    WHERE CASE w.phase
            WHEN 0 THEN w.head < json_array_length(w.queue)
                    AND w.queue ->> ('$[' || w.head || '][2]') < p.depth
            ELSE json_array_length(w.found) <= p.budget - w.reported
          END
  ),
  relations AS (
    SELECT r.value ->> 4 AS level, w.head * 1000 + r.key AS ordinal,
           r.value ->> 0 AS edge, r.value ->> 1 AS origin,
           r.value ->> 2 AS reached, r.value ->> 3 AS seed
    FROM walk AS w, json_each(w.found) AS r, params AS p
    WHERE w.phase = 1 AND r.key < p.budget - w.reported
  ),
  flags AS (
    SELECT
      -- An expansion found one relationship more than the budget had room for.
      EXISTS (
        SELECT 1 FROM walk AS w, params AS p
        WHERE w.phase = 1 AND json_array_length(w.found) > p.budget - w.reported
      ) AS over_budget,
      -- The walk stopped at the hop limit on a node that still has an eligible relationship
      -- not reported from its other end.
      -- (CROSS JOIN fixes the join order: walk rows, then their queue, then each queued
      -- node's adjacency by primary key; never a scan of the adjacency table.)
      EXISTS (
        SELECT 1
        FROM walk AS w
        CROSS JOIN params AS p
        CROSS JOIN json_each(w.queue) AS q
        CROSS JOIN adjacency AS a ON a.node = q.value ->> 0
        WHERE w.phase = 0
          AND q.key >= w.head
          AND w.head < json_array_length(w.queue)
          AND w.queue ->> ('$[' || w.head || '][2]') = p.depth
          AND a.direction IN (SELECT value FROM json_each(:directions))
          AND a.kind IN (SELECT value FROM json_each(:kinds))
          AND NOT (p.both_ways AND instr(w.expanded, ',' || a.neighbour || ',') > 0)
      ) AS depth_boundary
  )
SELECT flags.over_budget, flags.depth_boundary,
       relations.level, relations.ordinal, relations.edge, relations.origin,
       relations.reached, relations.seed
FROM flags LEFT JOIN relations
ORDER BY relations.ordinal;
