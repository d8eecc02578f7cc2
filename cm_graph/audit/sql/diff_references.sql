-- diff_references: resolved references that differ between two attached indexes, by what they
-- say rather than where: (file, caller, role, bound definition, name at the site), counted on
-- each side. Lines are left out of the identity, so code inserted above a call changes nothing;
-- a caller that gained or lost a call of a definition is 'added' or 'removed', one whose number
-- of such calls changed is 'changed' (old_count, new_count).
-- Database: pair
-- Params : none
-- Returns: (change, path, caller, role, target, name, old_count, new_count): target is the bound
--          definition's qualified name, NULL for an unbound reference.
-- Order  : added, removed, changed; then path, caller, role, target, name.
WITH
  o AS (SELECT f.path, e.qualname AS caller, r.role, d.qualname AS target, r.name, count(*) AS uses
        FROM old.resolved_references AS r JOIN old.resolved_files AS f USING (file)
        JOIN old.definitions AS e ON e.definition = r.enclosing
        LEFT JOIN old.definitions AS d ON d.definition = r.definition
        GROUP BY f.path, e.qualname, r.role, d.qualname, r.name),
  n AS (SELECT f.path, e.qualname AS caller, r.role, d.qualname AS target, r.name, count(*) AS uses
        FROM new.resolved_references AS r JOIN new.resolved_files AS f USING (file)
        JOIN new.definitions AS e ON e.definition = r.enclosing
        LEFT JOIN new.definitions AS d ON d.definition = r.definition
        GROUP BY f.path, e.qualname, r.role, d.qualname, r.name),
  rows AS (
    SELECT CASE WHEN o.uses IS NULL THEN 'added' WHEN n.uses IS NULL THEN 'removed' ELSE 'changed' END AS change,
           coalesce(n.path, o.path) AS path, coalesce(n.caller, o.caller) AS caller,
           coalesce(n.role, o.role) AS role, coalesce(n.target, o.target) AS target,
           coalesce(n.name, o.name) AS name, o.uses AS old_count, n.uses AS new_count
    FROM n FULL JOIN o
      ON o.path = n.path AND o.caller = n.caller AND o.role = n.role AND o.target IS n.target AND o.name = n.name
    WHERE o.uses IS NOT n.uses
  )
SELECT * FROM rows
ORDER BY CASE change WHEN 'added' THEN 0 WHEN 'removed' THEN 1 ELSE 2 END, path, caller, role, target, name;
