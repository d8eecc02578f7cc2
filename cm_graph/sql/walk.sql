-- walk: one bounded, breadth-first question over the precomputed adjacency.
--
-- Params : :seeds       JSON array of seed node numbers, in node order (at most 8)
--          :directions  JSON array of adjacency directions to follow: [1] against the edges,
--                       [0] along them, [0, 1] both ways (outgoing before incoming)
--          :kinds       JSON array of the relationship kinds the question follows
--          :depth       hop limit (1..4)
--          :budget      relationship budget (1..200)
-- Returns: one row per reported relationship, in report order, with the walk's two flags on
--          every row: (over_budget, depth_boundary, level, ordinal, edge, origin, reached,
--          seed). A walk that reports nothing returns one row whose relationship columns are
--          NULL.
-- Order  : hop, then the FIFO position of the node expanded, then direction, then adjacency
--          position (the edge's identity rank): the reference breadth-first order.
-- Bound  : the recursive CTE carries the hop (level) and the budget already spent (reported).
--          An expansion keeps at most the budget left plus one relationship (the one that
--          proves the answer was cut); the walk stops there, at the hop limit, or when a level
--          reaches nothing new, so it never steps through more than :budget + 8 nodes.
--
-- Rows alternate two phases. Phase 0 holds one level's frontier ([node, seed] in FIFO order);
-- expanding it gives phase 1, the relationships found ([edge, origin, reached, seed]). Phase 1
-- turns into the next level's frontier: reached nodes never enqueued before, in order of first
-- sighting, each keeping the seed that reached it first. `before` lists the nodes of earlier
-- levels (all expanded) and `seen` every node ever enqueued, both as ",n,m," strings.
-- Walking both ways, an edge whose other end was expanded earlier (an earlier level, or earlier
-- in this level) was already reported from that end, and a self-loop's incoming copy repeats
-- its outgoing one, so both are skipped; walking one way, no edge can be met twice.
WITH RECURSIVE
  params AS (
    SELECT :depth AS depth, :budget AS budget,
           json_array_length(:directions) = 2 AS both_ways
  ),
  eligible AS (
    SELECT a.* FROM adjacency AS a
    WHERE a.direction IN (SELECT value FROM json_each(:directions))
      AND a.kind IN (SELECT value FROM json_each(:kinds))
  ),
  walk (phase, level, items, before, seen, reported) AS (
    SELECT 0, 0,
           (SELECT json_group_array(json_array(s.value, s.value) ORDER BY s.key)
            FROM json_each(:seeds) AS s),
           ',',
           ',' || (SELECT group_concat(s.value, ',' ORDER BY s.key) FROM json_each(:seeds) AS s) || ',',
           0
    UNION ALL
    SELECT
      1 - w.phase,
      w.level + w.phase,
      CASE w.phase
        WHEN 0 THEN (
          SELECT json_group_array(json_array(edge, origin, reached, seed)
                                  ORDER BY fkey, direction, position)
          FROM (
            SELECT *, row_number() OVER (ORDER BY fkey, direction, position) AS rank
            FROM (
              SELECT f.key AS fkey, a.direction, a.position, a.edge,
                     f.value ->> 0 AS origin, a.neighbour AS reached, f.value ->> 1 AS seed
              FROM json_each(w.items) AS f
              JOIN eligible AS a ON a.node = f.value ->> 0
              WHERE NOT (p.both_ways AND (
                      (a.neighbour = f.value ->> 0 AND a.direction = 1)
                   OR instr(w.before, ',' || a.neighbour || ',') > 0
                   OR EXISTS (SELECT 1 FROM json_each(w.items) AS g
                              WHERE g.key < f.key AND g.value ->> 0 = a.neighbour)))
              ORDER BY f.key, a.direction, a.position
              LIMIT :budget + 1
            )
          )
          WHERE rank <= p.budget - w.reported + 1
        )
        ELSE (
          SELECT coalesce(json_group_array(json_array(reached, seed) ORDER BY first), '[]')
          FROM (
            SELECT r.value ->> 2 AS reached, min(r.key) AS first, r.value ->> 3 AS seed
            FROM json_each(w.items) AS r
            WHERE instr(w.seen, ',' || (r.value ->> 2) || ',') = 0
            GROUP BY r.value ->> 2
          )
        )
      END,
      CASE w.phase WHEN 0 THEN w.before ELSE w.seen END,
      CASE w.phase
        WHEN 0 THEN w.seen
        ELSE w.seen || coalesce((
          SELECT group_concat(reached, ',') || ','
          FROM (SELECT DISTINCT r.value ->> 2 AS reached
                FROM json_each(w.items) AS r
                WHERE instr(w.seen, ',' || (r.value ->> 2) || ',') = 0)
        ), '')
      END,
      w.reported + CASE w.phase WHEN 1 THEN json_array_length(w.items) ELSE 0 END
    FROM walk AS w, params AS p
    WHERE json_array_length(w.items) > 0
      AND CASE w.phase
            WHEN 0 THEN w.level < p.depth
            ELSE json_array_length(w.items) <= p.budget - w.reported
          END
  ),
  relations AS (
    SELECT w.level + 1 AS level, r.key AS ordinal,
           r.value ->> 0 AS edge, r.value ->> 1 AS origin,
           r.value ->> 2 AS reached, r.value ->> 3 AS seed
    FROM walk AS w, json_each(w.items) AS r, params AS p
    WHERE w.phase = 1 AND r.key < p.budget - w.reported
  ),
  flags AS (
    SELECT
      -- An expansion found one relationship more than the budget had room for.
      EXISTS (
        SELECT 1 FROM walk AS w, params AS p
        WHERE w.phase = 1 AND json_array_length(w.items) > p.budget - w.reported
      ) AS over_budget,
      -- A node left unexpanded at the hop limit still has an eligible relationship that was
      -- not reported from its other end.
      EXISTS (
        SELECT 1
        FROM walk AS w
        JOIN params AS p ON w.phase = 0 AND w.level = p.depth
        JOIN json_each(w.items) AS f
        JOIN eligible AS a ON a.node = f.value ->> 0
        WHERE NOT (p.both_ways AND instr(w.before, ',' || a.neighbour || ',') > 0)
      ) AS depth_boundary
  )
SELECT flags.over_budget, flags.depth_boundary,
       relations.level, relations.ordinal, relations.edge, relations.origin,
       relations.reached, relations.seed
FROM flags LEFT JOIN relations
ORDER BY relations.level, relations.ordinal;
