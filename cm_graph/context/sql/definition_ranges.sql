-- definition_ranges: the resolver's definitions of one file with their ranges, to credit a line
--          to the innermost definition holding it (docs/resolver.md#definition-ranges).
-- Database: index
-- Params : :path  a repository-relative path
-- Returns: (start_line, end_line, kind, qualname, module): qualname module-qualified, module the
--          file's
-- Order  : definition rank: an enclosing definition before what it encloses.
-- Bound  : one file's definitions (definitions_by_file).
SELECT d.start_line, d.end_line, d.kind, d.qualname, f.module
FROM resolved_files AS f
JOIN definitions AS d ON d.file = f.file
WHERE f.path = :path AND d.overload = 0
ORDER BY d.definition;
