-- resolved_callers: one hop of a changed definitions' callers in the resolved layer: every
--          reference bound to one of them, with the definition it sits in (the caller).
-- Database: index
-- Params : :definitions  JSON array of definition numbers (the frontier)
--          :limit        at most this many rows (the walk's remaining read budget plus one)
-- Returns: (definition, enclosing, path, line, role, kind, qualname, def_line, node): definition
--          is the frontier's, enclosing the caller, path and line the reference's site, kind,
--          qualname and def_line the caller's, node the caller's provider node (NULL: none)
-- Order  : reference number (file, line, column, ...): total.
-- Bound  : :limit rows, by the references' definition index.
SELECT r.definition, r.enclosing, f.path, r.line, r.role, e.kind, e.qualname, e.line AS def_line, e.node
FROM json_each(:definitions) AS j
CROSS JOIN resolved_references AS r ON r.definition = j.value
JOIN resolved_files AS f ON f.file = r.file
JOIN definitions AS e ON e.definition = r.enclosing
ORDER BY r.reference
LIMIT :limit;
