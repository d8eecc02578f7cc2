-- diff_edges: relationships only in one of two attached indexes, by full identity
-- (source id, target id, relation, kind, confidence, call-site path, call-site line).
-- Returns: (change, source_id, target_id, relation, confidence, site_path, site_line)
-- Order  : the identity, then change.
WITH
  old_identity AS (
    SELECT s.provider_id AS source_id, t.provider_id AS target_id, e.relation, e.kind,
           e.confidence, e.site_path, coalesce(e.site_line, -1) AS site_line
    FROM old.edges AS e
    JOIN old.nodes AS s ON s.node = e.source
    JOIN old.nodes AS t ON t.node = e.target
  ),
  new_identity AS (
    SELECT s.provider_id, t.provider_id, e.relation, e.kind, e.confidence, e.site_path,
           coalesce(e.site_line, -1)
    FROM new.edges AS e
    JOIN new.nodes AS s ON s.node = e.source
    JOIN new.nodes AS t ON t.node = e.target
  ),
  changes AS (
    SELECT 'removed' AS change, * FROM (SELECT * FROM old_identity EXCEPT SELECT * FROM new_identity)
    UNION ALL
    SELECT 'added', * FROM (SELECT * FROM new_identity EXCEPT SELECT * FROM old_identity)
  )
SELECT change, source_id, target_id, relation, confidence, site_path,
       CASE site_line WHEN -1 THEN NULL ELSE site_line END
FROM changes
ORDER BY source_id, target_id, relation, kind, confidence, site_path, site_line, change;
