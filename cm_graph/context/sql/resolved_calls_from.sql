-- resolved_calls_from: what the given definitions call by the resolver's references: every call or
--          instantiation written inside them (their nested definitions, a class's methods,
--          included), with the definition it binds to, or none when the receiver's type is unknown.
-- Database: index
-- Params : :definitions JSON array of definition numbers (the anchor's)
--          :roles       JSON array of reference roles (call, instantiate)
--          :limit       at most this many rows (the walks' read bound plus one)
-- Returns: (definition, node, name, path, line, candidates, init_of): the definition called (NULL:
--          unbound, matched by name only), its graph node (NULL where the provider has none or
--          unbound), the name written at the site, the site, how many definitions carry that name,
--          and for an `__init__` called, its class's graph node (an instantiation the graph has as
--          the class's)
-- Order  : site path, then line, then column (the reading order of the body).
-- Bound  : :limit rows; a range scan of definitions_by_file per anchor definition, an index step
--          into references_by_enclosing per enclosed definition, key lookups per row.
SELECT r.definition, d.node, r.name, f.path, r.line,
       (SELECT count(*) FROM definitions AS c WHERE c.name = r.name) AS candidates,
       CASE WHEN d.name = '__init__' THEN p.node END AS init_of
FROM json_each(:definitions) AS w
JOIN definitions AS a ON a.definition = w.value
JOIN definitions AS e ON e.file = a.file AND e.start_line >= a.start_line AND e.end_line <= a.end_line
CROSS JOIN resolved_references AS r ON r.enclosing = e.definition
JOIN resolved_files AS f ON f.file = r.file
LEFT JOIN definitions AS d ON d.definition = r.definition
LEFT JOIN definitions AS p ON p.definition = d.parent
WHERE r.role IN (SELECT value FROM json_each(:roles))
ORDER BY f.path, r.line, r.col
LIMIT :limit;
