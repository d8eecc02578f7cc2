-- diff_edges: relationships only in one of two attached indexes, by full identity
-- (source id, target id, relation, kind, confidence, call-site path, call-site line). A
-- relationship whose call site only moved to another line of the same file (code inserted
-- above it) is one 'moved' row, not a removed and an added one: removed and added rows equal in
-- everything but the line are paired, in line order, within each such identity.
-- Database: pair
-- Params : none
-- Returns: (change, source_id, target_id, relation, confidence, site_path, site_line,
--          old_site_line): site_line is the new line for 'moved' (old_site_line the old one),
--          the line of the one side otherwise (old_site_line NULL).
-- Order  : added, removed, moved; then the identity.
WITH
  old_identity AS (
    SELECT s.provider_id AS source_id, t.provider_id AS target_id, e.relation, e.kind,
           e.confidence, e.site_path, coalesce(e.site_line, -1) AS site_line
    FROM old.edges AS e
    JOIN old.nodes AS s ON s.node = e.source
    JOIN old.nodes AS t ON t.node = e.target
  ),
  new_identity AS (
    SELECT s.provider_id AS source_id, t.provider_id AS target_id, e.relation, e.kind,
           e.confidence, e.site_path, coalesce(e.site_line, -1) AS site_line
    FROM new.edges AS e
    JOIN new.nodes AS s ON s.node = e.source
    JOIN new.nodes AS t ON t.node = e.target
  ),
  gone AS (
    SELECT *, row_number() OVER (
      PARTITION BY source_id, target_id, relation, kind, confidence, site_path ORDER BY site_line
    ) AS pair
    FROM (SELECT * FROM old_identity EXCEPT SELECT * FROM new_identity)
  ),
  came AS (
    SELECT *, row_number() OVER (
      PARTITION BY source_id, target_id, relation, kind, confidence, site_path ORDER BY site_line
    ) AS pair
    FROM (SELECT * FROM new_identity EXCEPT SELECT * FROM old_identity)
  ),
  moved AS (
    SELECT c.source_id, c.target_id, c.relation, c.kind, c.confidence, c.site_path,
           c.site_line, g.site_line AS old_site_line
    FROM came AS c
    JOIN gone AS g
      ON g.source_id = c.source_id AND g.target_id = c.target_id AND g.relation = c.relation
     AND g.kind = c.kind AND g.confidence = c.confidence AND g.site_path = c.site_path
     AND g.pair = c.pair AND c.site_path <> ''
  ),
  changes AS (
    SELECT 0 AS rank, 'added' AS change, source_id, target_id, relation, kind, confidence,
           site_path, site_line, NULL AS old_site_line
    FROM came AS c
    WHERE NOT EXISTS (
      SELECT 1 FROM moved AS m
      WHERE m.source_id = c.source_id AND m.target_id = c.target_id AND m.relation = c.relation
        AND m.kind = c.kind AND m.confidence = c.confidence AND m.site_path = c.site_path
        AND m.site_line = c.site_line
    )
    UNION ALL
    SELECT 1, 'removed', source_id, target_id, relation, kind, confidence, site_path, site_line, NULL
    FROM gone AS g
    WHERE NOT EXISTS (
      SELECT 1 FROM moved AS m
      WHERE m.source_id = g.source_id AND m.target_id = g.target_id AND m.relation = g.relation
        AND m.kind = g.kind AND m.confidence = g.confidence AND m.site_path = g.site_path
        AND m.old_site_line = g.site_line
    )
    UNION ALL
    SELECT 2, 'moved', source_id, target_id, relation, kind, confidence, site_path, site_line,
           old_site_line
    FROM moved
  )
SELECT change, source_id, target_id, relation, confidence, site_path,
       CASE site_line WHEN -1 THEN NULL ELSE site_line END AS site_line,
       CASE old_site_line WHEN -1 THEN NULL ELSE old_site_line END AS old_site_line
FROM changes
ORDER BY changes.rank, changes.source_id, changes.target_id, changes.relation, changes.kind, changes.confidence,
         changes.site_path, changes.site_line;
