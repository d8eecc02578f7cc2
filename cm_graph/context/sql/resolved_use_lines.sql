-- resolved_use_lines: every line the resolver binds a use of the given definitions on, with the
--          definition it is written in, so each user of the anchor is cited at all its lines.
-- Database: index
-- Params : :definitions JSON array of definition numbers (the anchor's)
--          :roles       JSON array of reference roles that use a definition
--          :limit       at most this many rows (the walks' read bound)
-- Returns: (path, line, kind, def_line): the site's path and line, the enclosing definition's kind
--          ('module' for a line at a file's top level) and its def/class line
-- Order  : path, then line (one row per line and enclosing definition).
-- Bound  : :limit rows; an index step into resolved_references per row and two key lookups.
SELECT DISTINCT f.path, r.line, e.kind, e.line AS def_line
FROM json_each(:definitions) AS w
CROSS JOIN resolved_references AS r ON r.definition = w.value
JOIN resolved_files AS f ON f.file = r.file
JOIN definitions AS e ON e.definition = r.enclosing
WHERE r.role IN (SELECT value FROM json_each(:roles))
ORDER BY f.path, r.line, e.kind, e.line
LIMIT :limit;
