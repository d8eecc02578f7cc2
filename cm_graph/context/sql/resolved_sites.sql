-- resolved_sites: the lines where the resolver bound a reference (a call, an instantiation, a
--          reference) to a definition named :name, and whether one of them binds to the asked
--          node's definition, so a raise or catch line is labelled resolved, or known to be
--          another same-named definition's.
-- Database: index
-- Params : :name  a defined name
--          :node  the anchor's node number
-- Returns: (path, line, ours, other): ours 1 when some reference on the line binds to the
--          anchor's definition; other 1 when one binds to another definition of the name that
--          the provider has a node for (one it has none for may be the anchor itself: not said)
-- Order  : path, line.
-- Bound  : the definitions of the name (definitions_by_name), each one's references
--          (references_by_definition).
SELECT f.path, r.line, max(d.node IS :node) AS ours, max(d.node IS NOT NULL AND d.node <> :node) AS other
FROM definitions AS d
JOIN resolved_references AS r ON r.definition = d.definition
JOIN resolved_files AS f ON f.file = r.file
WHERE d.name = :name AND r.role IN ('call', 'instantiate', 'reference')
GROUP BY f.path, r.line
ORDER BY f.path, r.line;
