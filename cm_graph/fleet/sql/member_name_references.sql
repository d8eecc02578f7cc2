-- Bare names a member uses: an edge from a code node onto a sourceless stub (a node the provider
-- made for a name this repository does not define: a base class, a called or referenced name)
-- at a call site the census confirms.
-- Database: index
-- Params : none
-- Returns: (label, callable_base, site_path, site_line) of the stub and the site
-- Order  : site_path, site_line, label
SELECT DISTINCT t.label, t.callable_base, e.site_path, e.site_line
FROM edges AS e
JOIN nodes AS t ON t.node = e.target AND t.path = ''
JOIN nodes AS s ON s.node = e.source AND s.path <> ''
JOIN census AS c ON c.path = e.site_path
WHERE e.kind IN ('calls', 'references', 'inherits') AND e.site_line IS NOT NULL
  AND c.lines IS NOT NULL AND e.site_line <= c.lines
ORDER BY e.site_path, e.site_line, t.label;
