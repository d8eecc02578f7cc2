-- definitions_at_lines: the resolved definitions whose def line is one of the given places
--          (a textual test mention's owner), to name them as pytest node ids (testrun.py).
-- Database: index
-- Params : :places JSON array of [path, line] pairs
-- Returns: (path, line, definition)
-- Order  : path, line, then definition (an enclosing definition before what it encloses).
-- Bound  : one indexed lookup per given path, then its definitions.
SELECT f.path, d.line, d.definition
FROM json_each(:places) AS wanted
JOIN resolved_files AS f ON f.path = json_extract(wanted.value, '$[0]')
JOIN definitions AS d ON d.file = f.file AND d.line = json_extract(wanted.value, '$[1]')
ORDER BY f.path, d.line, d.definition;
