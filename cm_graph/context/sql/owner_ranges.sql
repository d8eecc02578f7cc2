-- owner_ranges: the resolver's definitions of one file with their ranges and, where the
--          provider has a node for one, that node's label and kind, so a mention is named by
--          the innermost definition holding its line (not the nearest one above it).
-- Database: index
-- Params : :path  a repository-relative path
-- Returns: (start_line, end_line, line, kind, name, label, node_kind): label and node_kind NULL
--          for a definition the provider has no node for
-- Order  : definition rank: an enclosing definition before what it encloses.
-- Bound  : one file's definitions (definitions_by_file).
SELECT d.start_line, d.end_line, d.line, d.kind, d.name, n.label, n.kind AS node_kind
FROM resolved_files AS f
JOIN definitions AS d ON d.file = f.file
LEFT JOIN nodes AS n ON n.node = d.node
WHERE f.path = :path AND d.kind <> 'module' AND d.overload = 0
ORDER BY d.definition;
