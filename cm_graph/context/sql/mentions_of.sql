-- mentions_of: the lines of the bound commit that use a name, from the text index, minus the
--          lines the graph already carries: a relationship into any definition of that name (its
--          call or reference site) and the definitions' own lines.
-- Params : :name  a defined name (a label without a leading dot or argument list),
--          :limit at most this many rows
-- Returns: (path, line, form) of each mention
-- Order  : file (path order), then line: the text index's own order.
-- Bound  : :limit rows; the text index lists at most 2,000 lines of a name.
WITH homonyms (node, path, line) AS (
  SELECT node, path, line FROM nodes WHERE callable_base IN (:name, '.' || :name)
  UNION
  SELECT node, path, line FROM nodes WHERE label IN (:name, '.' || :name)
),
carried (path, line) AS (
  SELECT e.site_path, e.site_line
  FROM homonyms AS h
  JOIN adjacency AS a ON a.node = h.node AND a.direction = 1
  JOIN edges AS e ON e.edge = a.edge
  WHERE e.site_path <> ''
  UNION
  SELECT path, line FROM homonyms WHERE line IS NOT NULL
)
SELECT f.path, m.line, m.form
FROM mentions AS m
JOIN text_files AS f ON f.file = m.file
WHERE m.name = :name
  AND NOT EXISTS (SELECT 1 FROM carried AS c WHERE c.path = f.path AND c.line = m.line)
ORDER BY m.file, m.line
LIMIT :limit;
