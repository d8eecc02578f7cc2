-- definition_ranges: where each given resolved definition is, as a recorded test run's map keys
--          it (path and line range), to find the tests observed executing it (observed.py).
-- Database: index
-- Params : :definitions JSON array of definition numbers
-- Returns: (definition, path, start_line, end_line, qualname)
-- Order  : definition number.
-- Bound  : one primary-key lookup per given definition.
SELECT d.definition, f.path, d.start_line, d.end_line, d.qualname
FROM json_each(:definitions) AS wanted
JOIN definitions AS d ON d.definition = wanted.value
JOIN resolved_files AS f ON f.file = d.file
ORDER BY d.definition;
