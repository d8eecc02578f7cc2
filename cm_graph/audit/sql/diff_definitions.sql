-- diff_definitions: resolved definitions that differ between two attached indexes, by (path,
-- qualified name, kind). A definition on both sides whose range moved or grew is 'changed' (when
-- the name is one definition on each side; an @overload group or a name defined twice is compared
-- as a whole, by its ranges).
-- Database: pair
-- Params : none
-- Returns: (change, path, qualname, kind, old_start_line, old_end_line, new_start_line, new_end_line)
--          change is 'added', 'removed' or 'changed'; the side a row lacks has NULL lines.
-- Order  : added, removed, changed; then path, qualname, kind, the lines.
WITH
  o AS (SELECT f.path, d.qualname, d.kind, d.start_line, d.end_line
        FROM old.definitions AS d JOIN old.resolved_files AS f USING (file)),
  n AS (SELECT f.path, d.qualname, d.kind, d.start_line, d.end_line
        FROM new.definitions AS d JOIN new.resolved_files AS f USING (file)),
  o_one AS (SELECT path, qualname, kind, min(start_line) AS start_line, min(end_line) AS end_line
            FROM o GROUP BY path, qualname, kind HAVING count(*) = 1),
  n_one AS (SELECT path, qualname, kind, min(start_line) AS start_line, min(end_line) AS end_line
            FROM n GROUP BY path, qualname, kind HAVING count(*) = 1),
  rows AS (
    SELECT 'added' AS change, n.path AS path, n.qualname AS qualname, n.kind AS kind,
           NULL AS old_start_line, NULL AS old_end_line, n.start_line AS new_start_line,
           n.end_line AS new_end_line
    FROM n WHERE NOT EXISTS (SELECT 1 FROM o WHERE o.path = n.path AND o.qualname = n.qualname AND o.kind = n.kind)
    UNION ALL
    SELECT 'removed', o.path, o.qualname, o.kind, o.start_line, o.end_line, NULL, NULL
    FROM o WHERE NOT EXISTS (SELECT 1 FROM n WHERE n.path = o.path AND n.qualname = o.qualname AND n.kind = o.kind)
    UNION ALL
    SELECT 'changed', o.path, o.qualname, o.kind, o.start_line, o.end_line, n.start_line, n.end_line
    FROM o_one AS o JOIN n_one AS n USING (path, qualname, kind)
    WHERE o.start_line <> n.start_line OR o.end_line <> n.end_line
  )
SELECT * FROM rows
ORDER BY CASE change WHEN 'added' THEN 0 WHEN 'removed' THEN 1 ELSE 2 END, path, qualname, kind,
         coalesce(old_start_line, new_start_line), coalesce(new_start_line, old_start_line);
