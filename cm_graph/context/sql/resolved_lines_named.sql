-- resolved_lines_named: the lines holding a reference the resolver read under a name, and the
--          definition it bound it to (NULL: the receiver's type is unknown), so a textual
--          mention of the name can be told apart: this definition's (resolved), another's
--          (bound elsewhere) or unknown (kept as a mention); a raise or catch line is labelled the
--          same way (context/sites.py). A bound reference is found through
--          the definitions of that name (an alias bound under another name is not listed: its
--          line does not spell the name).
-- Database: index
-- Params : :name the name as written at the site
-- Returns: (path, line, definition, node): node the definition's graph node (NULL: unbound, or a
--          definition the provider has no node for)
-- Order  : path, line, definition (NULL first).
-- Bound  : the unbound references of the name (references_unbound_by_name) and those bound to
--          its definitions (definitions_by_name, then references_by_definition).
SELECT f.path, r.line, r.definition, NULL AS node
FROM resolved_references AS r
JOIN resolved_files AS f ON f.file = r.file
WHERE r.name = :name AND r.definition IS NULL
UNION ALL
SELECT f.path, r.line, r.definition, d.node
FROM definitions AS d
JOIN resolved_references AS r ON r.definition = d.definition
JOIN resolved_files AS f ON f.file = r.file
WHERE d.name = :name AND r.name = :name
ORDER BY 1, 2, 3, 4;
