-- overridden_methods: the base methods a method overrides, as the resolver binds them (an
--          `override` reference written at the overriding method binds to the nearest base's
--          method), transitively: a test that calls a base's method runs the override it
--          dispatches to (testrun.py walks from each).
-- Database: index
-- Params : :definition the overriding method's definition number
--          :depth      how many overrides up
-- Returns: (definition, node, depth): the base method, its graph node (NULL where the provider
--          has none), how many overrides up
-- Order  : depth, then definition.
-- Bound  : one index step into references_by_enclosing per level, at most :depth levels.
WITH RECURSIVE up(definition, depth) AS (
  SELECT :definition, 0
  UNION
  SELECT r.definition, up.depth + 1
  FROM up
  JOIN resolved_references AS r ON r.enclosing = up.definition AND r.role = 'override'
  WHERE up.depth < :depth AND r.definition IS NOT NULL
)
SELECT up.definition, d.node, up.depth
FROM up
JOIN definitions AS d ON d.definition = up.definition
WHERE up.depth > 0
ORDER BY up.depth, up.definition;
