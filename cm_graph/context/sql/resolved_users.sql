-- resolved_users: one hop of a resolved walk: the references the resolver bound to a frontier
--          of definitions, each with the definition it is written in (its caller).
-- Database: index
-- Params : :frontier JSON array of definition numbers, in the walk's order
--          :roles    JSON array of reference roles to follow (call, instantiate, reference, ...)
--          :limit    at most this many rows (the walk's remaining read budget plus one)
-- Returns: (used, enclosing, node, path, line, role, kind, qualname, def_line): used is the
--          frontier definition the reference binds to, enclosing the definition it is written in,
--          node that definition's graph node (NULL where the provider has none), path and line
--          its site, kind, qualname and def_line the enclosing definition's
-- Order  : frontier position, then reference rank: total. The CROSS JOIN fixes the loop order
--          (json_each yields the frontier in array order, references_by_definition yields ranks
--          in order), so the LIMIT stops the scan on a hub.
-- Bound  : :limit rows; each row is an index step into resolved_references and two key lookups.
SELECT r.definition AS used, r.enclosing, e.node, f.path, r.line, r.role, e.kind, e.qualname, e.line AS def_line
FROM json_each(:frontier) AS w
CROSS JOIN resolved_references AS r ON r.definition = w.value
JOIN resolved_files AS f ON f.file = r.file
JOIN definitions AS e ON e.definition = r.enclosing
WHERE r.role IN (SELECT value FROM json_each(:roles))
LIMIT :limit;
