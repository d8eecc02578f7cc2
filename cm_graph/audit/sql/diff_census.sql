-- diff_census: tracked files added, removed or changed (another blob or mode) between two
-- attached indexes' bound commits.
-- Database: pair
-- Params : none
-- Returns: (change, path, old_blob, new_blob)
-- Order  : path.
SELECT 'removed' AS change, o.path AS path, o.blob AS old_blob, NULL AS new_blob FROM old.census AS o
WHERE NOT EXISTS (SELECT 1 FROM new.census AS n WHERE n.path = o.path)
UNION ALL
SELECT 'added', n.path, NULL, n.blob FROM new.census AS n
WHERE NOT EXISTS (SELECT 1 FROM old.census AS o WHERE o.path = n.path)
UNION ALL
SELECT 'changed', o.path, o.blob, n.blob FROM old.census AS o
JOIN new.census AS n ON n.path = o.path
WHERE o.blob <> n.blob OR o.mode <> n.mode
ORDER BY 2;
