-- changed_file_definitions: every definition of one resolved file with its range, to map a
--          diff's changed lines of the bound commit onto the definitions holding them.
-- Database: index
-- Params : :path  a repository-relative path
-- Returns: (definition, kind, name, qualname, start_line, line, end_line, node, status): status is
--          the file's ('resolved', 'unparsable', 'too_large', 'failed'); no row when the
--          resolver did not read the file
-- Order  : definition number (file, start line, end line descending, ...): total.
-- Bound  : one file's definitions, by the path's unique index and the definitions' file index.
SELECT d.definition, d.kind, d.name, d.qualname, d.start_line, d.line, d.end_line, d.node, f.status
FROM resolved_files AS f
JOIN definitions AS d ON d.file = f.file
WHERE f.path = :path
ORDER BY d.definition;
