-- override_closure: the methods that override the anchor's definition, as the resolver binds them
--          (an `override` reference at an overriding method binds to the nearest base's method
--          of that name, docs/resolver.md), followed transitively to :depth.
-- Database: index
-- Params : :node   the anchor's node number
--          :depth  how many overrides deep
--          :limit  at most this many rows
-- Returns: (path, line, qualname, module, depth): module the file's, so qualname less it names
--          the class and method
-- Order  : depth, then definition rank (a definition is reported at its least depth).
-- Bound  : :limit rows; each step one range of references_by_definition.
WITH RECURSIVE reached (definition, depth, base) AS (
  SELECT definition, 0, NULL FROM definitions WHERE node = :node
  UNION
  SELECT r.enclosing, reached.depth + 1, reached.definition
  FROM reached
  JOIN resolved_references AS r ON r.definition = reached.definition AND r.role = 'override'
  WHERE reached.depth < :depth
)
SELECT f.path, d.line, d.qualname, f.module, min(reached.depth) AS depth
FROM reached
JOIN definitions AS d ON d.definition = reached.definition
JOIN resolved_files AS f ON f.file = d.file
WHERE reached.depth > 0
GROUP BY reached.definition
ORDER BY depth, reached.definition
LIMIT :limit;
