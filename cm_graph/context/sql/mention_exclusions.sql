-- mention_exclusions: what the graph already carries of a name, so the text index's lines of it
--          can leave those out (context/textual.py): the call or reference site of every
--          relationship into a same-named definition, and every same-named definition's own
--          line (a definition is not a use). A site linked to the asked definition is carried;
--          one linked to another definition of the name stays a mention that says so: the
--          provider may have chosen the wrong one (a local `const parse = require(...)`, a
--          subclass's own `__init__`).
-- Database: index
-- Params : :name  a defined name (a label without a leading dot or argument list)
-- Returns: (path, line, node, site): node is the same-named definition; site 1 for a
--          relationship's site into it, 0 for its own line
-- Order  : path, line, node, site.
-- Bound  : the homonyms' incoming adjacency (two index range scans per homonym).
WITH homonyms (node, path, line) AS (
  SELECT node, path, line FROM nodes WHERE callable_base IN (:name, '.' || :name)
  UNION
  SELECT node, path, line FROM nodes WHERE label IN (:name, '.' || :name)
)
SELECT e.site_path AS path, e.site_line AS line, h.node AS node, 1 AS site
FROM homonyms AS h
JOIN adjacency AS a ON a.node = h.node AND a.direction = 1
JOIN edges AS e ON e.edge = a.edge
WHERE e.site_path <> ''
UNION
SELECT path, line, node, 0 FROM homonyms WHERE line IS NOT NULL
ORDER BY 1, 2, 3, 4;
