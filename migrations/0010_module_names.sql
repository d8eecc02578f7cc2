-- Migration 0010 (schema version 10): the text index looks for the graph's Python module names.
--
-- Beside the symbol and test labels, mention_names holds each Python module's name (its file's
-- stem, a package's directory for its __init__), so the strings that load a module by name
-- (`extensions=['admonition']`, `import_module('pkg.plugins.csv')`) are posted: the tests to run
-- find a test that loads the changed module that way. The tables keep their shape; a version 9
-- index lacks those rows, so it is derived again rather than migrated in place; this step exists
-- so the numbered steps still equal schema.sql.
PRAGMA user_version = 10;            -- the schema version; see migrations/
