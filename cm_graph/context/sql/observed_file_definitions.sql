-- observed_file_definitions: every definition (module excluded) of the given resolved files with
--          its range, onto which a recorded test run's executed code objects are mapped by path
--          and first line (observed.py).
-- Database: index
-- Params : :paths JSON array of repository-relative paths
-- Returns: (path, qualname, kind, start_line, end_line)
-- Order  : path, start line, end line descending, qualname: total.
-- Bound  : the given files' definitions, by the path's unique index and the definitions' file index.
SELECT f.path, d.qualname, d.kind, d.start_line, d.end_line
FROM json_each(:paths) AS wanted
JOIN resolved_files AS f ON f.path = wanted.value
JOIN definitions AS d ON d.file = f.file
WHERE d.kind <> 'module'
ORDER BY f.path, d.start_line, d.end_line DESC, d.qualname;
