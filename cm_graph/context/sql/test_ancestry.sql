-- test_ancestry: each given resolved definition's file and its chain of enclosing definitions
--          (itself first, then its parent, up to the module), from which a test's pytest node
--          id is derived (testrun.py).
-- Database: index
-- Params : :definitions JSON array of definition numbers
-- Returns: (definition, path, depth, kind, name): depth 0 is the definition itself
-- Order  : definition, then depth.
-- Bound  : one primary-key lookup per given definition and enclosing level.
WITH RECURSIVE chain(start, definition, parent, kind, name, depth) AS (
  SELECT d.definition, d.definition, d.parent, d.kind, d.name, 0
  FROM json_each(:definitions) AS wanted
  JOIN definitions AS d ON d.definition = wanted.value
  UNION ALL
  SELECT c.start, p.definition, p.parent, p.kind, p.name, c.depth + 1
  FROM chain AS c
  JOIN definitions AS p ON p.definition = c.parent
)
SELECT c.start AS definition, f.path, c.depth, c.kind, c.name
FROM chain AS c
JOIN definitions AS s ON s.definition = c.start
JOIN resolved_files AS f ON f.file = s.file
ORDER BY c.start, c.depth;
