-- dispatch_targets: the methods that override the given definitions, transitively to :depth: where a
--          call bound to a base method may dispatch at run time (an `override` reference at an
--          overriding method binds to the nearest base's method of that name, docs/resolver.md).
-- Database: index
-- Params : :definitions JSON array of definition numbers (the called methods)
--          :depth       how many overrides deep
--          :limit       at most this many rows
-- Returns: (called, definition, node): the called method given, an override of it and that
--          override's graph node (NULL where the provider has none)
-- Order  : called, then depth, then definition rank (an override is reported at its least depth).
-- Bound  : :limit rows; each step one range of references_by_definition.
WITH RECURSIVE reached (called, definition, depth) AS (
  SELECT value, value, 0 FROM json_each(:definitions)
  UNION
  SELECT reached.called, r.enclosing, reached.depth + 1
  FROM reached
  JOIN resolved_references AS r ON r.definition = reached.definition AND r.role = 'override'
  WHERE reached.depth < :depth
)
SELECT reached.called, reached.definition, d.node
FROM reached
JOIN definitions AS d ON d.definition = reached.definition
WHERE reached.depth > 0
GROUP BY reached.called, reached.definition
ORDER BY reached.called, min(reached.depth), reached.definition
LIMIT :limit;
