-- diff_nodes: code nodes that differ between two attached indexes, old and new, by provider id.
-- Database: pair
-- Params : none
-- Returns: (change, provider_id, old_label, old_path, old_line, new_label, new_path, new_line)
--          change is 'added', 'removed', 'changed' (same id, another label or kind, wherever
--          it is now) or 'moved' (same id, label and kind, another path or line).
-- Order  : what a reader wants first: added, removed, changed, then moved; then provider_id.
SELECT * FROM (
  SELECT 'removed' AS change, o.provider_id AS provider_id, o.label AS old_label, o.path AS old_path,
         o.line AS old_line, NULL AS new_label, NULL AS new_path, NULL AS new_line
  FROM old.nodes AS o
  WHERE NOT EXISTS (SELECT 1 FROM new.nodes AS n WHERE n.provider_id = o.provider_id)
  UNION ALL
  SELECT 'added', n.provider_id, NULL, NULL, NULL, n.label, n.path, n.line
  FROM new.nodes AS n
  WHERE NOT EXISTS (SELECT 1 FROM old.nodes AS o WHERE o.provider_id = n.provider_id)
  UNION ALL
  SELECT CASE WHEN o.label IS NOT n.label OR o.kind IS NOT n.kind THEN 'changed' ELSE 'moved' END,
         o.provider_id, o.label, o.path, o.line, n.label, n.path, n.line
  FROM old.nodes AS o
  JOIN new.nodes AS n ON n.provider_id = o.provider_id
  WHERE o.path IS NOT n.path OR o.line IS NOT n.line OR o.label IS NOT n.label OR o.kind IS NOT n.kind
)
ORDER BY CASE change WHEN 'added' THEN 0 WHEN 'removed' THEN 1 WHEN 'changed' THEN 2 ELSE 3 END,
         provider_id;
