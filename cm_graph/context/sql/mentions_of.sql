-- mentions_of: the lines of the bound commit that use a name, from the text index, minus the
--          lines the graph already carries for the asked definition: a relationship into the
--          anchor (its call or reference site), and every same-named definition's own line (a
--          definition is not a use). A line the graph links to another definition of the name
--          stays a mention: the provider may have chosen the wrong one (a local
--          `const parse = require(...)`, a subclass's own `__init__`), and `linked_to` names the
--          definition it chose, so the disagreement is visible.
-- Params : :name  a defined name (a label without a leading dot or argument list),
--          :anchor the asked definition's node number, :limit at most this many rows
-- Returns: (path, line, form, linked_to): linked_to is the lowest node number of another
--          same-named definition the graph links that line to, else NULL
-- Order  : file (path order), then line: the text index's own order.
-- Bound  : :limit rows; the text index lists at most 2,000 lines of a name.
WITH homonyms (node, path, line) AS (
  SELECT node, path, line FROM nodes WHERE callable_base IN (:name, '.' || :name)
  UNION
  SELECT node, path, line FROM nodes WHERE label IN (:name, '.' || :name)
),
sites (node, path, line) AS (
  SELECT h.node, e.site_path, e.site_line
  FROM homonyms AS h
  JOIN adjacency AS a ON a.node = h.node AND a.direction = 1
  JOIN edges AS e ON e.edge = a.edge
  WHERE e.site_path <> ''
),
carried (path, line) AS (
  SELECT path, line FROM sites WHERE node = :anchor
  UNION
  SELECT path, line FROM homonyms WHERE line IS NOT NULL
)
SELECT f.path, m.line, m.form,
       (SELECT min(s.node) FROM sites AS s WHERE s.path = f.path AND s.line = m.line AND s.node <> :anchor)
FROM mentions AS m
JOIN text_files AS f ON f.file = m.file
WHERE m.name = :name
  AND NOT EXISTS (SELECT 1 FROM carried AS c WHERE c.path = f.path AND c.line = m.line)
ORDER BY m.file, m.line
LIMIT :limit;
