-- owner_ranges: the resolver's definitions of one file with their ranges, to credit a line to
--          the innermost definition holding it (docs/resolver.md#definition-ranges): a mention
--          (named by the provider's node for that definition, when there is one) and a raise or
--          catch site (named by its qualified name less the module).
-- Database: index
-- Params : :path  a repository-relative path
-- Returns: (start_line, end_line, line, kind, name, qualname, module, label, node_kind): label
--          and node_kind NULL for a definition the provider has no node for
-- Order  : definition rank: an enclosing definition before what it encloses.
-- Bound  : one file's definitions (definitions_by_file).
SELECT d.start_line, d.end_line, d.line, d.kind, d.name, d.qualname, f.module, n.label, n.kind AS node_kind
FROM resolved_files AS f
JOIN definitions AS d ON d.file = f.file
LEFT JOIN nodes AS n ON n.node = d.node
WHERE f.path = :path AND d.kind <> 'module' AND d.overload = 0
ORDER BY d.definition;
